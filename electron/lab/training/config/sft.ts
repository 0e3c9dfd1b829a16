/** `[sft]`: supervised fine-tuning on sample JSONL (loss on sampled/assistant tokens only). */
import { z } from 'zod';

export const SftSection = z.strictObject({
  /** Every N steps, run the policy on a suite and log its resolved rate (0: off). */
  eval_suite_every: z.number().int().nonnegative().default(0),
  /** The suite for that eval (a task folder, a folder of tasks or a pack). */
  eval_suite: z.string().default(''),
  /** Tasks of the suite run per eval (0: all). */
  eval_suite_tasks: z.number().int().nonnegative().default(0),
  /** Epochs over the samples at most (training stops at train.steps or here, whichever comes first; 0: no limit). */
  max_epochs: z.number().int().nonnegative().default(0),
});
export type SftSection = z.infer<typeof SftSection>;
