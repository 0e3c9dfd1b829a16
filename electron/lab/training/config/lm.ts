/** `[lm]`: next-token pretraining on plain text. */
import { z } from 'zod';

export const LmSection = z.strictObject({
  /** Tokens per training sequence (text is packed into windows of this length). */
  seq_len: z.number().int().min(8).default(256),
});
export type LmSection = z.infer<typeof LmSection>;
