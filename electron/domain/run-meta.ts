/**
 * What a researcher says about a run (name, tags, notes), kept in the run folder as `meta.json` next to
 * `run.json`. It is a file of its own because run.json is the run's record of what ran (and the trainer
 * rewrites a training run's run.json as checkpoints land): editing a name must never race or rewrite it.
 * Eval and training runs alike have one; a run without the file has no name, no tags and no notes.
 */
import { z } from 'zod';

export const RUN_META_SCHEMA = 't1lab.run-meta/1';
export const RUN_META_FILE = 'meta.json';

/** A tag: one word people can type and filter on (`baseline`, `r3:on`, `lr=3e-5`). */
export const RunTag = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:=+/-]{0,63}$/,
    'a tag is 1-64 characters: letters, digits and . _ : = + / - (no spaces), starting with a letter or digit',
  );

export const RunName = z
  .string()
  .trim()
  .min(1, 'a run name is not empty')
  .max(120, 'a run name is at most 120 characters');

export const RunMeta = z
  .object({
    schema: z.literal(RUN_META_SCHEMA),
    name: RunName.nullable(),
    tags: z.array(RunTag).max(64),
    notes: z.string().max(20_000),
    updatedAt: z.string().nullable(),
  })
  .strict();
export type RunMeta = z.infer<typeof RunMeta>;

export const EMPTY_RUN_META: RunMeta = { schema: RUN_META_SCHEMA, name: null, tags: [], notes: '', updatedAt: null };

/** One edit: fields left out stay as they are; `name: null` clears the name. */
export const RunMetaPatch = z
  .object({
    name: RunName.nullable().optional(),
    addTags: z.array(RunTag).max(64).optional(),
    removeTags: z.array(z.string().max(64)).max(64).optional(),
    notes: z.string().max(20_000).optional(),
    /** Append to the notes (a new paragraph) instead of replacing them. */
    appendNotes: z.string().max(20_000).optional(),
  })
  .strict();
export type RunMetaPatch = z.infer<typeof RunMetaPatch>;

export function applyRunMetaPatch(meta: RunMeta, patch: RunMetaPatch, now = new Date()): RunMeta {
  const removed = new Set(patch.removeTags ?? []);
  const tags = [...meta.tags.filter((t) => !removed.has(t))];
  for (const t of patch.addTags ?? []) if (!tags.includes(t)) tags.push(t);
  let notes = patch.notes ?? meta.notes;
  if (patch.appendNotes) notes = notes ? `${notes}\n\n${patch.appendNotes}` : patch.appendNotes;
  return RunMeta.parse({
    ...meta,
    name: patch.name === undefined ? meta.name : patch.name,
    tags,
    notes,
    updatedAt: now.toISOString(),
  });
}

/** Which kind of run an id names: an evaluation (`runs/`) or a training run (`training/`). */
export const RunKindOfFolder = z.enum(['eval', 'training']);
export type RunKindOfFolder = z.infer<typeof RunKindOfFolder>;

/** What `t1lab runs tag|rename|note --json` prints and `runs.setMeta` returns. */
export const RunMetaResult = z.object({ runId: z.string(), kind: RunKindOfFolder, dir: z.string(), meta: RunMeta });
export type RunMetaResult = z.infer<typeof RunMetaResult>;

/** What `t1lab runs rm --json` prints and `runs.remove` returns. */
export const RunRemoved = z.object({
  runId: z.string(),
  kind: RunKindOfFolder,
  dir: z.string(),
  removed: z.literal(true),
});
export type RunRemoved = z.infer<typeof RunRemoved>;
