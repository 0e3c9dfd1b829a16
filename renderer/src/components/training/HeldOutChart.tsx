/**
 * Held-out resolved rate against training step: each evaluated checkpoint of the run a point with its 95%
 * interval (Wilson, over tasks), a line per suite. A point opens its eval run; the table under it says the
 * same in numbers, with each evaluation's settings (temperature, turns, …). Re-read when the run's checkpoints change (an evaluation ended).
 */
import { useEffect, useState } from 'react';
import type { HeldOutPoint } from '../../../../electron/domain/training-view';
import { formatRate } from '../../../../electron/domain/rates';
import { getLabApi } from '../../lab/api';
import { useNav } from '../../stores/nav';
import { runColour } from './palette';

const W = 640;
const H = 220;
/** Room for the tick labels and each axis title inside the SVG (text outside the viewBox is cut). */
const PAD = { left: 62, right: 16, top: 12, bottom: 44 };
/** A resolved rate is a share of tasks: its axis always spans 0 to 100%, so runs and steps compare by eye. */
const RATE_TICKS = [0, 0.25, 0.5, 0.75, 1];

const suiteName = (path: string) =>
  path
    .split(/[\\/]/)
    .filter(Boolean)
    .at(-1)
    ?.replace(/\.jsonl$/, '') ?? path;

/** Up to `n` round ticks over [lo, hi] (integers: steps). */
export function stepTicks(lo: number, hi: number, n = 6): number[] {
  if (hi <= lo) return [lo];
  const raw = (hi - lo) / (n - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag);
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) out.push(t);
  return out;
}

export function HeldOutChart({ runId, version }: { runId: string; version: string }) {
  const { points, error } = useHeldOut(runId, version);
  const { link } = useNav();
  if (error) return <div className="error">{error}</div>;
  if (!points) return null;
  if (!points.length)
    return (
      <p className="muted" data-testid="held-out-empty">
        No checkpoint of this run has been evaluated yet: evaluate one below (Checkpoints), or run{' '}
        <code>t1lab eval --policy onnx:CHECKPOINT</code>.
      </p>
    );

  const suites = [...new Set(points.map((p) => p.suite))];
  const open = (p: HeldOutPoint) => link('runs', [p.evalRunId]);
  const plot = plotScales(points.map((p) => p.step));
  return (
    <div className="held-out" data-testid="held-out">
      <svg
        className="held-out-chart"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label="held-out resolved rate by training step"
        data-testid="held-out-chart"
        data-points={points.length}
      >
        <Axes plot={plot} />
        {suites.map((suite, si) => (
          <SuiteLine
            key={suite}
            suite={suite}
            points={points.filter((p) => p.suite === suite)}
            colour={runColour(si)}
            plot={plot}
            onOpen={open}
          />
        ))}
      </svg>
      <div className="legend">
        {suites.map((s, i) => (
          <span key={s} className="legend-item">
            <span className="swatch" style={{ background: runColour(i) }} />
            {suiteName(s)}
          </span>
        ))}
        <span className="muted">
          bars: 95% interval (Wilson, over tasks) · hollow: evaluation still running · click a point to open its eval
          run
        </span>
      </div>
      <HeldOutTable points={points} onOpen={open} />
    </div>
  );
}

/** The run's held-out points, read again when `version` changes (an evaluation ended). */
function useHeldOut(runId: string, version: string): { points: HeldOutPoint[] | null; error: string | null } {
  const [points, setPoints] = useState<HeldOutPoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    getLabApi()
      .methods['training.heldOut']({ runId })
      .then(
        (p) => !stale && (setPoints(p), setError(null)),
        (e: Error) => !stale && setError(e.message),
      );
    return () => {
      stale = true;
    };
  }, [runId, version]);
  return { points, error };
}

interface Plot {
  /** The steps' range (for the ticks). */
  lo: number;
  hi: number;
  x(step: number): number;
  y(rate: number): number;
}

/** Step and rate to SVG coordinates: the steps with a little room at either end (a lone step centred), rates 0 to 100%. */
function plotScales(steps: number[]): Plot {
  const [lo, hi] = [Math.min(...steps), Math.max(...steps)];
  const span = hi - lo || 1;
  const x0 = hi === lo ? lo - 0.5 : lo - span * 0.04;
  const x1 = hi === lo ? hi + 0.5 : hi + span * 0.04;
  return {
    lo,
    hi,
    x: (s) => PAD.left + ((s - x0) / (x1 - x0)) * (W - PAD.left - PAD.right),
    y: (r) => PAD.top + (1 - r) * (H - PAD.top - PAD.bottom),
  };
}

/** The rate grid with its labels, the step ticks, and both axis titles. */
function Axes({ plot: { lo, hi, x, y } }: { plot: Plot }) {
  const plotMiddle = (PAD.top + H - PAD.bottom) / 2;
  return (
    <>
      {RATE_TICKS.map((t) => (
        <g key={t}>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} className="grid-line" />
          <text x={PAD.left - 6} y={y(t) + 4} textAnchor="end" className="axis-label" data-testid="held-out-y-tick">
            {`${Math.round(t * 100)}%`}
          </text>
        </g>
      ))}
      {stepTicks(lo, hi).map((t) => (
        <text key={t} x={x(t)} y={H - PAD.bottom + 16} textAnchor="middle" className="axis-label">
          {t}
        </text>
      ))}
      <text
        x={(PAD.left + W - PAD.right) / 2}
        y={H - 10}
        textAnchor="middle"
        className="axis-label axis-title"
        data-testid="held-out-x-title"
      >
        training step
      </text>
      <text
        x={14}
        y={plotMiddle}
        textAnchor="middle"
        dominantBaseline="middle"
        transform={`rotate(-90 14 ${plotMiddle})`}
        className="axis-label axis-title"
        data-testid="held-out-y-title"
      >
        resolved (held-out)
      </text>
    </>
  );
}

/** A suite's line through its points, each with its interval (hollow while its evaluation runs); a point opens its eval run. */
function SuiteLine({
  suite,
  points,
  colour,
  plot: { x, y },
  onOpen,
}: {
  suite: string;
  points: HeldOutPoint[];
  colour: string;
  plot: Plot;
  onOpen(p: HeldOutPoint): void;
}) {
  return (
    <g data-suite={suite}>
      <polyline
        points={points.map((p) => `${x(p.step)},${y(p.resolvedRate)}`).join(' ')}
        fill="none"
        stroke={colour}
        strokeWidth={1.5}
      />
      {points.map((p) => (
        <g
          key={p.evalRunId}
          className="held-out-point"
          data-testid="held-out-point"
          data-step={p.step}
          data-rate={p.resolvedRate}
          data-lo={p.ci95[0]}
          data-hi={p.ci95[1]}
          data-run={p.evalRunId}
          onClick={() => onOpen(p)}
        >
          <title>{`step ${p.step} · ${suiteName(p.suite)}: ${formatRate(p.resolvedRate)} resolved [95% ${formatRate(p.ci95[0])}, ${formatRate(p.ci95[1])}] over ${p.tasks} tasks${p.complete ? '' : ' (still running)'} · ${p.settings} · ${p.evalRunId}`}</title>
          <line
            x1={x(p.step)}
            x2={x(p.step)}
            y1={y(p.ci95[0])}
            y2={y(p.ci95[1])}
            stroke={colour}
            strokeWidth={2}
            data-testid="held-out-interval"
          />
          <line x1={x(p.step) - 4} x2={x(p.step) + 4} y1={y(p.ci95[0])} y2={y(p.ci95[0])} stroke={colour} />
          <line x1={x(p.step) - 4} x2={x(p.step) + 4} y1={y(p.ci95[1])} y2={y(p.ci95[1])} stroke={colour} />
          <circle
            cx={x(p.step)}
            cy={y(p.resolvedRate)}
            r={4}
            fill={p.complete ? colour : 'none'}
            stroke={colour}
            strokeWidth={1.5}
          />
        </g>
      ))}
    </g>
  );
}

/** The same points in numbers, with each evaluation's settings; a row opens its eval run. */
function HeldOutTable({ points, onOpen }: { points: HeldOutPoint[]; onOpen(p: HeldOutPoint): void }) {
  return (
    <table className="grid held-out-table" data-testid="held-out-table">
      <thead>
        <tr>
          <th>step</th>
          <th>suite</th>
          <th>resolved</th>
          <th>95% interval</th>
          <th>tasks</th>
          <th>settings</th>
          <th>eval run</th>
        </tr>
      </thead>
      <tbody>
        {points.map((p) => (
          <tr key={p.evalRunId} className="clickable" onClick={() => onOpen(p)}>
            <td>{p.step}</td>
            <td title={p.suite}>{suiteName(p.suite)}</td>
            <td>{formatRate(p.resolvedRate)}</td>
            <td>
              {formatRate(p.ci95[0])} – {formatRate(p.ci95[1])}
            </td>
            <td>{p.tasks}</td>
            <td data-testid="held-out-settings">{p.settings}</td>
            <td className="run-id">{p.evalRunId}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
