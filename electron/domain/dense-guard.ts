/**
 * The dense-reward guard as plain data (issue 13): partial credit invites farming the easy assertions, so
 * per (task, assertion) the pass rate over the run, per category the dense and binary rewards side by
 * side, and the assertions flagged because their pass rate rose while their task's binary reward did not.
 * "Before" and "after" are the first and second halves of the steps the task (or category) was sampled in.
 */
import { z } from 'zod';

/** A pass-rate rise (0..1) at or above which an assertion whose binary reward did not rise is flagged. */
export const DEFAULT_MIN_RISE = 0.25;

export const AssertionFlag = z.object({
  taskId: z.string(),
  assertion: z.string(),
  passRateBefore: z.number(),
  passRateAfter: z.number(),
  binaryBefore: z.number(),
  binaryAfter: z.number(),
});
export type AssertionFlag = z.infer<typeof AssertionFlag>;

export const AssertionTrend = z.object({
  taskId: z.string(),
  assertion: z.string(),
  category: z.string(),
  /** Null when the task was sampled in one step only (no first half to compare with). */
  passRateBefore: z.number().nullable(),
  passRateAfter: z.number(),
  binaryBefore: z.number().nullable(),
  binaryAfter: z.number(),
  /** passRateAfter - passRateBefore (null without a first half). */
  rise: z.number().nullable(),
  flagged: z.boolean(),
  /** Pass rate at each of the guard's `steps`; null where the task was not sampled. */
  series: z.array(z.number().nullable()),
});
export type AssertionTrend = z.infer<typeof AssertionTrend>;

export const CategoryRewards = z.object({
  category: z.string(),
  episodes: z.number().int(),
  /** Dense: passing assertions (a count); fraction: the passing share (0..1, the binary's scale). */
  dense: z.object({ before: z.number().nullable(), after: z.number() }),
  fraction: z.object({ before: z.number().nullable(), after: z.number() }),
  binary: z.object({ before: z.number().nullable(), after: z.number() }),
  /** Means per step of the guard's `steps`; null where the category was not sampled. */
  series: z.object({
    dense: z.array(z.number().nullable()),
    fraction: z.array(z.number().nullable()),
    binary: z.array(z.number().nullable()),
  }),
});
export type CategoryRewards = z.infer<typeof CategoryRewards>;

export const DenseGuard = z.object({
  /** Trained steps with rollouts, ascending (a step still being collected is not one). */
  steps: z.array(z.number().int()),
  /** Kept (trained-on) episodes counted. */
  episodes: z.number().int(),
  minRise: z.number(),
  flags: z.array(AssertionFlag),
  /** Every (task, assertion), largest rise first. */
  assertions: z.array(AssertionTrend),
  categories: z.array(CategoryRewards),
});
export type DenseGuard = z.infer<typeof DenseGuard>;
