/**
 * Training runs (LM pretraining, SFT, PPO): start, pause, resume, stop, follow, list. Runs train in the
 * trainer worker (one at a time); runs started by `t1lab train` share the data folder and are listed too.
 */
import { z } from 'zod';
import { defineContract, method } from '../define';
import { MetricsRow, TrainingProgress, TrainingRunListing, TrainingStage } from '../../../domain/training';

const RunId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._-]+$/, 'a training run id (its folder name)');

export const trainingContract = defineContract({
  methods: {
    'training.start': method(
      z.object({
        stage: TrainingStage,
        /** The run config as TOML text (what `t1lab train init-config` prints), or as data; `stage` must agree. */
        configToml: z.string().max(1_000_000).optional(),
        config: z.record(z.string(), z.unknown()).optional(),
        /** The same overrides as the CLI's --model, --data, --steps, --seed, --checkpoint-every. */
        overrides: z
          .object({
            model: z.string().optional(),
            data: z.string().optional(),
            steps: z.number().int().positive().optional(),
            seed: z.number().int().nonnegative().optional(),
            checkpointEvery: z.number().int().positive().optional(),
          })
          .default({}),
      }),
      z.object({ runId: z.string(), runDir: z.string() }),
      'Start a training run in the trainer worker (one at a time); config errors name the key.',
    ),
    'training.pause': method(
      z.object({ runId: RunId }),
      z.object({ paused: z.boolean() }),
      'Pause the running training at the next step boundary.',
    ),
    'training.resume': method(
      z.object({ runId: RunId, steps: z.number().int().positive().optional() }),
      z.object({ runId: z.string(), runDir: z.string() }),
      'Continue a paused run, or a stopped or killed one from its last checkpoint.',
    ),
    'training.stop': method(
      z.object({ runId: RunId }),
      z.object({ stopping: z.boolean() }),
      'Stop after the current step; a checkpoint is written first.',
    ),
    'training.status': method(
      z.object({ runId: RunId }),
      z.object({ run: TrainingRunListing, progress: TrainingProgress.nullable() }),
      "A run's state from its files, and its live progress when it is training.",
    ),
    'training.list': method(
      z.object({}),
      z.array(TrainingRunListing),
      'Training runs in the lab data folder (CLI runs included), newest first.',
    ),
    'training.metrics': method(
      z.object({ runId: RunId, afterStep: z.number().int().min(0).default(0) }),
      z.object({ rows: z.array(MetricsRow) }),
      'Metrics rows (metrics.jsonl) after a step, for charts.',
    ),
    'training.defaultConfig': method(
      z.object({ stage: TrainingStage, preset: z.enum(['nano', 'micro']).default('nano') }),
      z.object({ toml: z.string() }),
      'The complete, commented default config (as `t1lab train init-config`).',
    ),
  },
  events: {
    'training.progress': TrainingProgress,
    'training.metrics': z.object({ runId: z.string(), row: MetricsRow }),
    'training.log': z.object({ runId: z.string(), message: z.string() }),
  },
});
