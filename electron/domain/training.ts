/**
 * Training runs as plain data: the run's manifest (run.json), one metrics row per step (metrics.jsonl),
 * the live progress the trainer worker streams, and the listing of runs in the data folder. The Training
 * page, `t1lab train` and the trainer worker share these shapes.
 */
import { z } from 'zod';

export const TRAINING_RUN_SCHEMA = 't1lab.training-run/1';
export const TrainingStage = z.enum(['lm', 'sft', 'ppo']);
export type TrainingStage = z.infer<typeof TrainingStage>;

export const TrainingState = z.enum(['starting', 'running', 'paused', 'stopping', 'stopped', 'completed', 'failed']);
export type TrainingState = z.infer<typeof TrainingState>;

/** One optimizer step (metrics.jsonl). Stages add their own keys (PPO: pg_loss, clipfrac, ...). */
export const MetricsRow = z
  .object({
    step: z.number().int(),
    /** Tokens trained on so far (loss tokens are counted apart). */
    tokens: z.number().int(),
    loss: z.number(),
    lr: z.number(),
    grad_norm: z.number(),
    tokens_per_s: z.number(),
    /** Seconds of this step: data (batching), forward+backward, optimizer, checkpoint, eval. */
    time: z.object({
      data: z.number(),
      fwd_bwd: z.number(),
      optimizer: z.number(),
      checkpoint: z.number(),
      eval: z.number(),
    }),
    eval_loss: z.number().optional(),
    wall_time: z.number(),
  })
  .catchall(z.unknown());
export type MetricsRow = z.infer<typeof MetricsRow>;

export const TrainingCheckpointRef = z.object({
  step: z.number().int(),
  dir: z.string(),
  id: z.string(),
  evalLoss: z.number().nullable(),
  best: z.boolean(),
});
export type TrainingCheckpointRef = z.infer<typeof TrainingCheckpointRef>;

export const TrainingRunManifest = z.object({
  schema: z.literal(TRAINING_RUN_SCHEMA),
  id: z.string(),
  stage: TrainingStage,
  createdAt: z.string(),
  /** The validated run config (the TOML as data, overrides applied). */
  config: z.record(z.string(), z.unknown()),
  configSource: z.string().nullable(),
  /** The checkpoint training started from (its folder and manifest id). */
  init: z.object({ path: z.string(), id: z.string() }),
  code: z.object({ version: z.string(), commit: z.string().nullable() }),
  machine: z.object({
    platform: z.string(),
    cpu: z.string(),
    cores: z.number().int(),
    memoryBytes: z.number(),
    node: z.string(),
    hostname: z.string(),
  }),
  provider: z.object({ name: z.string(), fallbackReason: z.string().nullable() }).nullable(),
  /** Parameters with their optimizer group (lr scale, weight decay, frozen). */
  paramGroups: z.array(
    z.object({
      pattern: z.string(),
      parameters: z.number().int(),
      lrScale: z.number(),
      weightDecay: z.number(),
      frozen: z.boolean(),
    }),
  ),
  data: z.record(z.string(), z.unknown()),
  checkpoints: z.array(TrainingCheckpointRef),
  /** Times the run was resumed after a stop or a kill. */
  resumes: z.array(z.object({ at: z.string(), fromStep: z.number().int() })),
  /** Warnings given when the run started (a budget the oracle cannot meet, ...); additive. */
  warnings: z.array(z.string()).optional(),
});
export type TrainingRunManifest = z.infer<typeof TrainingRunManifest>;

export const TrainingProgress = z.object({
  runId: z.string(),
  runDir: z.string(),
  stage: TrainingStage,
  state: TrainingState,
  step: z.number().int(),
  totalSteps: z.number().int(),
  tokens: z.number().int(),
  loss: z.number().nullable(),
  evalLoss: z.number().nullable(),
  lr: z.number().nullable(),
  tokensPerS: z.number().nullable(),
  etaS: z.number().nullable(),
  lastCheckpoint: TrainingCheckpointRef.nullable(),
  message: z.string().nullable(),
});
export type TrainingProgress = z.infer<typeof TrainingProgress>;

/** The final report (`t1lab train lm|sft --json`). */
export const TrainingResult = z.object({
  stage: TrainingStage,
  steps: z.number().int(),
  tokens: z.number().int(),
  finalLoss: z.number().nullable(),
  evalLoss: z.number().nullable(),
  checkpoint: z.string().nullable(),
  runDir: z.string(),
  durationMs: z.number(),
  state: TrainingState,
});
export type TrainingResult = z.infer<typeof TrainingResult>;

/** A run in the data folder (`training.list`, `t1lab train status`). */
export const TrainingRunListing = z.object({
  runId: z.string(),
  runDir: z.string(),
  stage: TrainingStage,
  createdAt: z.string(),
  /** From the files: 'completed' when the last step's checkpoint exists, else 'incomplete' unless this worker runs it. */
  state: z.union([TrainingState, z.literal('incomplete')]),
  step: z.number().int(),
  totalSteps: z.number().int(),
  tokens: z.number().int(),
  loss: z.number().nullable(),
  evalLoss: z.number().nullable(),
  lastCheckpoint: TrainingCheckpointRef.nullable(),
  bestCheckpoint: TrainingCheckpointRef.nullable(),
});
export type TrainingRunListing = z.infer<typeof TrainingRunListing>;
