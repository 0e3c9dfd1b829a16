/**
 * A PPO run's rollouts read back: `rollouts/step-<N>/episodes.jsonl` (one line per episode of the step)
 * and `rollouts/step-<N>/<key>.json` (its tokens, in parallel arrays, with what training computed for
 * them: sampler log-prob, advantage, value, TIS weight, loss mask, experts). Each malformed file is an
 * error naming the file and the field.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { z } from 'zod';
import { LabError } from '../../ipc/common/errors';
import {
  LedgerEvent,
  RolloutEpisode,
  type RolloutStep,
  type RolloutToken,
  type RolloutView,
} from '../../domain/training-view';
import { SegmentKind } from '../../domain/trajectory';
import { ppoEpisodeDir, readPpoRollout } from './ppo-rollout-view';
import { VIEW_FILES } from './view-runs';

const STEP_DIR = /^step-(\d+)$/;
/** The PPO stage pads step folders to 7 digits; fixtures may use fewer. */
function stepDir(dir: string, step: number): string {
  for (const width of [7, 6]) {
    const d = join(dir, VIEW_FILES.rollouts, `step-${String(step).padStart(width, '0')}`);
    if (existsSync(d)) return d;
  }
  return join(dir, VIEW_FILES.rollouts, `step-${String(step).padStart(7, '0')}`);
}

/** An episode line as the PPO writer may put it: reward as a number or as {dense, fraction, binary}. */
const EpisodeLine = z.object({
  key: z.string(),
  taskId: z.string(),
  category: z.string().default('uncategorized'),
  reward: z
    .union([z.number(), z.object({ dense: z.number(), binary: z.number().optional() }).passthrough()])
    .nullable()
    .default(null),
  resolved: z.boolean().default(false),
  turns: z.number().int().default(0),
  tokens: z.number().int().optional(),
  /** The PPO stage's name for the episode's sampled tokens. */
  completionTokens: z.number().int().optional(),
  aborted: z.boolean().default(false),
  dir: z.string().nullable().optional(),
});

function toEpisode(line: z.infer<typeof EpisodeLine>): RolloutEpisode {
  const reward = line.reward === null ? null : typeof line.reward === 'number' ? line.reward : line.reward.dense;
  const rewardBinary = line.reward !== null && typeof line.reward === 'object' ? (line.reward.binary ?? null) : null;
  return RolloutEpisode.parse({
    ...line,
    tokens: line.tokens ?? line.completionTokens ?? 0,
    reward,
    rewardBinary: rewardBinary ?? (line.resolved ? 1 : 0),
  });
}

function issue(file: string, error: z.ZodError): LabError {
  const first = error.issues[0];
  return new LabError('UNAVAILABLE', `${file}: ${first?.path.join('.') || '(root)'}: ${first?.message ?? 'invalid'}`);
}

/** Steps that have rollouts, ascending: a step being written (no episode line yet) is not offered. */
export function listRolloutSteps(dir: string): number[] {
  const root = join(dir, VIEW_FILES.rollouts);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((n) => ({ m: STEP_DIR.exec(n), n }))
    .filter(
      (x): x is { m: RegExpExecArray; n: string } => x.m !== null && hasEpisodes(join(root, x.n, 'episodes.jsonl')),
    )
    .map((x) => Number(x.m[1]))
    .sort((a, b) => a - b);
}

function hasEpisodes(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').includes('\n');
  } catch {
    return false;
  }
}

export function readRolloutStep(dir: string, step: number): RolloutStep {
  return { step, episodes: readEpisodeLines(dir, step).map((l) => l.episode) };
}

function readEpisodeLines(dir: string, step: number): { episode: RolloutEpisode; dir: string | null }[] {
  const file = join(stepDir(dir, step), 'episodes.jsonl');
  if (!existsSync(file)) throw new LabError('NOT_FOUND', `step ${step} has no rollouts (${file} is missing)`);
  const episodes: { episode: RolloutEpisode; dir: string | null }[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return; // a torn last line of a killed writer: the episode is not there yet
      }
      const parsed = EpisodeLine.safeParse(json);
      if (!parsed.success) throw issue(`${file}:${i + 1}`, parsed.error);
      episodes.push({ episode: toEpisode(parsed.data), dir: parsed.data.dir ?? null });
    });
  return episodes;
}

/**
 * The episode folder of a step's rollout (trajectory, recording.cast, verifier/), or null when the step
 * keeps tokens only.
 */
export function rolloutEpisodeFolder(
  dir: string,
  step: number,
  key: string,
): { episode: RolloutEpisode; folder: string | null } {
  const folder = stepDir(dir, step);
  const line = readEpisodeLines(dir, step).find((e) => e.episode.key === key);
  if (!line) throw new LabError('NOT_FOUND', `step ${step} has no episode '${key}'`);
  const found = ppoEpisodeDir(folder, key, line.dir);
  // The episode line's folder is relative to the step (or absolute); it must stay inside the run.
  return {
    episode: line.episode,
    folder: found && resolve(found).startsWith(resolve(dir) + sep) ? resolve(found) : null,
  };
}

const nullableNums = z.array(z.number().nullable());
const TokenFile = z
  .object({
    ids: z.array(z.number().int()),
    text: z.array(z.string()).optional(),
    kinds: z.array(SegmentKind).optional(),
    mask: z.array(z.union([z.literal(0), z.literal(1)])),
    logprobs: nullableNums.optional(),
    advantages: nullableNums.optional(),
    values: nullableNums.optional(),
    tisWeights: nullableNums.optional(),
    experts: z.array(z.array(z.array(z.number().int())).nullable()).optional(),
    gates: z.array(z.array(z.array(z.number())).nullable()).optional(),
    turnStarts: z.array(z.number().int()).default([]),
    ledgerEvents: z.array(LedgerEvent).default([]),
    numExperts: z.number().int().nullable().default(null),
  })
  .superRefine((f, ctx) => {
    for (const k of [
      'text',
      'kinds',
      'mask',
      'logprobs',
      'advantages',
      'values',
      'tisWeights',
      'experts',
      'gates',
    ] as const) {
      const a = f[k];
      if (a && a.length !== f.ids.length)
        ctx.addIssue({ code: 'custom', path: [k], message: `has ${a.length} entries for ${f.ids.length} ids` });
    }
  });

export function readRollout(runId: string, dir: string, step: number, key: string): RolloutView {
  const folder = stepDir(dir, step);
  const file = resolve(folder, `${key}.json`);
  if (!file.startsWith(resolve(folder) + sep))
    throw new LabError('INVALID_PARAMS', `episode key '${key}' is not a file name`);
  const line = readEpisodeLines(dir, step).find((e) => e.episode.key === key);
  if (!line) throw new LabError('NOT_FOUND', `step ${step} has no episode '${key}'`);
  const episode = line.episode;
  // The PPO stage's layout: the episode's folder with its trajectory, and the step's samples.jsonl.
  const ppoDir = existsSync(file) ? null : ppoEpisodeDir(folder, key, line.dir);
  if (ppoDir) return readPpoRollout(runId, dir, folder, step, episode, ppoDir);
  if (!existsSync(file))
    throw new LabError('NOT_FOUND', `episode '${key}' of step ${step} has no token file (${file})`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new LabError('UNAVAILABLE', `${file}: not JSON (${(error as Error).message})`);
  }
  const parsed = TokenFile.safeParse(json);
  if (!parsed.success) throw issue(file, parsed.error);
  const f = parsed.data;
  const tokens: RolloutToken[] = f.ids.map((id, i) => ({
    id,
    text: f.text?.[i] ?? `⟨${id}⟩`,
    kind: f.kinds?.[i] ?? (f.mask[i] ? 'sampled' : 'observation'),
    mask: f.mask[i]!,
    logprob: f.logprobs?.[i] ?? null,
    advantage: f.advantages?.[i] ?? null,
    value: f.values?.[i] ?? null,
    tisWeight: f.tisWeights?.[i] ?? null,
    experts: f.experts?.[i] ?? null,
    gates: f.gates?.[i] ?? null,
  }));
  return {
    runId,
    step,
    key,
    episode,
    tokens,
    turnStarts: f.turnStarts,
    ledgerEvents: f.ledgerEvents,
    numExperts: f.numExperts,
  };
}
