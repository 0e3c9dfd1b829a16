/** Value-target statistics: debiased moving mean/std over loss tokens, identity before the first batch. */
import { describe, expect, it } from 'vitest';
import {
  destandardize,
  initialValueNorm,
  standardize,
  updateValueNorm,
  valueNormStats,
  VALUE_NORM_MIN_STD,
} from '../../../electron/rl/value-norm';

describe('value-target normalisation', () => {
  it('is the identity before any batch, and the batch statistics after the first (debiased)', () => {
    expect(valueNormStats(initialValueNorm())).toEqual({ mean: 0, std: 1 });
    const s = updateValueNorm(initialValueNorm(), [[1, 99, 3], [5]], [[1, 0, 1], [1]]);
    const st = valueNormStats(s);
    expect(st.mean).toBeCloseTo(3, 12);
    expect(st.std).toBeCloseTo(Math.sqrt(8 / 3), 12);
    expect(destandardize(standardize(7, st), st)).toBeCloseTo(7, 12);
  });

  it('scales with the returns: x4 returns give x4 mean and std, the same standardised targets', () => {
    const a = valueNormStats(updateValueNorm(initialValueNorm(), [[0, 1, 2, 3]], [[1, 1, 1, 1]]));
    const b = valueNormStats(updateValueNorm(initialValueNorm(), [[0, 4, 8, 12]], [[1, 1, 1, 1]]));
    expect(b.mean).toBeCloseTo(4 * a.mean, 12);
    expect(b.std).toBeCloseTo(4 * a.std, 12);
    expect(standardize(12, b)).toBeCloseTo(standardize(3, a), 12);
  });

  it('moves towards newer batches, floors the std, and ignores a batch without loss tokens', () => {
    let s = updateValueNorm(initialValueNorm(), [[0, 0]], [[1, 1]]);
    expect(valueNormStats(s).std).toBe(VALUE_NORM_MIN_STD);
    s = updateValueNorm(s, [[10, 10]], [[1, 1]]);
    const m = valueNormStats(s).mean;
    expect(m).toBeGreaterThan(0);
    expect(m).toBeLessThan(10);
    expect(updateValueNorm(s, [[5]], [[0]])).toEqual(s);
  });
});
