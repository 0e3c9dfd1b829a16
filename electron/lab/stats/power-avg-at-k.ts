/**
 * Power of the avg@K design: K attempts per task under each checkpoint, the per-task success shares
 * paired by task, the test on the mean of the n per-task differences d_i = share_B − share_A (the
 * sign-flip test `compare` runs; for the power of a test on a mean of n independent tasks the normal
 * approximation is the textbook one, the permutation test having the t-test's asymptotic power).
 *
 * The variance of one task's difference comes from a two-level model (law of total variance), which is
 * why it is a closed form and not a simulation:
 * - each task has a true success probability p_i under a checkpoint; across tasks p_i has mean `base` and
 *   variance V (between tasks), and each attempt is a Bernoulli(p_i) draw, whose variance averages
 *   W = E[p_i(1 − p_i)] (between attempts); V + W = base(1 − base), and `attemptNoise` = W / (V + W)
 *   says how the outcome variance splits (0: a task is always or never solved; 1: all tasks equally hard);
 * - the two checkpoints' p_i correlate across tasks with ρ (an easy task is easy for both), so the true
 *   per-task gains vary with variance 2V(1 − ρ);
 * - the share of K attempts adds 2W/K of sampling noise: σ_d² = 2V(1 − ρ) + 2W/K.
 * Then power(d) = Φ(d√n/σ_d − z_{α/2}) and the minimum detectable difference is (z_{α/2} + z_β)σ_d/√n.
 * At K = 1 with attemptNoise = 1 this is the unpooled two-proportion formula; as K grows only the
 * between-task part 2V(1 − ρ) is left, which more attempts cannot remove (more tasks can). A run folder
 * with several attempts per task measures W (the unbiased ŝ(1 − ŝ)K/(K − 1) per task) and so attemptNoise.
 */
import { normalCdf } from './distributions';

export interface AvgAtKModel {
  base: number;
  attempts: number;
  attemptNoise: number;
  rho: number;
}

/** σ_d: the standard deviation of one task's share difference. */
export function taskDifferenceSd(m: AvgAtKModel): number {
  const total = m.base * (1 - m.base);
  const within = m.attemptNoise * total;
  const between = total - within;
  return Math.sqrt(2 * between * (1 - m.rho) + (2 * within) / m.attempts);
}

export function avgAtKPower(n: number, d: number, sd: number, zAlpha: number): number {
  if (sd === 0) return 1;
  return normalCdf((d * Math.sqrt(n)) / sd - zAlpha);
}

/** The smallest mean difference detectable with the given power, or null beyond 1 − base (no room left). */
export function avgAtKMde(n: number, sd: number, zAlpha: number, zBeta: number, maxGain: number): number | null {
  const mde = ((zAlpha + zBeta) * sd) / Math.sqrt(n);
  return mde <= maxGain ? mde : null;
}

export function avgAtKTasksNeeded(d: number, sd: number, zAlpha: number, zBeta: number): number {
  return Math.max(2, Math.ceil((((zAlpha + zBeta) * sd) / d) ** 2));
}

/** What a run with several attempts per task says: its avg@K, its K and the attempt share of the variance. */
export interface MeasuredShares {
  tasks: number;
  base: number;
  attempts: number;
  attemptNoise: number;
}

export function measureAttemptNoise(tasks: readonly { attempts: number; resolved: number }[]): MeasuredShares | null {
  const usable = tasks.filter((t) => t.attempts >= 2);
  if (usable.length < 2) return null;
  const shares = usable.map((t) => t.resolved / t.attempts);
  const base = shares.reduce((a, b) => a + b, 0) / shares.length;
  // ŝ(1 − ŝ)·K/(K − 1) is unbiased for p(1 − p) of a task: the within-task (between attempts) variance.
  const within =
    usable.reduce((s, t, i) => s + (shares[i]! * (1 - shares[i]!) * t.attempts) / (t.attempts - 1), 0) / usable.length;
  const total = base * (1 - base);
  return {
    tasks: usable.length,
    base,
    attempts: Math.min(...usable.map((t) => t.attempts)),
    attemptNoise: total > 0 ? Math.min(1, Math.max(0, within / total)) : 0,
  };
}
