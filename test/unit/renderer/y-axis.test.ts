/** A metric chart's y axis: the scale a series can take, its range, ticks and their labels. */
import { describe, expect, test } from 'vitest';
import { formatTicks, logRange, logTicks, planYScale } from '../../../renderer/src/components/training/y-axis';

describe('y scale', () => {
  test('linear unless log is asked; log when every value is positive; arcsinh when one is zero or below', () => {
    expect(planYScale([1, 2], false).kind).toBe('linear');
    expect(planYScale([1e-3, 2], true).kind).toBe('log');
    expect(planYScale([0, 1e-5, 3e-5], true).kind).toBe('asinh');
    expect(planYScale([-2e-6, 1e-5, 3e-5], true).kind).toBe('asinh');
  });

  test('all-zero data on a log scale falls back to linear, and says so', () => {
    expect(planYScale([0, 0, 0], true)).toEqual({
      kind: 'linear',
      linthresh: 1,
      note: 'log scale off: every value is 0',
    });
    expect(planYScale([], true).note).toBeNull();
  });

  test('arcsinh turns linear three decades under the largest magnitude (a stray 1e-12 does not squash the axis)', () => {
    expect(planYScale([-1e-12, 3e-5], true).linthresh).toBeCloseTo(1e-8, 20);
    expect(planYScale([-2e-6, 3e-5], true).linthresh).toBeCloseTo(1e-6, 20);
  });
});

describe('log and arcsinh range', () => {
  test('data near 1e-5 with a small negative stays near 1e-5: no range out to -0.001', () => {
    expect(logRange(-2e-6, 3e-5, 'asinh')).toEqual([-2e-6, 5e-5]);
    expect(logRange(-1.3e-6, 2.7e-5, 'asinh')).toEqual([-2e-6, 5e-5]);
  });
  test('ends rounded outward to 1, 2, 5 × 10^k; zero kept; a constant gets a decade each side', () => {
    expect(logRange(0.013, 0.7, 'log')).toEqual([0.01, 1]);
    expect(logRange(0.3, 4, 'log')).toEqual([0.2, 5]);
    expect(logRange(0, 3e-5, 'asinh')).toEqual([0, 5e-5]);
    expect(logRange(3e-4, 3e-4, 'log')).toEqual([3e-5, 3e-3]);
    expect(logRange(0, 0, 'asinh')).toEqual([-1, 1]);
  });
});

describe('log ticks', () => {
  test('1-2-5 steps over a narrow range, decades over a wide one, never more than asked', () => {
    expect(logTicks(0.2, 5, 'log', 1, 6)).toEqual([0.2, 0.5, 1, 2, 5]);
    expect(logTicks(1e-6, 10, 'log', 1, 6)).toEqual(
      [1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10].filter((_, i) => i % 2 === 1),
    );
    expect(logTicks(1e-4, 1, 'log', 1, 6)).toEqual([1e-4, 1e-3, 0.01, 0.1, 1]);
  });
  test('arcsinh: negative ticks, 0 and positive ticks, none under the linear threshold', () => {
    const ticks = logTicks(-2e-6, 5e-5, 'asinh', 1e-6, 6);
    expect(ticks).toEqual([-1e-6, 0, 1e-6, 1e-5]);
    expect(ticks.every((t) => t === 0 || Math.abs(t) >= 1e-6)).toBe(true);
  });
});

describe('tick labels', () => {
  test('a narrow range near 1 gets the digits that tell its ticks apart', () => {
    expect(formatTicks([0.9998, 0.9999, 1, 1.0001, 1.0002])).toEqual([
      '0.9998',
      '0.9999',
      '1.0000',
      '1.0001',
      '1.0002',
    ]);
  });
  test('negative ticks carry a minus sign', () => {
    expect(formatTicks([-0.5, 0, 0.5])).toEqual(['\u22120.5', '0.0', '0.5']);
    expect(formatTicks([-1e-6, 0, 1e-6, 1e-5])).toEqual(['\u22121e-6', '0', '1e-6', '1e-5']);
  });
  test('exponent form for tiny and huge magnitudes, plain otherwise; nulls (unlabelled ticks) stay empty', () => {
    expect(formatTicks([0, 2.5e-6, 5e-6])).toEqual(['0', '2.5e-6', '5.0e-6']);
    expect(formatTicks([0, 1e5, 2e5])).toEqual(['0', '1e5', '2e5']);
    expect(formatTicks([0, 0.25, 0.5, null])).toEqual(['0.00', '0.25', '0.50', '']);
  });
});
