/**
 * Statistics between runs as plain data: `t1lab compare RUN_A RUN_B --json` (a paired comparison of two
 * evaluations task by task) and `t1lab power --json` (what difference a benchmark of N tasks can detect).
 */
import { z } from 'zod';

const Interval = z.tuple([z.number(), z.number()]);

export const PassAtKPoint = z.object({ k: z.number().int(), value: z.number(), ci95: Interval });
export type PassAtKPoint = z.infer<typeof PassAtKPoint>;

export const RunSide = z.object({
  run: z.string(),
  /** Resolved rate over the compared tasks (each task weighs the same whatever its attempts). */
  resolvedRate: z.number(),
  ci95: Interval,
  meanReward: z.number(),
  tasks: z.number().int(),
  episodes: z.number().int(),
  passAtK: z.array(PassAtKPoint),
});
export type RunSide = z.infer<typeof RunSide>;

/** McNemar's exact test on discordant pairs: b = A resolved and B not, c = B resolved and A not. */
export const McNemar = z.object({ b: z.number().int(), c: z.number().int(), p: z.number() });
export type McNemar = z.infer<typeof McNemar>;

export const CategoryComparison = z.object({
  tasks: z.number().int(),
  a: z.number(),
  b: z.number(),
  diff: z.number(),
  diffCi95: Interval,
  mcnemar: McNemar.nullable(),
});
export type CategoryComparison = z.infer<typeof CategoryComparison>;

export const CompareResult = z.object({
  a: RunSide,
  b: RunSide,
  /** Tasks compared: those in both runs when paired, else all tasks of both. */
  tasks: z.number().int(),
  paired: z.boolean(),
  /** Pairs of attempts (task, attempt index) behind McNemar's counts. */
  pairs: z.number().int(),
  onlyA: z.array(z.string()),
  onlyB: z.array(z.string()),
  /** B's resolved rate minus A's. */
  diff: z.number(),
  diffCi95: Interval,
  /** null when the runs share no task (unpaired: no pairs to test). */
  mcnemar: McNemar.nullable(),
  /** Two-proportion z-test, the unpaired fallback's test (null when paired). */
  unpairedTest: z.object({ z: z.number(), p: z.number() }).nullable(),
  reward: z.object({ a: z.number(), b: z.number(), diff: z.number(), ci95: Interval }),
  byCategory: z.record(z.string(), CategoryComparison),
  /** Tasks whose outcome changed: resolved share in A and B. */
  changed: z.array(z.object({ task: z.string(), category: z.string(), a: z.number(), b: z.number() })),
  warnings: z.array(z.string()),
  method: z.string(),
});
export type CompareResult = z.infer<typeof CompareResult>;

export const PowerRequest = z.object({
  tasks: z.number().int().min(2).max(10_000_000),
  base: z.number().gt(0).lt(1),
  alpha: z.number().gt(0).lt(1).default(0.05),
  power: z.number().gt(0).lt(1).default(0.8),
  /** Share of tasks whose outcome differs between the two checkpoints (paired design); default: assumed from rho. */
  discordance: z.number().gt(0).lte(1).optional(),
  /** Correlation of the two checkpoints' outcomes on a task, used when discordance is not given. */
  rho: z.number().min(0).lt(1).default(0.5),
  /** A difference to detect: the answer then includes the tasks needed for it. */
  detect: z.number().gt(0).lt(1).optional(),
});
export type PowerRequest = z.input<typeof PowerRequest>;

export const PowerResult = z.object({
  tasks: z.number().int(),
  base: z.number(),
  alpha: z.number(),
  power: z.number(),
  independent: z.object({ mde: z.number().nullable(), tasksNeeded: z.number().int().nullable() }),
  paired: z.object({
    mde: z.number().nullable(),
    /** The discordance at the minimum detectable difference (given, measured or assumed). */
    discordance: z.number().nullable(),
    discordanceSource: z.string(),
    tasksNeeded: z.number().int().nullable(),
  }),
  detect: z.number().nullable(),
  approximation: z.string(),
});
export type PowerResult = z.infer<typeof PowerResult>;
