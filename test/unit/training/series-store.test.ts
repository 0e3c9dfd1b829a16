/**
 * The charts' data path on a 100k-line metrics.jsonl: read once into columns, decimated to what a chart
 * draws with every spike kept, EMA over every point; then read incrementally as a live run appends.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { emaSeries } from '../../../electron/domain/series';
import { PPO_METRIC_KEYS } from '../../../electron/domain/training-metrics';
import { lastMetricRow } from '../../../electron/lab/training/metrics-tail';
import { SeriesStore } from '../../../electron/lab/training/series-store';
import { seriesView } from '../../../electron/lab/training/series-view';
import { metricsText } from '../../helpers/training-run';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir();
afterAll(() => tmp.remove());

describe('a 100k-line metrics.jsonl', () => {
  const file = join(tmp.path, 'metrics.jsonl');
  const N = 100_000;
  const SPIKE = 73_456;
  const lines = metricsText(0, N).split('\n');
  const spiked = JSON.parse(lines[SPIKE]!) as Record<string, number>;
  spiked.pg_loss = 99;
  lines[SPIKE] = JSON.stringify(spiked);
  writeFileSync(file, lines.join('\n'));
  const store = new SeriesStore(file);

  test('is read into columns with every fixed key', () => {
    expect(store.refresh()).toEqual([]); // no row objects for a first read

    expect(store.rows).toBe(N);
    for (const k of PPO_METRIC_KEYS) expect(store.keys()).toContain(k);
    expect(store.axis('step')[N - 1]).toBe(N - 1);
    expect(store.axis('tokens')[N - 1]).toBe(N * 4096);
    expect(store.axis('wall')[10]).toBe(20);
  });

  test('is decimated to maxPoints per series, keeping the spike, with the EMA of every point', () => {
    const view = seriesView('r', store, { keys: ['pg_loss', 'reward_dense'], maxPoints: 2000, smoothing: 0.9 });
    expect(view.rows).toBe(N);
    expect(view.decimated).toBe(true);
    const pg = view.series.pg_loss!;
    expect(pg.raw.length).toBeLessThanOrEqual(2000);
    expect(Math.max(...pg.raw)).toBe(99);
    expect(pg.step[pg.raw.indexOf(99)]).toBe(SPIKE);
    // The smoothed value at a kept point is the EMA over all 100k points, not over the kept ones.
    const full = emaSeries(store.values('pg_loss'), 0.9);
    const at = pg.step.length - 1;
    expect(pg.ema[at]).toBeCloseTo(full[N - 1]!, 12);
    const mid = Math.floor(pg.step.length / 2);
    expect(pg.ema[mid]).toBeCloseTo(full[pg.step[mid]!]!, 12);
    expect(view.ema.pg_loss!.count).toBe(N);
  });

  test('its last row is read from the file ends alone (the runs list)', () => {
    const last = lastMetricRow(file)!;
    expect(last.step).toBe(N - 1);
    expect(last.wall).toBe((N - 1) * 2);
    expect(last.values.reward_dense).toBe(store.values('reward_dense')[N - 1]);
  });

  test('reads only what is appended; a half-written line waits for its newline; bad lines are named', () => {
    const next = metricsText(N, N + 2).split('\n');
    // line N+1 is empty (the file ended with a newline), N+2 and N+3 the new rows, N+4 a broken one
    appendFileSync(file, `\n${next[0]}\n${next[1]!.slice(0, 20)}`);
    const added = store.refresh(true);
    expect(added.map((r) => r.step)).toEqual([N]);
    appendFileSync(file, `${next[1]!.slice(20)}\n{oops\n`);
    expect(store.refresh(true).map((r) => r.step)).toEqual([N + 1]);
    expect(store.rows).toBe(N + 2);
    expect(store.badLines).toEqual([{ line: N + 4, problem: expect.stringMatching(/^not JSON/) }]);
  });
});
