/**
 * avg@K: the mean over tasks of each task's success share (resolved attempts / attempts), the quantity a
 * policy-gradient method raises when it samples K attempts per task. Its interval resamples tasks, never
 * attempts: the K attempts of one task share its difficulty and are not independent draws. The same
 * average of the dense reward comes with it, since that is what dense-reward PPO optimizes.
 */
import type { AvgAtK } from '../../domain/runs';
import { taskBootstrap } from './bootstrap';

/** One task's attempts: how many, how many resolved, and the sum of their dense rewards. */
export interface TaskShare {
  attempts: number;
  resolved: number;
  denseSum: number;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** avg@K of success and of dense reward over tasks (null without tasks); K is the most attempts a task had. */
export function avgAtK(tasks: readonly TaskShare[], resamples = 4000, seed = 1): AvgAtK | null {
  const ran = tasks.filter((t) => t.attempts > 0);
  if (ran.length === 0) return null;
  const shares = ran.map((t) => t.resolved / t.attempts);
  const dense = ran.map((t) => t.denseSum / t.attempts);
  return {
    k: Math.max(...ran.map((t) => t.attempts)),
    minAttempts: Math.min(...ran.map((t) => t.attempts)),
    value: mean(shares),
    ci95: taskBootstrap(shares, resamples, seed),
    dense: { value: mean(dense), ci95: taskBootstrap(dense, resamples, seed + 1) },
  };
}
