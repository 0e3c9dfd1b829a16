/**
 * What an evaluation uses when nothing else is asked: one object for `t1lab eval`, the Runs page and a
 * checkpoint's Evaluate, so that a run started from the page and the same run typed in a shell are one run.
 */
export const EVAL_DEFAULTS = {
  attempts: 1,
  /** Turn limit per episode. */
  maxTurns: 300,
  /** When the conversation outgrows the context window. */
  contextStrategy: 'drop-oldest',
  /** Observation budget per action in characters (head and tail kept). */
  observationChars: 10_000,
  /**
   * Greedy decoding: an evaluation measures the policy's most likely behaviour and two runs of it agree.
   * Sampling (temperature > 0, with several attempts) is asked for explicitly.
   */
  temperature: 0,
} as const;

/** The harness settings of an evaluation that sets none. */
export const DEFAULT_HARNESS = {
  maxTurns: EVAL_DEFAULTS.maxTurns,
  contextStrategy: EVAL_DEFAULTS.contextStrategy,
  observationChars: EVAL_DEFAULTS.observationChars,
} as const;
