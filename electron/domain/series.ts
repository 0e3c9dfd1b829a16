/**
 * The charts' series math, pure and shared by the host (full-resolution files), the renderer (live rows)
 * and the CLI: exponential moving average with TensorBoard's debiasing, and min/max decimation that keeps
 * every spike of a 100k-point series in a few thousand points.
 */
import type { EmaState } from './training-metrics';

export const emptyEma = (): EmaState => ({ last: 0, count: 0 });

/**
 * One EMA step: `smoothing` in [0, 1) is the weight of the past (0 = raw). Debiased as TensorBoard does
 * (divide by 1 - w^n), so the first points are not pulled towards zero. NaN (a missing value) leaves the
 * state alone and returns the previous smoothed value (NaN before any value).
 */
export function emaStep(state: EmaState, value: number, smoothing: number): number {
  if (!Number.isFinite(value)) return state.count ? state.last / (1 - smoothing ** state.count) : Number.NaN;
  state.last = state.last * smoothing + (1 - smoothing) * value;
  state.count++;
  return smoothing === 0 ? value : state.last / (1 - smoothing ** state.count);
}

/** The EMA of a whole series (NaN where nothing came yet); `state` is left ready to continue. */
export function emaSeries(values: ArrayLike<number>, smoothing: number, state: EmaState = emptyEma()): Float64Array {
  const out = new Float64Array(values.length);
  // emaStep inlined, with w^n kept by multiplication: this runs over every point of 100k-step series.
  let { last, count } = state;
  let power = smoothing ** count;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) {
      last = last * smoothing + (1 - smoothing) * v;
      count++;
      power *= smoothing;
      out[i] = smoothing === 0 ? v : last / (1 - power);
    } else {
      out[i] = count ? last / (1 - power) : Number.NaN;
    }
  }
  state.last = last;
  state.count = count;
  return out;
}

/**
 * Indices to keep so that at most `maxPoints` remain: the series (its defined points, in order) is cut in
 * maxPoints/2 buckets of consecutive points and each keeps its minimum and maximum, in x order, plus the
 * first and the last point. A spike is never averaged away, which is why charts of losses use this rather
 * than sampling.
 */
export function minMaxIndices(values: ArrayLike<number>, maxPoints: number): number[] {
  const defined: number[] = [];
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i]!)) defined.push(i);
  if (defined.length <= maxPoints) return defined;
  const buckets = Math.max(1, Math.floor((maxPoints - 2) / 2));
  const size = defined.length / buckets;
  const kept: number[] = [defined[0]!];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor(b * size);
    const to = Math.min(defined.length, Math.floor((b + 1) * size));
    let lo = -1;
    let hi = -1;
    for (let j = from; j < to; j++) {
      const i = defined[j]!;
      if (lo < 0 || values[i]! < values[lo]!) lo = i;
      if (hi < 0 || values[i]! > values[hi]!) hi = i;
    }
    if (lo < 0) continue;
    const [a, c] = lo < hi ? [lo, hi] : [hi, lo];
    if (a !== kept[kept.length - 1]) kept.push(a);
    if (c !== a) kept.push(c);
  }
  const last = defined[defined.length - 1]!;
  if (kept[kept.length - 1] !== last) kept.push(last);
  return kept;
}
