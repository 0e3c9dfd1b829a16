/**
 * Training metrics as the Training page and `t1lab train watch` read them: one `metrics.jsonl` line per
 * step (issue 12: step, tokens, loss, lr, grad_norm, tokens_per_s, time split; issue 13 fixes the PPO keys
 * below). Lines are flattened to numeric series (`time.generation`, `routing_agreement.0`), every line gets
 * three x coordinates (step, wall seconds since the run's first line, cumulative tokens), and the series are
 * grouped as the page charts them. Unknown numeric keys are kept (group "other"): more keys may follow.
 */
import { z } from 'zod';

/** The keys issue 13 fixes in `metrics.jsonl` (more may follow). */
export const PPO_METRIC_KEYS = [
  'reward_dense',
  'reward_binary',
  'resolved',
  'pg_loss',
  'pg_clipfrac',
  'ppo_kl',
  'entropy',
  'vf_loss',
  'vf_explained_var',
  'grad_norm',
  'tis_weight_mean',
  'train_infer_gap_r3',
  'train_infer_gap_free',
  'loss_drift',
  'routing_agreement',
  'staleness',
  'aborted_share',
] as const;

export const XAxis = z.enum(['step', 'wall', 'tokens']);
export type XAxis = z.infer<typeof XAxis>;

/** A metric group: the keys it charts, matched by exact name or by prefix (`time.` matches `time.env`). */
export interface MetricGroup {
  readonly id: string;
  readonly title: string;
  readonly keys: readonly string[];
  readonly prefixes: readonly string[];
}

/** The page's groups, in the order of issue 14. A key belongs to the first group that claims it. */
export const METRIC_GROUPS: readonly MetricGroup[] = [
  {
    id: 'reward',
    title: 'Reward and resolution',
    keys: [
      'reward_dense',
      'reward_fraction',
      'reward_binary',
      'resolved',
      'reward',
      'episode_turns',
      'episode_tokens',
      'eval_resolved',
    ],
    prefixes: ['reward_', 'reward.', 'resolved_', 'resolved.', 'eval_resolved'],
  },
  {
    id: 'policy',
    title: 'Policy: loss, clip fraction, KL, entropy',
    keys: ['pg_loss', 'pg_clipfrac', 'ppo_kl', 'entropy', 'kl_ref', 'loss', 'eval_loss'],
    prefixes: ['pg_', 'ppo_', 'kl'],
  },
  {
    id: 'value',
    title: 'Value: loss and explained variance',
    keys: ['vf_loss', 'vf_clipfrac', 'vf_explained_var', 'advantage_mean', 'advantage_std', 'value_mean'],
    prefixes: ['vf_', 'advantage', 'return'],
  },
  {
    id: 'optim',
    title: 'Optimization: gradient norm, learning rate',
    keys: ['grad_norm', 'lr', 'aux_loss'],
    prefixes: ['lr.', 'lr_', 'grad_'],
  },
  {
    id: 'tito',
    title: 'TITO and R3: train-inference gap, drift, ledger, routing agreement',
    keys: [
      'train_infer_gap_r3',
      'train_infer_gap_free',
      'loss_drift',
      'routing_agreement',
      'tis_weight_mean',
      'tis_weight_max',
      'tis_clipped_share',
    ],
    prefixes: ['train_infer_gap', 'routing_agreement', 'ledger', 'tis_', 'drift'],
  },
  {
    id: 'system',
    title: 'System: time split, throughput, staleness, aborted share',
    keys: ['tokens_per_s', 'staleness', 'aborted_share', 'step_s', 'loss_tokens'],
    prefixes: ['time.', 'time_', 'timing', 'aborted', 'staleness', 'perf', 'sys.'],
  },
];
export const OTHER_GROUP: MetricGroup = { id: 'other', title: 'Other', keys: [], prefixes: [] };

export function groupOf(key: string): MetricGroup {
  for (const g of METRIC_GROUPS) if (g.keys.includes(key)) return g;
  for (const g of METRIC_GROUPS) if (g.prefixes.some((p) => key.startsWith(p))) return g;
  return OTHER_GROUP;
}

/** Keys spread on a wide range by nature: the page offers log scale for every chart, on by default for these. */
export function prefersLogScale(key: string): boolean {
  return /(^|_)(loss|grad_norm|lr|ppo_kl|kl_ref|train_infer_gap)/.test(key) && !key.includes('explained');
}

/** Row fields that are coordinates or labels, not series. */
const NOT_SERIES = new Set([
  'step',
  'wall_time',
  'timestamp',
  'ts',
  'wall_s',
  'elapsed_s',
  'tokens',
  'tokens_total',
  'stage',
  'phase',
  'kind',
  'schema',
]);

/** One metrics line, made numeric: its x coordinates and its flattened values. */
export interface MetricRow {
  step: number;
  /** Seconds since the run's first line. */
  wall: number;
  /** Tokens trained on so far (cumulative). */
  tokens: number;
  values: Record<string, number>;
}

export const MetricRowSchema = z.object({
  step: z.number(),
  wall: z.number(),
  tokens: z.number(),
  values: z.record(z.string(), z.number()),
});

/** What carries across lines to give each its x coordinates: the first line's time, the token count so far. */
export interface RowCursor {
  rows: number;
  firstTimeS: number | null;
  tokens: number;
}
export const newRowCursor = (): RowCursor => ({ rows: 0, firstTimeS: null, tokens: 0 });

function visitValue(prefix: string, value: unknown, depth: number, visit: (key: string, value: number) => void): void {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) visit(prefix, value);
  } else if (typeof value === 'boolean') {
    visit(prefix, value ? 1 : 0);
  } else if (value && typeof value === 'object' && depth < 3) {
    if (Array.isArray(value))
      for (let i = 0; i < value.length; i++) visitValue(`${prefix}.${i}`, value[i], depth + 1, visit);
    else for (const k in value) visitValue(`${prefix}.${k}`, (value as Record<string, unknown>)[k], depth + 1, visit);
  }
}

/**
 * A line's time in seconds: `wall_time` (the trainer: epoch seconds), `timestamp`/`ts`/`time` (ISO or
 * epoch s/ms), else `wall_s`/`elapsed_s`. (The trainer's `time` is an object: the step's time split.)
 */
function timeSeconds(line: Record<string, unknown>): number | null {
  for (const k of ['wall_time', 'timestamp', 'ts', 'time']) {
    const v = line[k];
    if (typeof v === 'string') {
      const ms = Date.parse(v);
      if (Number.isFinite(ms)) return ms / 1000;
    } else if (typeof v === 'number' && Number.isFinite(v)) {
      return v > 1e11 ? v / 1000 : v; // epoch milliseconds or seconds
    }
  }
  for (const k of ['elapsed_s', 'wall_s']) {
    const v = line[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

/**
 * One parsed `metrics.jsonl` line: its x coordinates, and each flattened numeric value passed to `visit`
 * (no intermediate object: a 100k-line file goes straight into columns). `tokens` is the trainer's count
 * of tokens trained on so far (`tokens_total` is read the same way); a line without either keeps the
 * previous count. Returns a description of the problem for a line that is not a JSON object.
 */
export function visitMetricLine(
  line: unknown,
  cursor: RowCursor,
  visit: (key: string, value: number) => void,
): Omit<MetricRow, 'values'> | string {
  if (!line || typeof line !== 'object' || Array.isArray(line)) return 'not a JSON object';
  const obj = line as Record<string, unknown>;
  for (const k in obj) if (!NOT_SERIES.has(k)) visitValue(k, obj[k], 0, visit);
  const t = timeSeconds(obj);
  if (t !== null && cursor.firstTimeS === null) cursor.firstTimeS = t;
  if (typeof obj.tokens_total === 'number') cursor.tokens = obj.tokens_total;
  else if (typeof obj.tokens === 'number') cursor.tokens = obj.tokens;
  const step = typeof obj.step === 'number' ? obj.step : cursor.rows;
  cursor.rows++;
  return { step, wall: t === null || cursor.firstTimeS === null ? 0 : t - cursor.firstTimeS, tokens: cursor.tokens };
}

/** One parsed line to a row with its values as an object (live rows, tests). */
export function normalizeMetricLine(line: unknown, cursor: RowCursor): MetricRow | string {
  const values: Record<string, number> = {};
  const x = visitMetricLine(line, cursor, (k, v) => (values[k] = v));
  return typeof x === 'string' ? x : { ...x, values };
}

/** One decimated series of one run: kept points (x on all three axes), raw values and their EMA. */
export const SeriesPoints = z.object({
  step: z.array(z.number()),
  wall: z.array(z.number()),
  tokens: z.array(z.number()),
  raw: z.array(z.number()),
  ema: z.array(z.number()),
});
export type SeriesPoints = z.infer<typeof SeriesPoints>;

export const EmaState = z.object({ last: z.number(), count: z.number().int() });
export type EmaState = z.infer<typeof EmaState>;

/** A run's series as the charts get them. `rows` is the number of lines read (live rows continue from there). */
export const RunSeries = z.object({
  runId: z.string(),
  rows: z.number().int(),
  /** Lines that could not be read, with their 1-based line number (at most a few). */
  badLines: z.array(z.object({ line: z.number().int(), problem: z.string() })),
  smoothing: z.number(),
  series: z.record(z.string(), SeriesPoints),
  ema: z.record(z.string(), EmaState),
  /** Whether any series was decimated (fewer points than rows). */
  decimated: z.boolean(),
});
export type RunSeries = z.infer<typeof RunSeries>;
