/**
 * The trainer worker: owns the parameters and the optimizer state of one training run at a time (graphs,
 * AdamW, checkpoints), and streams its progress and metrics rows back to the host.
 */
import { z } from 'zod';
import { defineContract, method } from '../../ipc/common/define';
import { MetricsRow, TrainingProgress } from '../../domain/training';

const Started = z.object({ runId: z.string(), runDir: z.string() });
const RunRef = z.object({ runId: z.string().min(1).max(200) });

export const trainerWorkerContract = defineContract({
  methods: {
    'trainer.start': method(
      z.object({
        config: z.record(z.string(), z.unknown()),
        configSource: z.string().nullable(),
        out: z.string().optional(),
        dataDir: z.string(),
      }),
      Started,
      'Start a training run (the config as parsed TOML); resolves once its run folder exists and training began.',
    ),
    'trainer.resume': method(
      z.object({ runDir: z.string(), dataDir: z.string(), steps: z.number().int().positive().optional() }),
      Started,
      'Continue a stopped or killed run from its last checkpoint.',
    ),
    'trainer.pause': method(RunRef, z.object({ paused: z.boolean() }), 'Pause at the next step boundary.'),
    'trainer.continue': method(RunRef, z.object({ resumed: z.boolean() }), 'Continue a paused run.'),
    'trainer.stop': method(
      RunRef,
      z.object({ stopping: z.boolean() }),
      'Stop after the current step, writing a checkpoint first.',
    ),
    'trainer.active': method(
      z.object({}),
      z.array(TrainingProgress),
      'Progress of the run this worker trains (at most one).',
    ),
  },
  events: {
    'trainer.progress': TrainingProgress,
    'trainer.metrics': z.object({ runId: z.string(), row: MetricsRow }),
    'trainer.log': z.object({ runId: z.string(), message: z.string() }),
  },
});
