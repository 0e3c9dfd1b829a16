/**
 * Runs pooled over seeds, as W&B's grouping shows them: runs whose settings differ only in their seed are
 * one group, and each metric of the group is its runs' mean with a band. The band is the runs' min..max
 * (not a confidence interval: with the 2 to 5 seeds a workstation runs, a t interval is wider than the
 * data and says less than the range). Curves of different lengths are pooled step by step over the runs
 * that logged that step: past the end of a shorter run the mean and band are over the runs still going,
 * and each point says how many runs it pools (`n`).
 */

/** A metric over a group of runs: their mean, the band (min..max) and how many runs had a value. */
export interface Spread {
  mean: number;
  min: number;
  max: number;
  n: number;
}

/** Mean and min..max of the finite values (null, undefined and NaN are runs without the metric); null when none. */
export function spreadOf(values: readonly (number | null | undefined)[]): Spread | null {
  let n = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    n++;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return n ? { mean: sum / n, min, max, n } : null;
}

/** One run's curve: y at each x (same length; x ascending or not). */
export interface Curve {
  x: readonly number[];
  y: readonly number[];
}

/** A pooled point: at `x`, the mean and min..max of the runs that logged x. */
export interface BandPoint extends Spread {
  x: number;
}

/**
 * The curves pooled at every x any of them logged (ascending): at each x, the runs that have a finite value
 * there. A run that ended earlier drops out of the later points (n falls); none is extended or interpolated.
 */
export function bandOf(curves: readonly Curve[]): BandPoint[] {
  const at = new Map<number, number[]>();
  for (const c of curves) {
    const len = Math.min(c.x.length, c.y.length);
    for (let i = 0; i < len; i++) {
      const x = c.x[i]!;
      const y = c.y[i]!;
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      const ys = at.get(x);
      if (ys) ys.push(y);
      else at.set(x, [y]);
    }
  }
  return [...at.keys()].sort((a, b) => a - b).map((x) => ({ x, ...spreadOf(at.get(x)!)! }));
}

/** Setting keys that name a seed (`config.seed`, `config.policySettings.seed`, `init_seed`): what pooling ignores. */
export function isSeedKey(key: string): boolean {
  return /(^|[._])seed$/i.test(key);
}

/** Settings that change how fast a run goes, never what it measures: pooled runs may differ in them too. */
const PACE_KEYS = new Set(['config.concurrency']);

/**
 * What runs of one group share: their settings without the seeds (and without settings of pace), as one
 * string. Runs with the same key differ at most in seed.
 */
export function settingsKey(fields: Readonly<Record<string, unknown>>): string {
  const kept = Object.keys(fields)
    .filter((k) => !isSeedKey(k) && !PACE_KEYS.has(k))
    .sort()
    .map((k) => [k, fields[k]]);
  return JSON.stringify(kept);
}

/**
 * The settings in which groups differ, for their labels: the keys (seeds left out) whose values are not the
 * same in every group. Each entry is one member's settings per group.
 */
export function differingKeys(groups: readonly Readonly<Record<string, unknown>>[]): string[] {
  const keys = [...new Set(groups.flatMap((g) => Object.keys(g)))].filter((k) => !isSeedKey(k) && !PACE_KEYS.has(k));
  return keys.filter((k) => new Set(groups.map((g) => JSON.stringify(g[k] ?? null))).size > 1).sort();
}
