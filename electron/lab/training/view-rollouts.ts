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
import { LedgerEvent, RolloutEpisode, type RolloutStep, type RolloutToken, type RolloutView } from '../../domain/training-view';
import { SegmentKind } from '../../domain/trajectory';
import { VIEW_FILES } from './view-runs';

const STEP_DIR = /^step-(\d+)$/;
const stepDir = (dir: string, step: number) => join(dir, VIEW_FILES.rollouts, `step-${String(step).padStart(6, '0')}`);

/** An episode line as the PPO writer may put it: reward as a number or as {dense, fraction, binary}. */
const EpisodeLine = z.object({
  key: z.string(),
  taskId: z.string(),
  category: z.string().default('uncategorized'),
  reward: z.union([z.number(), z.object({ dense: z.number(), binary: z.number().optional() }).passthrough()]).nullable().default(null),
  resolved: z.boolean().default(false),
  turns: z.number().int().default(0),
  tokens: z.number().int().default(0),
  aborted: z.boolean().default(false),
});

function toEpisode(line: z.infer<typeof EpisodeLine>): RolloutEpisode {
  const reward = line.reward === null ? null : typeof line.reward === 'number' ? line.reward : line.reward.dense;
  const rewardBinary = line.reward !== null && typeof line.reward === 'object' ? (line.reward.binary ?? null) : null;
  return RolloutEpisode.parse({ ...line, reward, rewardBinary: rewardBinary ?? (line.resolved ? 1 : 0) });
}

function issue(file: string, error: z.ZodError): LabError {
  const first = error.issues[0];
  return new LabError('UNAVAILABLE', `${file}: ${first?.path.join('.') || '(root)'}: ${first?.message ?? 'invalid'}`);
}

/** Steps that have rollouts, ascending. */
export function listRolloutSteps(dir: string): number[] {
  const root = join(dir, VIEW_FILES.rollouts);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((n) => STEP_DIR.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export function readRolloutStep(dir: string, step: number): RolloutStep {
  const file = join(stepDir(dir, step), 'episodes.jsonl');
  if (!existsSync(file)) throw new LabError('NOT_FOUND', `step ${step} has no rollouts (${file} is missing)`);
  const episodes: RolloutEpisode[] = [];
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
      episodes.push(toEpisode(parsed.data));
    });
  return { step, episodes };
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
    for (const k of ['text', 'kinds', 'mask', 'logprobs', 'advantages', 'values', 'tisWeights', 'experts', 'gates'] as const) {
      const a = f[k];
      if (a && a.length !== f.ids.length) ctx.addIssue({ code: 'custom', path: [k], message: `has ${a.length} entries for ${f.ids.length} ids` });
    }
  });

export function readRollout(runId: string, dir: string, step: number, key: string): RolloutView {
  const folder = stepDir(dir, step);
  const file = resolve(folder, `${key}.json`);
  if (!file.startsWith(resolve(folder) + sep)) throw new LabError('INVALID_PARAMS', `episode key '${key}' is not a file name`);
  const episode = readRolloutStep(dir, step).episodes.find((e) => e.key === key);
  if (!episode) throw new LabError('NOT_FOUND', `step ${step} has no episode '${key}'`);
  if (!existsSync(file)) throw new LabError('NOT_FOUND', `episode '${key}' of step ${step} has no token file (${file})`);
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
  return { runId, step, key, episode, tokens, turnStarts: f.turnStarts, ledgerEvents: f.ledgerEvents, numExperts: f.numExperts };
}
