/**
 * One metric as a uPlot chart: for each charted run its raw series faint behind its EMA, x by step, wall
 * time or tokens, linear or log scale. Charts share a crosshair (uPlot's cursor sync) and a zoom (drag to
 * zoom, double-click to reset, on every chart at once). A click (not a drag) picks the nearest step of the
 * primary run, which opens that step's rollouts.
 */
import { useEffect, useRef, useState, type MutableRefObject, type RefObject } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { SeriesPoints, XAxis } from '../../../../electron/domain/training-metrics';
import { INTEGER_INCRS, SECOND_INCRS } from './panels';
import { formatTicks, logRange, logTicks, planYScale, type YScalePlan } from './y-axis';
import { nearestStep } from './chart-pick';

export const SYNC_KEY = 'training-charts';
const HEIGHT = 180;
/** The axes' font (uPlot's own, at 12 px): the y axis is sized by measuring its labels in it. */
export const AXIS_FONT =
  '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
const Y_TICK_PX = 10;
const Y_GAP_PX = 5;
/** Room left of the longest label, so a minus sign never touches the panel's edge. */
const Y_MARGIN_PX = 4;
const MIN_Y_AXIS_PX = 40;
/**
 * Least room between two y ticks: two lines of 12 px text. uPlot's 30 px left a narrow range near 1 (a TIS
 * weight) two ticks in a 180 px chart, too few to read a scale from.
 */
const Y_TICK_SPACE_PX = 24;
/** A 180 px chart holds about six labelled y ticks without crowding. */
const MAX_Y_TICKS = 6;
/** A mouse that moved more than this between press and release zoomed: not a click. */
const CLICK_SLOP_PX = 3;
/** The header names each line's last value up to this many lines; past it the legend under the chart does. */
const MAX_HEADER_VALUES = 4;

export interface ChartRun {
  runId: string;
  colour: string;
  points: SeriesPoints;
  /** The legend's name for the line (default: the run's short id). */
  label?: string;
  /** Dashes tell overlaid runs apart where colour tells categories apart (family charts). */
  dash?: number[];
  /** Draw the raw series faint behind the EMA (default true; family charts draw the EMA only). */
  showRaw?: boolean;
  /**
   * Runs pooled over seeds: `points` is their mean, drawn over a shaded band from `lo` to `hi` (the runs'
   * min..max at each point, `n` runs pooled there), in place of the faint raw line.
   */
  band?: { lo: number[]; hi: number[]; n: number[]; runs: string[] };
}

/** Legend rows of series drawn for context only (a raw line behind its EMA, a band's edges): hidden by CSS. */
const CONTEXT_SERIES_CLASS = 'context-series';

/** Charts tell each other the x range they zoomed to. */
type ZoomListener = (range: { min: number; max: number } | null, from: uPlot) => void;
const zoomListeners = new Set<ZoomListener>();

export function formatX(axis: XAxis, v: number): string {
  if (axis === 'wall') {
    const s = Math.round(v);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return h ? `${h}h${String(m).padStart(2, '0')}` : `${m}:${String(s % 60).padStart(2, '0')}`;
  }
  if (axis === 'tokens')
    return v >= 1e9
      ? `${(v / 1e9).toFixed(1)}G`
      : v >= 1e6
        ? `${(v / 1e6).toFixed(1)}M`
        : v >= 1e3
          ? `${(v / 1e3).toFixed(0)}k`
          : String(v);
  return String(Math.round(v));
}

export function formatY(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(2) : Number(v.toPrecision(4)).toString();
}

/** Run ids are long (`20261201-100000-ppo-a1b2`): the legend keeps the stage and the suffix. */
export function shortId(runId: string): string {
  const parts = runId.split('-');
  return parts.length > 2 ? parts.slice(-2).join('-') : runId;
}

function buildData(runs: ChartRun[], axis: XAxis): uPlot.AlignedData {
  const tables = runs.map(
    (r) =>
      (r.band
        ? [r.points[axis], r.band.hi, r.band.lo, r.points.ema]
        : [r.points[axis], r.points.raw, r.points.ema]) as uPlot.AlignedData,
  );
  if (tables.length === 1) return tables[0]!;
  return uPlot.join(tables);
}

/** Every raw value the chart draws (what decides whether a log scale can hold them). */
function rawValues(runs: ChartRun[]): number[] {
  return runs.flatMap((r) => (r.band ? [...r.band.lo, ...r.band.hi] : r.points.raw));
}

/** The y scale uPlot is given for a plan: log and arcsinh ranges and ticks are ours (see y-axis.ts). */
function yScale(plan: YScalePlan, fixed: () => [number, number] | null): uPlot.Scale {
  if (plan.kind === 'log') return { distr: 3, range: (_u, lo, hi) => logRange(lo, hi, 'log') };
  if (plan.kind === 'asinh')
    return { distr: 4, asinh: plan.linthresh, range: (_u, lo, hi) => logRange(lo, hi, 'asinh') };
  return {
    range: (_u, lo, hi) =>
      fixed() ??
      (lo === hi
        ? [lo - (Math.abs(lo) * 0.5 || 1), hi + (Math.abs(hi) * 0.5 || 1)]
        : uPlot.rangeNum(lo, hi, 0.1, true)),
  };
}

/** Width of the y axis: its longest label, the tick and the gap, so no label is cut at the panel's edge. */
function yAxisSize(labels: readonly string[] | null): number {
  const ctx = measureContext();
  let widest = 0;
  for (const l of labels ?? []) widest = Math.max(widest, ctx ? ctx.measureText(l).width : l.length * 7);
  return Math.max(MIN_Y_AXIS_PX, Math.ceil(widest) + Y_TICK_PX + Y_GAP_PX + Y_MARGIN_PX);
}

let measurer: CanvasRenderingContext2D | null | undefined;
function measureContext(): CanvasRenderingContext2D | null {
  if (measurer === undefined) {
    measurer = document.createElement('canvas').getContext('2d');
    if (measurer) measurer.font = AXIS_FONT;
  }
  return measurer;
}

/** An x range that is never empty (one point so far would give uPlot a zero-width scale). */
function xRange(min: number, max: number): { min: number; max: number } {
  return min === max ? { min: min - 1, max: max + 1 } : { min, max };
}

interface MetricChartProps {
  metric: string;
  runs: ChartRun[];
  xAxis: XAxis;
  log: boolean;
  onLog: (on: boolean) => void;
  onPickStep?: (step: number) => void;
  /** A fixed y range (rates: [0, 1]); null lets uPlot pick. Ignored on a log scale. */
  yRange?: [number, number] | null;
  /** The x range every panel shares (all charted runs, all metrics) until the user zooms. */
  xExtent?: { min: number; max: number } | null;
  pinned?: boolean;
  onPin?: () => void;
  /** A chart the user made (several metrics): removes it. */
  onRemove?: () => void;
  /**
   * A family chart with overlaid runs, where colour means category: which line style is which run (a
   * sample of its dashes in the run's own colour, as in the run legend).
   */
  runKey?: { runId: string; colour: string; dash?: number[] }[];
}

/** A short line drawn with a run's dashes, for the key of a family chart. */
function DashSample({ colour, dash }: { colour: string; dash?: number[] }) {
  return (
    <svg width="28" height="8" aria-hidden="true" className="dash-sample">
      <line x1="1" x2="27" y1="4" y2="4" stroke={colour} strokeWidth="2" strokeDasharray={dash?.join(' ')} />
    </svg>
  );
}

export function MetricChart({
  metric,
  runs,
  xAxis,
  log,
  onLog,
  onPickStep,
  yRange = null,
  xExtent = null,
  pinned = false,
  onPin,
  onRemove,
  runKey,
}: MetricChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  // The scale follows the data (all zeros so far cannot take a log); a new kind or threshold rebuilds the chart.
  const plan = planYScale(rawValues(runs), log);
  const latest = {
    runs: useLatest(runs),
    plan: useLatest(plan),
    yRange: useLatest(yRange),
    extent: useLatest(xExtent),
    pick: useLatest(onPickStep),
  };
  const plot = usePlot(box, figure, chartShape(runs, plan, log, xAxis), log, xAxis, latest);
  const onScreen = useOnScreen(box);
  useLiveData(plot, onScreen, runs, xAxis, xExtent);

  const last = runs[0]?.points;
  return (
    <figure
      ref={figure}
      className={pinned ? 'metric-chart pinned' : 'metric-chart'}
      data-testid="metric-chart"
      data-metric={metric}
      data-pinned={pinned}
      data-x-axis={xAxis}
      data-runs={runs.length}
      data-colours={[...new Set(runs.map((r) => r.colour))].join(' ')}
      data-bands={runs.filter((r) => r.band).length}
      data-log={log}
      data-points={last?.raw.length ?? 0}
      data-last-step={last && last.step.length ? last.step[last.step.length - 1] : ''}
    >
      <ChartCaption
        metric={metric}
        runs={runs}
        note={plan.note}
        log={log}
        onLog={onLog}
        pinned={pinned}
        onPin={onPin}
        onRemove={onRemove}
      />
      {runKey && runKey.length > 1 && <RunKey runKey={runKey} />}
      <div ref={box} className="chart-box" />
    </figure>
  );
}

/** A ref that always holds the latest value: the chart's callbacks read it without the chart being rebuilt. */
function useLatest<T>(value: T): MutableRefObject<T> {
  const ref = useRef(value);
  ref.current = value;
  return ref;
}

/** What the chart is built from (its series, their styles, the scale): the chart is rebuilt when this changes. */
function chartShape(runs: ChartRun[], plan: YScalePlan, log: boolean, xAxis: XAxis): string {
  return `${plan.kind}:${plan.linthresh}|${runs.map((r) => `${r.runId}:${r.label ?? ''}:${r.colour}:${(r.dash ?? []).join('.')}:${r.showRaw !== false}:${r.band ? 'band' : ''}`).join(',')}|${log}|${xAxis}`;
}

/** The latest props the uPlot chart's callbacks read. */
interface LatestProps {
  runs: MutableRefObject<ChartRun[]>;
  plan: MutableRefObject<YScalePlan>;
  yRange: MutableRefObject<[number, number] | null>;
  extent: MutableRefObject<{ min: number; max: number } | null>;
  pick: MutableRefObject<((step: number) => void) | undefined>;
}

/**
 * The uPlot chart in `box`: (re)created when the series or scales change shape (otherwise only the data
 * changes, useLiveData), joined to the shared zoom, picking a step on click, resized with its box.
 */
function usePlot(
  box: RefObject<HTMLDivElement | null>,
  figure: RefObject<HTMLElement | null>,
  shape: string,
  log: boolean,
  xAxis: XAxis,
  latest: LatestProps,
): MutableRefObject<uPlot | null> {
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const drawn: Drawn = { xTicks: [], yTicks: [], yAxisPx: 0, zoomed: false };
    const opts = chartOptions({
      width: Math.max(240, el.clientWidth),
      runs: latest.runs.current,
      xAxis,
      plan: latest.plan.current,
      drawn,
      figure: () => figure.current,
      yRange: () => latest.yRange.current,
      extent: () => latest.extent.current,
    });
    const u = new uPlot(opts, buildData(latest.runs.current, xAxis), el);
    plot.current = u;
    const leaveZoom = joinZoom(u, drawn, () => latest.extent.current);
    pickOnClick(
      u,
      xAxis,
      () => latest.runs.current[0]?.points,
      () => latest.pick.current,
    );
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(240, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      leaveZoom();
      u.destroy();
      plot.current = null;
    };
  }, [shape, log, xAxis]);
  return plot;
}

/** Whether the chart is on screen, whether it missed data while it was not, and a count bumped when it comes back. */
interface OnScreen {
  visible: MutableRefObject<boolean>;
  stale: MutableRefObject<boolean>;
  seen: number;
}

/** Charts scrolled out of view skip live updates (a page has ~40 of them) and catch up when seen. */
function useOnScreen(box: RefObject<HTMLDivElement | null>): OnScreen {
  const visible = useRef(true);
  const stale = useRef(false);
  const [seen, setSeen] = useState(0);
  useEffect(() => {
    const el = box.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver(([entry]) => {
      visible.current = !!entry?.isIntersecting;
      if (visible.current && stale.current) setSeen((n) => n + 1);
    });
    io.observe(el);
    return () => io.disconnect();
  }, []);
  return { visible, stale, seen };
}

/** New points (live rows, another smoothing): same shape, new data; the zoom is kept. */
function useLiveData(
  plot: MutableRefObject<uPlot | null>,
  { visible, stale, seen }: OnScreen,
  runs: ChartRun[],
  xAxis: XAxis,
  xExtent: { min: number; max: number } | null,
): void {
  useEffect(() => {
    const u = plot.current;
    if (!u) return;
    if (!visible.current) {
      stale.current = true;
      return;
    }
    stale.current = false;
    showData(u, buildData(runs, xAxis), xExtent);
  }, [runs, xAxis, seen, xExtent?.min, xExtent?.max]);
}

/** What the chart last drew (its tick labels and y axis width, read back into the figure's data attributes), and whether the user zoomed. */
interface Drawn {
  xTicks: string[];
  yTicks: string[];
  yAxisPx: number;
  zoomed: boolean;
}

interface ChartSetup {
  width: number;
  runs: ChartRun[];
  xAxis: XAxis;
  plan: YScalePlan;
  drawn: Drawn;
  figure: () => HTMLElement | null;
  yRange: () => [number, number] | null;
  extent: () => { min: number; max: number } | null;
}

/**
 * The x column, then per run its raw series (faint; the legend's CSS hides it) and its EMA; a pooled run
 * (`band`) has its band's upper and lower edges instead of the raw series, then its mean.
 */
function chartSeries(runs: ChartRun[], xAxis: XAxis): uPlot.Series[] {
  const series: uPlot.Series[] = [{ label: xAxis, value: (_u, v) => (v === null ? '—' : formatX(xAxis, v)) }];
  for (const r of runs) {
    // The legend lists the smoothed series only (CSS hides the raw rows); the raw value is the tooltip's.
    const label = r.label ?? shortId(r.runId);
    if (r.band) {
      series.push({
        label: `${label} max`,
        class: CONTEXT_SERIES_CLASS,
        stroke: r.colour,
        alpha: 0.35,
        width: 1,
        spanGaps: true,
        value: (_u, v) => formatY(v),
      });
      series.push({
        label: `${label} min`,
        class: CONTEXT_SERIES_CLASS,
        stroke: r.colour,
        alpha: 0.35,
        width: 1,
        spanGaps: true,
        value: (_u, v) => formatY(v),
      });
    } else {
      series.push({
        label: `${label} raw`,
        class: CONTEXT_SERIES_CLASS,
        stroke: r.colour,
        alpha: 0.25,
        width: 1,
        spanGaps: true,
        show: r.showRaw !== false,
        value: (_u, v) => formatY(v),
      });
    }
    series.push({
      label,
      stroke: r.colour,
      width: 2,
      spanGaps: true,
      ...(r.dash ? { dash: r.dash } : {}),
      value: (_u, v) => formatY(v),
    });
  }
  return series;
}

/** The shaded bands of pooled runs: between each one's upper and lower edge (series indices as chartSeries lays them out). */
function chartBands(runs: ChartRun[]): uPlot.Band[] {
  const bands: uPlot.Band[] = [];
  let index = 1;
  for (const r of runs) {
    if (r.band) bands.push({ series: [index, index + 1], fill: `${r.colour}33` });
    index += r.band ? 3 : 2;
  }
  return bands;
}

/** uPlot's options: the series, the shared x range until zoomed, the planned y scale, both axes, the cursor sync, the hooks. */
function chartOptions(c: ChartSetup): uPlot.Options {
  const { xAxis, plan, drawn } = c;
  return {
    width: c.width,
    height: HEIGHT,
    series: chartSeries(c.runs, xAxis),
    bands: chartBands(c.runs),
    scales: {
      x: {
        time: false,
        range: (_u, lo, hi) => {
          // Until the user zooms, every panel shows the same x range: all charted runs, all metrics.
          const extent = c.extent();
          const r = extent && !drawn.zoomed ? xRange(extent.min, extent.max) : xRange(lo, hi);
          return [r.min, r.max];
        },
      },
      y: yScale(plan, c.yRange),
    },
    axes: [xAxisOptions(xAxis, drawn), yAxisOptions(plan, drawn)],
    cursor: { sync: { key: SYNC_KEY, setSeries: false }, drag: { x: true, y: false }, points: { size: 5 } },
    legend: { show: true, live: true },
    hooks: {
      // What the canvas shows, readable by tests and assistive tools: the ranges and tick labels.
      draw: [
        (u) => {
          const f = c.figure();
          if (!f) return;
          f.dataset.xRange = `${u.scales.x!.min} ${u.scales.x!.max}`;
          f.dataset.yRange = `${u.scales.y!.min} ${u.scales.y!.max}`;
          f.dataset.xTicks = drawn.xTicks.join(' ');
          f.dataset.yTicks = drawn.yTicks.join('|');
          f.dataset.yAxisWidth = String(drawn.yAxisPx);
          f.dataset.scale = plan.kind;
        },
      ],
      // Only a zoom the user dragged is shared (not the scale changes that new data makes).
      setSelect: [
        (u) => {
          if (u.select.width <= 0) return;
          const min = u.posToVal(u.select.left, 'x');
          const max = u.posToVal(u.select.left + u.select.width, 'x');
          drawn.zoomed = true;
          for (const l of zoomListeners) l({ min, max }, u);
        },
      ],
    },
  };
}

function xAxisOptions(xAxis: XAxis, drawn: Drawn): uPlot.Axis {
  return {
    stroke: '#8a93a6',
    font: AXIS_FONT,
    grid: { stroke: '#262b36' },
    ticks: { stroke: '#262b36' },
    // Steps, tokens and seconds are whole numbers: no tick at 1.5 that reads "2" next to the 2.
    incrs: xAxis === 'wall' ? SECOND_INCRS : INTEGER_INCRS,
    values: (_u, vals) => (drawn.xTicks = vals.map((v) => formatX(xAxis, v))),
  };
}

function yAxisOptions(plan: YScalePlan, drawn: Drawn): uPlot.Axis {
  const logKind = plan.kind === 'linear' ? null : plan.kind;
  return {
    stroke: '#8a93a6',
    font: AXIS_FONT,
    gap: Y_GAP_PX,
    space: Y_TICK_SPACE_PX,
    grid: { stroke: '#262b36' },
    ticks: { stroke: '#262b36', size: Y_TICK_PX },
    size: (_u, values) => (drawn.yAxisPx = yAxisSize(values)),
    // Log and arcsinh axes: our 1-2-5 or decade ticks, every one labelled (uPlot's own draw a grid line at
    // each of 1..9 × 10^k, which reads as grey bands, and label only some).
    ...(logKind
      ? {
          splits: (_u: uPlot, _i: number, min: number, max: number) =>
            logTicks(min, max, logKind, plan.linthresh, MAX_Y_TICKS),
          filter: (_u: uPlot, splits: number[]) => splits,
        }
      : {}),
    values: (_u, vals) => (drawn.yTicks = formatTicks(vals)),
  };
}

/** Joins the charts' shared zoom: another chart's zoom (or reset) moves this one; a double-click here resets them all. The function returned leaves. */
function joinZoom(u: uPlot, drawn: Drawn, extent: () => { min: number; max: number } | null): () => void {
  const fullRange = () => {
    const xs = u.data[0];
    const e = extent();
    return e ? xRange(e.min, e.max) : xRange(xs[0] ?? 0, xs[xs.length - 1] ?? 1);
  };
  const onZoom: ZoomListener = (range, from) => {
    drawn.zoomed = range !== null;
    if (from !== u) u.setScale('x', range ?? fullRange());
  };
  zoomListeners.add(onZoom);
  // A double-click resets this chart's zoom (uPlot's default); the others reset too.
  u.over.addEventListener('dblclick', () => {
    for (const l of zoomListeners) l(null, u);
  });
  return () => zoomListeners.delete(onZoom);
}

/** A click (not a drag) picks the primary run's step nearest to the cursor. */
function pickOnClick(
  u: uPlot,
  xAxis: XAxis,
  primary: () => SeriesPoints | undefined,
  pick: () => ((step: number) => void) | undefined,
): void {
  let down: { x: number; y: number } | null = null;
  u.over.addEventListener('mousedown', (e: MouseEvent) => (down = { x: e.clientX, y: e.clientY }));
  u.over.addEventListener('click', (e: MouseEvent) => {
    const moved = down ? Math.hypot(e.clientX - down.x, e.clientY - down.y) : 0;
    const idx = u.cursor.idx;
    const onPick = pick();
    if (moved > CLICK_SLOP_PX || idx === null || idx === undefined || !onPick) return;
    const x = u.data[0][idx];
    const points = primary();
    if (x === undefined || !points) return;
    const step = nearestStep(points, xAxis, x);
    if (step !== null) onPick(step);
  });
}

/** New data at the same shape: a zoomed-in view stays where it is; one that shows the newest point follows the data. */
function showData(u: uPlot, data: uPlot.AlignedData, xExtent: { min: number; max: number } | null): void {
  u.setData(data, false);
  const { min, max } = u.scales.x!;
  const xs = u.data[0];
  if (
    min !== undefined &&
    max !== undefined &&
    min !== null &&
    max !== null &&
    !(xs.length && max >= xs[xs.length - 1]! - 1e-9)
  )
    u.redraw();
  else u.setScale('x', xExtent ? xRange(xExtent.min, xExtent.max) : xRange(xs[0] ?? 0, xs[xs.length - 1] ?? 1));
}

interface CaptionProps {
  metric: string;
  runs: ChartRun[];
  note: string | null;
  log: boolean;
  onLog: (on: boolean) => void;
  pinned: boolean;
  onPin?: () => void;
  onRemove?: () => void;
}

/** The metric's name, each line's last value (up to a few lines), the scale's note, remove or pin, and the log toggle. */
function ChartCaption({ metric, runs, note, log, onLog, pinned, onPin, onRemove }: CaptionProps) {
  const headerValues = runs.length <= MAX_HEADER_VALUES ? runs : [];
  return (
    <figcaption>
      <span className="metric-name">{metric}</span>
      {headerValues.map((r) => (
        <span
          key={`${r.runId}:${r.label ?? ''}`}
          className="last-value"
          style={{ color: r.colour }}
          title={`${r.label ?? r.runId}: last value`}
          data-testid="last-value"
          data-run={r.runId}
        >
          {formatY(r.points.raw.at(-1))}
        </span>
      ))}
      {note && (
        <span className="muted small" data-testid="scale-note">
          {note}
        </span>
      )}
      {onRemove && (
        <button type="button" className="pin" onClick={onRemove} title="remove this chart" data-testid="remove-chart">
          ✕
        </button>
      )}
      {onPin && !onRemove && (
        <button
          type="button"
          className={pinned ? 'pin on' : 'pin'}
          onClick={onPin}
          title={pinned ? 'unpin' : 'pin to the top'}
          aria-pressed={pinned}
          data-testid="pin-toggle"
        >
          {pinned ? '★' : '☆'}
        </button>
      )}
      <label className="log-toggle">
        <input type="checkbox" checked={log} onChange={(e) => onLog(e.target.checked)} data-testid="log-toggle" /> log
      </label>
    </figcaption>
  );
}

/** A family chart's key: which line style is which run. */
function RunKey({ runKey }: { runKey: { runId: string; colour: string; dash?: number[] }[] }) {
  return (
    <div className="run-key small muted" data-testid="run-key">
      colour: category · line: run
      {runKey.map((r) => (
        <span
          key={r.runId}
          className="run-key-item"
          data-testid="run-key-item"
          data-run={r.runId}
          data-dash={(r.dash ?? []).join(' ')}
          title={r.runId}
        >
          <DashSample colour={r.colour} dash={r.dash} /> {shortId(r.runId)}
        </span>
      ))}
    </div>
  );
}
