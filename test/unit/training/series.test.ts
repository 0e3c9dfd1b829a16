/** The charts' series math: debiased EMA and min/max decimation. */
import { describe, expect, test } from 'vitest';
import { emaSeries, emaStep, emptyEma, minMaxIndices } from '../../../electron/domain/series';
import { groupOf, normalizeMetricLine, newRowCursor } from '../../../electron/domain/training-metrics';

describe('EMA', () => {
  test('is debiased (TensorBoard): the first smoothed point is the first value, then a weighted mean', () => {
    const w = 0.9;
    const out = emaSeries([10, 20, 30], w);
    expect(out[0]).toBeCloseTo(10, 12);
    // debiased: (w*(1-w)*10 + (1-w)*20) / (1 - w^2)
    expect(out[1]).toBeCloseTo((w * (1 - w) * 10 + (1 - w) * 20) / (1 - w * w), 12);
    expect(out[2]).toBeCloseTo((w * w * (1 - w) * 10 + w * (1 - w) * 20 + (1 - w) * 30) / (1 - w ** 3), 12);
  });

  test('skips missing values and continues from a saved state exactly', () => {
    const values = [1, Number.NaN, 3, 4, Number.NaN, 6, 7];
    const whole = emaSeries(values, 0.6);
    expect(Number.isNaN(emaSeries([Number.NaN, 1], 0.6)[0]!)).toBe(true);
    expect(whole[1]).toBe(whole[0]);
    const state = emptyEma();
    emaSeries(values.slice(0, 4), 0.6, state);
    const rest = values.slice(4).map((v) => emaStep(state, v, 0.6));
    rest.forEach((v, i) => expect(v).toBeCloseTo(whole[4 + i]!, 12));
  });

  test('smoothing 0 is the raw series', () => {
    expect([...emaSeries([3, 1, 4, 1, 5], 0)]).toEqual([3, 1, 4, 1, 5]);
  });
});

describe('min/max decimation', () => {
  test('keeps at most maxPoints, in order, with the first, the last and every extreme', () => {
    const n = 100_000;
    const values = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 1000));
    values[73_456] = 50; // a spike
    values[12_345] = -50; // a dip
    const idx = minMaxIndices(values, 1000);
    expect(idx.length).toBeLessThanOrEqual(1000);
    expect(idx.length).toBeGreaterThan(900);
    expect(idx[0]).toBe(0);
    expect(idx[idx.length - 1]).toBe(n - 1);
    expect(idx).toContain(73_456);
    expect(idx).toContain(12_345);
    for (let i = 1; i < idx.length; i++) expect(idx[i]!).toBeGreaterThan(idx[i - 1]!);
  });

  test('leaves short series whole and drops missing points', () => {
    expect(minMaxIndices([1, Number.NaN, 3], 10)).toEqual([0, 2]);
  });
});

describe('metrics lines', () => {
  test('flatten nested values, derive wall seconds and cumulative tokens', () => {
    const cursor = newRowCursor();
    const t0 = Date.parse('2026-12-01T10:00:00Z') / 1000;
    const a = normalizeMetricLine(
      { step: 1, wall_time: t0, tokens: 100, loss: 2, time: { env: 1 }, routing_agreement_layer: [0.9, 0.8], ok: true },
      cursor,
    );
    const b = normalizeMetricLine({ step: 2, timestamp: '2026-12-01T10:00:03Z', loss: 1.5 }, cursor);
    const c = normalizeMetricLine({ step: 3, wall_time: t0 + 4.5, tokens: 180 }, cursor);
    expect(a).toEqual({
      step: 1,
      wall: 0,
      tokens: 100,
      values: { loss: 2, 'time.env': 1, 'routing_agreement_layer.0': 0.9, 'routing_agreement_layer.1': 0.8, ok: 1 },
    });
    expect(b).toMatchObject({ step: 2, wall: 3, tokens: 100 });
    expect(c).toMatchObject({ step: 3, wall: 4.5, tokens: 180 });
    expect(normalizeMetricLine([1, 2], cursor)).toBe('not a JSON object');
  });

  test('group the fixed PPO keys as the page charts them', () => {
    expect(groupOf('reward_dense').id).toBe('reward');
    expect(groupOf('pg_clipfrac').id).toBe('policy');
    expect(groupOf('vf_explained_var').id).toBe('value');
    expect(groupOf('grad_norm').id).toBe('optim');
    expect(groupOf('train_infer_gap_free').id).toBe('tito');
    expect(groupOf('routing_agreement_layer.3').id).toBe('tito');
    expect(groupOf('aborted_share').id).toBe('system');
    expect(groupOf('time.generation').id).toBe('system');
    expect(groupOf('something_new').id).toBe('other');
  });
});
