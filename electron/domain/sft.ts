/**
 * The SFT sample format (one JSON object per line of a `.jsonl` file), written by `t1lab tasks sft-data`
 * and read by `t1lab train sft`. A sample is one TITO ledger sample: the exact token ids the policy sees
 * in RL (prompt, its own turns, observations, template), with `mask` 1 on the assistant's (sampled) tokens
 * only — the trainer's loss covers exactly those. `tokenizer` is the sha256 of the tokenizer.json the ids
 * come from: training refuses samples of another tokenizer.
 */
import { z } from 'zod';
import { Reward } from './tasks';
import { SegmentKind } from './trajectory';

export const SFT_SAMPLE_SCHEMA = 't1lab.sft-sample/1';

export const SftSample = z.object({
  schema: z.literal(SFT_SAMPLE_SCHEMA),
  /** Unique in its file: `TASK@ATTEMPT#N` (N: the ledger sample of the episode; a FORK starts a new one). */
  id: z.string().min(1),
  task: z.string().min(1),
  /** `oracle` (the reference solution through the harness), `oracle-first-turn` (its first command, not run) or `run:RUN_ID` (a resolved episode of an eval run). */
  source: z.string().min(1),
  tokenizer: z.string().regex(/^[0-9a-f]{64}$/),
  ids: z.array(z.number().int().nonnegative()).min(2),
  /** Aligned with ids: 1 = assistant (sampled) token, trained on; 0 = prompt, observation, template. */
  mask: z.array(z.union([z.literal(0), z.literal(1)])),
  segments: z.array(
    z.object({ kind: SegmentKind, start: z.number().int().nonnegative(), length: z.number().int().nonnegative() }),
  ),
  protocol: z.string(),
  reward: Reward.nullable(),
  resolved: z.boolean(),
  turns: z.number().int().nonnegative(),
  /** The ledger's checks over the episode (CLEAN / REPAIR / FORK). */
  ledger: z.object({
    clean: z.number().int(),
    repair: z.number().int(),
    fork: z.number().int(),
    lossDrift: z.number().int(),
  }),
});
export type SftSample = z.infer<typeof SftSample>;
