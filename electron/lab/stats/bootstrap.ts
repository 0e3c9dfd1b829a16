/**
 * The task bootstrap every interval of the lab's statistics uses: resample tasks (clusters) with
 * replacement, never attempts, since the attempts of one task share its difficulty. For paired
 * comparisons the values are per-task differences, so a task's two sides are resampled together.
 */
import { seededUniform } from '../../../native/util/random';

/** Percentile 95% interval of the mean of `values`, resampling them (tasks) with replacement. */
export function taskBootstrap(values: readonly number[], resamples: number, seed: number): [number, number] {
  const n = values.length;
  if (n === 0) return [0, 0];
  const random = seededUniform(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
    means[r] = sum / n;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return [at(0.025), at(0.975)];
}
