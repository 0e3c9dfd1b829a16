/**
 * What the Training page shows about training runs, as plain data: the runs list, a step's rollouts, one
 * rollout's tokens with their training quantities, the run's checkpoints and a comparison of two eval runs.
 */
import { z } from 'zod';
import { LedgerVerdict, SegmentKind } from './trajectory';

/**
 * The trainer's states (electron/domain/training.ts) plus `incomplete`: a run whose files say it did not
 * finish and that no trainer works on (killed or stopped: it resumes).
 */
export const TrainingRunState = z.enum([
  'starting',
  'running',
  'paused',
  'stopping',
  'stopped',
  'completed',
  'failed',
  'incomplete',
]);
export type TrainingRunState = z.infer<typeof TrainingRunState>;
export const ENDED_STATES: readonly TrainingRunState[] = ['stopped', 'completed', 'failed', 'incomplete'];

/** A row of the Training page's runs list (and of `t1lab train watch`). */
export const TrainingRunSummary = z.object({
  id: z.string(),
  dir: z.string(),
  stage: z.string(),
  state: TrainingRunState,
  step: z.number().int(),
  totalSteps: z.number().int().nullable(),
  /** Seconds left at the recent pace (null when unknown or over). */
  etaS: z.number().nullable(),
  /** The last logged reward (PPO: reward_dense) or loss (LM, SFT): what the list shows as the latest figure. */
  lastFigure: z.object({ key: z.string(), value: z.number() }).nullable(),
  startedAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  message: z.string().nullable(),
  /** The researcher's name, tags and notes (meta.json; additive). */
  name: z.string().nullable().optional(),
  tags: z.array(z.string()).optional(),
  notes: z.string().optional(),
  /** The run's config seed, and its stage and settings without seeds as one string: runs with the same key differ only in seed (additive). */
  seed: z.number().nullable().optional(),
  settingsKey: z.string().optional(),
});
export type TrainingRunSummary = z.infer<typeof TrainingRunSummary>;

export const RolloutEpisode = z.object({
  key: z.string(),
  taskId: z.string(),
  category: z.string(),
  reward: z.number().nullable(),
  rewardBinary: z.number().nullable(),
  resolved: z.boolean(),
  turns: z.number().int(),
  tokens: z.number().int(),
  aborted: z.boolean(),
});
export type RolloutEpisode = z.infer<typeof RolloutEpisode>;

export const RolloutStep = z.object({ step: z.number().int(), episodes: z.array(RolloutEpisode) });
export type RolloutStep = z.infer<typeof RolloutStep>;

/** One token of a rollout with what training computed for it (null where it has no such value: outside the loss). */
export const RolloutToken = z.object({
  id: z.number().int(),
  text: z.string(),
  kind: SegmentKind,
  /** 1: in the loss (sampled by the policy), 0: prompt, observation, template or repaired. */
  mask: z.union([z.literal(0), z.literal(1)]),
  logprob: z.number().nullable(),
  advantage: z.number().nullable(),
  value: z.number().nullable(),
  tisWeight: z.number().nullable(),
  /** Top-k experts per layer, as the sampler routed this token (R3 replays them). */
  experts: z.array(z.array(z.number().int())).nullable(),
  gates: z.array(z.array(z.number())).nullable(),
});
export type RolloutToken = z.infer<typeof RolloutToken>;

/** A ledger event at a turn boundary: the check before the turn (CLEAN/REPAIR/FORK) and where it fell. */
export const LedgerEvent = z.object({
  turn: z.number().int(),
  verdict: LedgerVerdict,
  tokenIndex: z.number().int(),
  maskedSampled: z.number().int(),
});
export type LedgerEvent = z.infer<typeof LedgerEvent>;

export const RolloutView = z.object({
  runId: z.string(),
  step: z.number().int(),
  key: z.string(),
  episode: RolloutEpisode,
  tokens: z.array(RolloutToken),
  /** Index of the first token of each turn's sampled segment (turn boundaries). */
  turnStarts: z.array(z.number().int()),
  ledgerEvents: z.array(LedgerEvent),
  numExperts: z.number().int().nullable(),
});
export type RolloutView = z.infer<typeof RolloutView>;

export const TrainingCheckpoint = z.object({
  name: z.string(),
  path: z.string(),
  step: z.number().int().nullable(),
  createdAt: z.string().nullable(),
  best: z.boolean(),
  evalLoss: z.number().nullable(),
  /** Eval runs (ids under the lab's runs/) whose policy is this checkpoint. */
  evalRuns: z.array(
    z.object({ runId: z.string(), suite: z.string(), resolvedRate: z.number().nullable(), state: z.string() }),
  ),
});
export type TrainingCheckpoint = z.infer<typeof TrainingCheckpoint>;

const Outcome = z.object({ resolved: z.number(), episodes: z.number().int(), reward: z.number().nullable() });

/** Two eval runs side by side: per task, per category, and a slot for the paired test (the statistics issue). */
export const RunComparison = z.object({
  a: z.object({
    runId: z.string(),
    policy: z.string(),
    suite: z.string(),
    resolvedRate: z.number(),
    tasks: z.number().int(),
  }),
  b: z.object({
    runId: z.string(),
    policy: z.string(),
    suite: z.string(),
    resolvedRate: z.number(),
    tasks: z.number().int(),
  }),
  tasks: z.array(z.object({ taskId: z.string(), category: z.string(), a: Outcome.nullable(), b: Outcome.nullable() })),
  byCategory: z.array(
    z.object({ category: z.string(), tasks: z.number().int(), a: z.number(), b: z.number(), diff: z.number() }),
  ),
  /** Tasks both runs ran, and on how many each one resolved more. */
  shared: z.object({
    tasks: z.number().int(),
    aBetter: z.number().int(),
    bBetter: z.number().int(),
    same: z.number().int(),
  }),
  /** The paired test of the statistics issue, when it lands; null until then. */
  pairedTest: z
    .object({ name: z.string(), pValue: z.number(), diff: z.number(), ci95: z.tuple([z.number(), z.number()]) })
    .nullable(),
});
export type RunComparison = z.infer<typeof RunComparison>;

/** What a training run ran with and what it said: its config as TOML and as flat hyperparameters, its log and metrics tails. */
export const TrainingRunDetails = z.object({
  runId: z.string(),
  stage: z.string(),
  /** The validated config from run.json (defaults filled in), written back as TOML. */
  configToml: z.string(),
  /** The TOML file it was started from, when started from one (the CLI); null from the app's editor. */
  configSource: z.string().nullable(),
  /** Every config value as `section.key` = value, in the config's order. */
  hyperparameters: z.array(z.object({ key: z.string(), value: z.string() })),
  /** Code, machine, provider and starting checkpoint, as run.json records them. */
  provenance: z.array(z.object({ key: z.string(), value: z.string() })),
  /** The last lines of the run's log (train.log), oldest first; `logLines` counts every line. */
  log: z.array(z.string()),
  logLines: z.number().int(),
  /** The last rows of metrics.jsonl as written. */
  metricsTail: z.array(z.string()),
  /** status.json's message (the failure, for a failed run). */
  message: z.string().nullable(),
});
export type TrainingRunDetails = z.infer<typeof TrainingRunDetails>;

/** A checkpoint of the run evaluated on a suite: its step, resolved rate and 95% interval (Wilson over tasks). */
export const HeldOutPoint = z.object({
  step: z.number().int(),
  evalRunId: z.string(),
  suite: z.string(),
  tasks: z.number().int(),
  episodes: z.number().int(),
  resolvedRate: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
  complete: z.boolean(),
  /** The evaluation's settings in words (temperature, turns, tokens, …): points are comparable only when these agree. */
  settings: z.string(),
});
export type HeldOutPoint = z.infer<typeof HeldOutPoint>;

/** A rollout's episode folder: the verifier's verdict and output, and whether a recording is there. */
export const RolloutEpisodeFiles = z.object({
  runId: z.string(),
  step: z.number().int(),
  key: z.string(),
  taskId: z.string(),
  resolved: z.boolean(),
  stopReason: z.string(),
  reward: z.object({ dense: z.number(), fraction: z.number(), binary: z.number() }).nullable(),
  assertions: z.array(z.object({ name: z.string(), status: z.string(), message: z.string() })),
  verifierRan: z.boolean(),
  verifierOutput: z.string().nullable(),
  hasRecording: z.boolean(),
});
export type RolloutEpisodeFiles = z.infer<typeof RolloutEpisodeFiles>;
