/**
 * One run field against another across runs (the checked runs, else every run the filter shows): a point
 * per run, its title in the tooltip, a click opens it. Any numeric setting or result can be either axis
 * (`config.policySettings.temperature` against `summary.resolvedRate`).
 */
import { useState } from 'react';
import type { RunListing } from '../../../../electron/domain/runs';
import { runColour } from '../training/palette';
import { formatField, numericKeys } from './run-fields-view';

const W = 520;
const H = 260;
const PAD = { left: 56, right: 14, top: 12, bottom: 40 };

function extent(values: number[]): [number, number] {
  if (!values.length) return [0, 1];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (lo === hi) return [lo - (Math.abs(lo) * 0.5 || 1), hi + (Math.abs(hi) * 0.5 || 1)];
  const pad = (hi - lo) * 0.06;
  return [lo - pad, hi + pad];
}

export function RunsScatter({
  runs,
  checked,
  onPick,
}: {
  runs: readonly RunListing[];
  checked: readonly string[];
  onPick: (runId: string) => void;
}) {
  const keys = numericKeys(runs);
  const [xKey, setX] = useState('summary.meanTurns');
  const [yKey, setY] = useState('summary.resolvedRate');
  const picked = checked.length ? runs.filter((r) => checked.includes(r.id)) : runs;
  const points = picked
    .map((r) => ({ run: r, x: r.fields?.[xKey], y: r.fields?.[yKey] }))
    .filter((p): p is { run: RunListing; x: number; y: number } => typeof p.x === 'number' && typeof p.y === 'number');
  const [x0, x1] = extent(points.map((p) => p.x));
  const [y0, y1] = extent(points.map((p) => p.y));
  const sx = (v: number) => PAD.left + ((v - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (v: number) => PAD.top + (1 - (v - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  const axis = (value: string, set: (k: string) => void, testid: string) => (
    <select value={value} onChange={(e) => set(e.target.value)} data-testid={testid}>
      {[...new Set([value, ...keys])].map((k) => (
        <option key={k} value={k}>
          {k}
        </option>
      ))}
    </select>
  );
  return (
    <details className="runs-scatter" data-testid="runs-scatter">
      <summary>{`Scatter of ${checked.length ? `the ${picked.length} checked runs` : `the ${picked.length} shown runs`}`}</summary>
      <div className="toolbar">
        <label>x {axis(xKey, setX, 'scatter-x')}</label>
        <label>y {axis(yKey, setY, 'scatter-y')}</label>
        <span className="muted small">{`${points.length} of ${picked.length} runs have both`}</span>
      </div>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        className="runs-scatter-plot"
        role="img"
        aria-label={`${yKey} against ${xKey}`}
        data-testid="scatter-plot"
        data-points={points.length}
      >
        <line x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} className="grid-line" />
        <line x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={H - PAD.bottom} className="grid-line" />
        {[x0, (x0 + x1) / 2, x1].map((v, i) => (
          <text key={`x${i}`} x={sx(v)} y={H - PAD.bottom + 14} textAnchor="middle" className="axis-label">
            {formatField(v)}
          </text>
        ))}
        {[y0, (y0 + y1) / 2, y1].map((v, i) => (
          <text key={`y${i}`} x={PAD.left - 6} y={sy(v) + 4} textAnchor="end" className="axis-label">
            {formatField(v)}
          </text>
        ))}
        <text x={(PAD.left + W - PAD.right) / 2} y={H - 6} textAnchor="middle" className="axis-label axis-title">
          {xKey}
        </text>
        <text
          x={12}
          y={(PAD.top + H - PAD.bottom) / 2}
          textAnchor="middle"
          transform={`rotate(-90 12 ${(PAD.top + H - PAD.bottom) / 2})`}
          className="axis-label axis-title"
        >
          {yKey}
        </text>
        {points.map((p, i) => (
          <circle
            key={p.run.id}
            cx={sx(p.x)}
            cy={sy(p.y)}
            r={5}
            fill={runColour(i)}
            className="clickable"
            onClick={() => onPick(p.run.id)}
            data-testid="scatter-point"
            data-run={p.run.id}
            data-x={p.x}
            data-y={p.y}
          >
            <title>{`${p.run.title}\n${xKey} ${formatField(p.x)} · ${yKey} ${formatField(p.y)}`}</title>
          </circle>
        ))}
      </svg>
    </details>
  );
}
