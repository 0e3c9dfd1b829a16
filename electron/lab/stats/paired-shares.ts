/**
 * The paired-by-task design for runs with several attempts per task: each task contributes one
 * observation, B's success share minus A's, because the K attempts of a task share its difficulty. Counting
 * them as K independent McNemar pairs would multiply the evidence of one task by K and overstate
 * significance. Interval: paired bootstrap over tasks; test: sign-flip permutation on the differences.
 */
import type { PairedShares, SignFlip, TaskShares } from '../../domain/stats';
import { taskBootstrap } from './bootstrap';
import { signFlipTest } from './sign-flip';

export interface TaskPair {
  id: string;
  category: string;
  resolvedA: readonly boolean[];
  resolvedB: readonly boolean[];
  denseA: readonly number[];
  denseB: readonly number[];
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const share = (xs: readonly boolean[]) => mean(xs.map(Number));

export function signFlip(diffs: readonly number[], seed: number): SignFlip {
  return { ...signFlipTest(diffs, { seed }), seed };
}

export function pairedShares(pairs: readonly TaskPair[], resamples: number, seed: number): PairedShares {
  const perTask: TaskShares[] = pairs.map((t) => ({
    task: t.id,
    category: t.category,
    a: share(t.resolvedA),
    b: share(t.resolvedB),
    attemptsA: t.resolvedA.length,
    attemptsB: t.resolvedB.length,
  }));
  const diffs = perTask.map((t) => t.b - t.a);
  const denseDiffs = pairs.map((t) => mean(t.denseB) - mean(t.denseA));
  return {
    tasks: pairs.length,
    diff: mean(diffs),
    ci95: taskBootstrap(diffs, resamples, seed),
    test: signFlip(diffs, seed),
    dense: {
      diff: mean(denseDiffs),
      ci95: taskBootstrap(denseDiffs, resamples, seed + 1),
      test: signFlip(denseDiffs, seed + 1),
    },
    perTask,
  };
}

/** How a sign-flip result is named in `CompareTest`. */
export const signFlipName = (t: SignFlip) => (t.exact ? 'sign-flip-exact' : 'sign-flip-monte-carlo');
