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

/**
 * Which comparison was made: one attempt per task in both runs pairs attempts (McNemar); several attempts
 * pair tasks by their success shares (a sign-flip permutation test), since attempts of one task are not
 * independent pairs; runs with no task in common are compared unpaired.
 */
export const CompareDesign = z.enum(['paired-attempts', 'paired-task-shares', 'unpaired']);
export type CompareDesign = z.infer<typeof CompareDesign>;

/** The test behind a comparison's p-value, whichever design chose it. */
export const CompareTest = z.object({
  /** 'mcnemar-exact', 'sign-flip-exact', 'sign-flip-monte-carlo' or 'two-proportion-z'. */
  name: z.string(),
  p: z.number(),
});
export type CompareTest = z.infer<typeof CompareTest>;

/** The sign-flip permutation test on per-task differences of success shares. */
export const SignFlip = z.object({
  p: z.number(),
  exact: z.boolean(),
  /** Sign patterns counted (all 2^m when exact, else Monte-Carlo draws with `seed`). */
  permutations: z.number().int(),
  /** Tasks whose share differs between the runs. */
  nonZero: z.number().int(),
  seed: z.number().int(),
});
export type SignFlip = z.infer<typeof SignFlip>;

/** Per task: the success share of A and of B (resolved attempts / attempts). */
export const TaskShares = z.object({
  task: z.string(),
  category: z.string(),
  a: z.number(),
  b: z.number(),
  attemptsA: z.number().int(),
  attemptsB: z.number().int(),
});
export type TaskShares = z.infer<typeof TaskShares>;

/** The paired-by-task design: mean of per-task share differences (avg@K of B minus avg@K of A). */
export const PairedShares = z.object({
  tasks: z.number().int(),
  diff: z.number(),
  /** Paired bootstrap over tasks (a task's attempts stay together). */
  ci95: Interval,
  test: SignFlip,
  /** The same on each task's mean dense reward. */
  dense: z.object({ diff: z.number(), ci95: Interval, test: SignFlip }),
  perTask: z.array(TaskShares),
});
export type PairedShares = z.infer<typeof PairedShares>;

export const CategoryComparison = z.object({
  tasks: z.number().int(),
  a: z.number(),
  b: z.number(),
  diff: z.number(),
  diffCi95: Interval,
  mcnemar: McNemar.nullable(),
  /** The design's test in this category (McNemar or the sign-flip test on shares). */
  test: CompareTest,
});
export type CategoryComparison = z.infer<typeof CategoryComparison>;

export const CompareResult = z.object({
  a: RunSide,
  b: RunSide,
  /** Tasks compared: those in both runs when paired, else all tasks of both. */
  tasks: z.number().int(),
  paired: z.boolean(),
  /** Paired units behind the test: attempt pairs (task, attempt index) for McNemar, tasks for the shares design. */
  pairs: z.number().int(),
  design: CompareDesign,
  /** The p-value to read, from the design's test. */
  test: CompareTest,
  onlyA: z.array(z.string()),
  onlyB: z.array(z.string()),
  /** B's resolved rate minus A's. */
  diff: z.number(),
  diffCi95: Interval,
  /** null when the runs share no task, or when a task has several attempts (the shares design tests instead). */
  mcnemar: McNemar.nullable(),
  /** The paired-by-task design's numbers (null unless `design` is 'paired-task-shares'). */
  taskShares: PairedShares.nullable(),
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
  /**
   * Correlation of the two checkpoints on a task: of their greedy outcomes (paired binary design, when
   * discordance is not given) and of their per-task success probabilities (avg@K design).
   */
  rho: z.number().min(0).lt(1).default(0.5),
  /** avg@K design: attempts per task under each checkpoint. */
  attempts: z.number().int().min(1).max(10_000).default(1),
  /**
   * avg@K design: the share of the baseline's outcome variance base(1 − base) that lies between attempts of
   * a task rather than between tasks (0: each task always or never solved; 1: every task equally hard).
   */
  attemptNoise: z.number().min(0).max(1).default(0.5),
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
  /** The avg@K design: K attempts per task, per-task success shares paired by task. */
  avgAtK: z.object({
    attempts: z.number().int(),
    mde: z.number().nullable(),
    attemptNoise: z.number(),
    attemptNoiseSource: z.string(),
    /** σ of one task's share difference under the model (see the approximation). */
    taskSd: z.number(),
    tasksNeeded: z.number().int().nullable(),
  }),
  detect: z.number().nullable(),
  approximation: z.string(),
});
export type PowerResult = z.infer<typeof PowerResult>;
