/**
 * `t1lab train watch`'s screen as text: the run's state, a progress bar with the ETA, and the main figures
 * (last value, smoothed, min and max, a sparkline of the recent steps) grouped as on the Training page.
 * Pure: given the run's summary and its metric columns, returns the lines.
 */
import { emaSeries } from '../domain/series';
import { groupOf, METRIC_GROUPS } from '../domain/training-metrics';
import type { TrainingRunSummary } from '../domain/training-view';
import type { SeriesStore } from '../lab/training/series-store';

/** The figures the watch view shows when the run logs them, in this order. */
export const WATCH_KEYS = [
  'reward_dense',
  'reward_binary',
  'resolved',
  'loss',
  'eval_loss',
  'pg_loss',
  'pg_clipfrac',
  'ppo_kl',
  'entropy',
  'vf_loss',
  'vf_explained_var',
  'grad_norm',
  'lr',
  'tis_weight_mean',
  'train_infer_gap_r3',
  'train_infer_gap_free',
  'loss_drift',
  'routing_agreement',
  'staleness',
  'aborted_share',
  'tokens_per_s',
] as const;

const SPARK = '▁▂▃▄▅▆▇█';
const SPARK_WIDTH = 24;
const BAR_WIDTH = 30;
const SMOOTHING = 0.6;

export function sparkline(values: ArrayLike<number>, width = SPARK_WIDTH): string {
  const xs: number[] = [];
  for (let i = Math.max(0, values.length - width); i < values.length; i++)
    if (Number.isFinite(values[i]!)) xs.push(values[i]!);
  if (!xs.length) return '';
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return xs.map((v) => SPARK[hi === lo ? 3 : Math.round(((v - lo) / (hi - lo)) * (SPARK.length - 1))]).join('');
}

export function fmt(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(2) : Number(v.toPrecision(4)).toString();
}

function duration(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '—';
  const t = Math.round(s);
  return t >= 3600
    ? `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}m`
    : t >= 60
      ? `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s`
      : `${t}s`;
}

export interface WatchFigure {
  key: string;
  last: number;
  smoothed: number;
  min: number;
  max: number;
  spark: string;
}

export function watchFigures(store: SeriesStore): WatchFigure[] {
  const keys = store.keys();
  const out: WatchFigure[] = [];
  for (const key of [
    ...WATCH_KEYS.filter((k) => keys.includes(k)),
    ...keys.filter((k) => k.startsWith('reward_') && !(WATCH_KEYS as readonly string[]).includes(k)),
  ]) {
    const values = store.values(key);
    const defined = [...values].filter(Number.isFinite);
    if (!defined.length) continue;
    const ema = emaSeries(values, SMOOTHING);
    out.push({
      key,
      last: defined[defined.length - 1]!,
      smoothed: ema[ema.length - 1]!,
      min: Math.min(...defined),
      max: Math.max(...defined),
      spark: sparkline(values),
    });
  }
  // Grouped as the page groups them (extra reward_* keys join their group).
  const rank = (key: string) => {
    const i = METRIC_GROUPS.findIndex((g) => g.id === groupOf(key).id);
    return i < 0 ? METRIC_GROUPS.length : i;
  };
  return out
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.key) - rank(b.f.key) || a.i - b.i)
    .map(({ f }) => f);
}

export function watchScreen(run: TrainingRunSummary, store: SeriesStore): string[] {
  const lines: string[] = [];
  const total = run.totalSteps;
  const share = total ? Math.min(1, run.step / total) : 0;
  const filled = Math.round(share * BAR_WIDTH);
  lines.push(`${run.id}  ${run.stage}  ${run.state.toUpperCase()}${run.message ? `  ${run.message}` : ''}`);
  lines.push(
    `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] step ${run.step}${total !== null ? `/${total} (${(share * 100).toFixed(0)}%)` : ''}  eta ${duration(run.etaS)}  elapsed ${duration(store.last()?.wall ?? null)}  tokens ${(store.last()?.tokens ?? 0).toLocaleString('en-US')}`,
  );
  const figures = watchFigures(store);
  const width = Math.max(6, ...figures.map((f) => f.key.length));
  let group = '';
  for (const f of figures) {
    const g = groupOf(f.key);
    if (g.id !== group) {
      group = g.id;
      lines.push('', (METRIC_GROUPS.find((m) => m.id === g.id)?.title ?? g.title).split(':')[0]!);
    }
    lines.push(
      `  ${f.key.padEnd(width)}  ${fmt(f.last).padStart(10)}  ema ${fmt(f.smoothed).padStart(10)}  [${fmt(f.min)}, ${fmt(f.max)}]  ${f.spark}`,
    );
  }
  if (!figures.length) lines.push('', 'no metrics yet');
  if (store.badLineCount)
    lines.push(
      '',
      `${store.badLineCount} unreadable line(s) in metrics.jsonl, first: line ${store.badLines[0]?.line}: ${store.badLines[0]?.problem}`,
    );
  return lines;
}
