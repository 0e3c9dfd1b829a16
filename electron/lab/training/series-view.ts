/** From a run's full-resolution columns to what a chart draws: EMA over every point, then min/max decimation. */
import { emaSeries, emptyEma, minMaxIndices } from '../../domain/series';
import type { RunSeries, SeriesPoints } from '../../domain/training-metrics';
import type { SeriesStore } from './series-store';

export interface SeriesRequest {
  keys?: string[];
  maxPoints: number;
  smoothing: number;
}

const pick = (a: Float64Array, idx: number[]) => idx.map((i) => a[i]!);

export function seriesView(runId: string, store: SeriesStore, request: SeriesRequest): RunSeries {
  const keys = request.keys?.length ? request.keys.filter((k) => store.keys().includes(k)) : store.keys();
  const series: Record<string, SeriesPoints> = {};
  const ema: RunSeries['ema'] = {};
  let decimated = false;
  const [step, wall, tokens] = [store.axis('step'), store.axis('wall'), store.axis('tokens')];
  for (const key of keys) {
    const values = store.values(key);
    const state = emptyEma();
    // Smoothing runs over every point, so what the chart shows does not depend on the decimation.
    const smoothed = emaSeries(values, request.smoothing, state);
    const idx = minMaxIndices(values, request.maxPoints);
    // Rows that do not log this key are NaN here, not points: only dropping defined points is decimation.
    let defined = 0;
    for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i]!)) defined++;
    if (idx.length < defined) decimated = true;
    series[key] = {
      step: pick(step, idx),
      wall: pick(wall, idx),
      tokens: pick(tokens, idx),
      raw: pick(values, idx),
      ema: pick(smoothed, idx),
    };
    ema[key] = state;
  }
  return { runId, rows: store.rows, badLines: store.badLines, smoothing: request.smoothing, series, ema, decimated };
}
