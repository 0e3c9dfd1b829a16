/**
 * Parallel coordinates across runs (the checked runs, else every run the filter shows): an axis per numeric
 * column of your choosing, then resolved rate and mean reward, each scaled to its own range; a line per run
 * in its colour, its title in the tooltip.
 */
import type { RunListing } from '../../../../electron/domain/runs';
import { runColour } from '../training/palette';
import { formatField } from './run-fields-view';

const W = 640;
const H = 240;
const PAD = { left: 40, right: 40, top: 28, bottom: 24 };
/** Always plotted after the table's added columns. */
const RESULT_AXES = ['summary.resolvedRate', 'summary.meanReward'];

export function parallelAxes(runs: readonly RunListing[], extra: readonly string[]): string[] {
  const numeric = (k: string) => runs.some((r) => typeof r.fields?.[k] === 'number');
  return [...new Set([...extra, ...RESULT_AXES])].filter(numeric);
}

export function RunsParallel({
  runs,
  checked,
  extra,
}: {
  runs: readonly RunListing[];
  checked: readonly string[];
  extra: readonly string[];
}) {
  const picked = checked.length ? runs.filter((r) => checked.includes(r.id)) : runs;
  const axes = parallelAxes(picked, extra);
  const ranges = axes.map((k) => {
    const vs = picked.map((r) => r.fields?.[k]).filter((v): v is number => typeof v === 'number');
    const lo = Math.min(...vs);
    const hi = Math.max(...vs);
    return lo === hi ? [lo - (Math.abs(lo) * 0.5 || 1), hi + (Math.abs(hi) * 0.5 || 1)] : [lo, hi];
  });
  const ax = (i: number) =>
    PAD.left +
    (axes.length > 1 ? (i / (axes.length - 1)) * (W - PAD.left - PAD.right) : (W - PAD.left - PAD.right) / 2);
  const ay = (i: number, v: number) =>
    PAD.top + (1 - (v - ranges[i]![0]!) / (ranges[i]![1]! - ranges[i]![0]!)) * (H - PAD.top - PAD.bottom);
  return (
    <details className="runs-scatter" data-testid="runs-parallel">
      <summary>{`Parallel coordinates of ${checked.length ? `the ${picked.length} checked runs` : `the ${picked.length} shown runs`}`}</summary>
      <p className="muted small">
        Axes: the table’s added numeric columns, then resolved rate and mean reward; each axis spans its own range.
      </p>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        className="runs-scatter-plot"
        role="img"
        aria-label="parallel coordinates of runs"
        data-testid="parallel-plot"
        data-axes={axes.join(' ')}
      >
        {axes.map((k, i) => (
          <g key={k} data-testid="parallel-axis" data-key={k}>
            <line x1={ax(i)} x2={ax(i)} y1={PAD.top} y2={H - PAD.bottom} className="grid-line" />
            <text x={ax(i)} y={PAD.top - 14} textAnchor="middle" className="axis-label axis-title">
              <title>{k}</title>
              {k.split('.').at(-1)}
            </text>
            <text x={ax(i) + 4} y={PAD.top + 4} className="axis-label">
              {formatField(ranges[i]![1])}
            </text>
            <text x={ax(i) + 4} y={H - PAD.bottom + 12} className="axis-label">
              {formatField(ranges[i]![0])}
            </text>
          </g>
        ))}
        {picked.map((r, ri) => {
          const pts = axes.map((k, i) =>
            typeof r.fields?.[k] === 'number' ? `${ax(i).toFixed(1)},${ay(i, r.fields[k]).toFixed(1)}` : null,
          );
          if (pts.some((p) => p === null)) return null;
          return (
            <polyline
              key={r.id}
              points={pts.join(' ')}
              fill="none"
              stroke={runColour(ri)}
              strokeWidth={2}
              data-testid="parallel-line"
              data-run={r.id}
            >
              <title>{`${r.title}\n${axes.map((k) => `${k} ${formatField(r.fields?.[k])}`).join('\n')}`}</title>
            </polyline>
          );
        })}
      </svg>
    </details>
  );
}
