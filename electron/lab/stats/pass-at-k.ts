/**
 * pass@k curves: for k = 1..(fewest attempts of any task), the unbiased estimator averaged over tasks, with a
 * 95% band from resampling tasks (attempts of a task stay together: they are not independent draws).
 */
import { seededUniform } from '../../../native/util/random';
import { passAtK } from '../runs/stats';

export interface TaskAttempts {
  id: string;
  attempts: number;
  resolved: number;
}

export interface PassAtKPoint {
  k: number;
  value: number;
  ci95: [number, number];
}

export function passAtKCurve(tasks: readonly TaskAttempts[], resamples = 2000, seed = 1): PassAtKPoint[] {
  if (tasks.length === 0) return [];
  const maxK = Math.min(...tasks.map((t) => t.attempts));
  const random = seededUniform(seed);
  const n = tasks.length;
  const curve: PassAtKPoint[] = [];
  // The same resampled task sets for every k, so the band of the curve is one bootstrap, not maxK of them.
  const draws = Array.from({ length: resamples }, () => Array.from({ length: n }, () => Math.floor(random() * n)));
  for (let k = 1; k <= maxK; k++) {
    const perTask = tasks.map((t) => passAtK(t.attempts, t.resolved, k));
    const value = perTask.reduce((a, b) => a + b, 0) / n;
    const means = draws.map((idx) => idx.reduce((s, i) => s + perTask[i]!, 0) / n).sort((a, b) => a - b);
    const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
    curve.push({ k, value, ci95: [at(0.025), at(0.975)] });
  }
  return curve;
}
