/**
 * `outcomes.jsonl`: per-task outcomes of an experiment, one line per suite, model, task and attempt, small
 * enough to commit beside a report so that `t1lab compare FILE#MODEL_A FILE#MODEL_B` can be rerun from the
 * committed files alone (no run folders, no checkpoints).
 */
import { z } from 'zod';

export const OUTCOMES_FILE = 'outcomes.jsonl';

export const OutcomeLine = z.object({
  suite: z.string().min(1),
  /** The model (checkpoint, stage or ablation cell) the attempt was made by. */
  model: z.string().min(1),
  task: z.string().min(1),
  /** The task's family: a synthesized task's own (`[metadata] family`), else its category. */
  family: z.string(),
  /** The attempt's index within the task (seeds of an ablation cell are pooled as attempts). */
  attempt: z.number().int().min(0),
  resolved: z.boolean(),
  dense: z.number(),
  /** Turns with a valid tool call over all turns of the episode (null: no turn recorded). */
  validCalls: z.number().min(0).max(1).nullable(),
  /** The training seed, for ablation cells run with several. */
  seed: z.number().int().optional(),
});
export type OutcomeLine = z.infer<typeof OutcomeLine>;
