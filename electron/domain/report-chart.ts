/**
 * A report's metric charts: for each chosen metric, a line per training run by step, or with the seeds
 * pooled, one line per group of runs that differ only in seed (their mean over a min..max band,
 * seed-groups.ts). The same SVG is drawn live on the page and written into the exported HTML file, so the
 * file shows what the page showed. Plain SVG: no script, no font or image to fetch.
 */
import { bandOf, type BandPoint } from './seed-groups';
import { escapeXml, niceTicks, OKABE_ITO } from './svg-axes';
import type { SeriesPoints } from './training-metrics';

/** A training run as a report charts it: its id, the name shown, its settings without seeds, its series by metric. */
export interface ReportTrainingRun {
  id: string;
  label: string;
  /** Runs with the same key differ only in seed (TrainingRunSummary.settingsKey); absent: pooled with none. */
  settingsKey?: string;
  series: Record<string, SeriesPoints>;
}

export interface ReportLine {
  label: string;
  /** The runs the line stands for (one, or the runs pooled). */
  runs: string[];
  points: BandPoint[];
}

export interface ReportChart {
  metric: string;
  lines: ReportLine[];
}

/** A metric's lines: a run alone (logged values, its band flat), or runs pooled over seeds (mean, min..max). */
export function reportCharts(
  runs: readonly ReportTrainingRun[],
  metrics: readonly string[],
  poolSeeds: boolean,
): ReportChart[] {
  const groups = new Map<string, ReportTrainingRun[]>();
  for (const r of runs) {
    const key = poolSeeds && r.settingsKey !== undefined ? `settings:${r.settingsKey}` : `run:${r.id}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return metrics.map((metric) => ({
    metric,
    lines: [...groups.values()].flatMap((members) => {
      const having = members.filter((m) => m.series[metric]?.step.length);
      if (!having.length) return [];
      const points = bandOf(having.map((m) => ({ x: m.series[metric]!.step, y: m.series[metric]!.raw })));
      const label =
        having.length === 1
          ? having[0]!.label
          : `${having[0]!.label} +${having.length - 1} (mean of ${having.length}, band min–max)`;
      return [{ label, runs: having.map((m) => m.id), points }];
    }),
  }));
}

const W = 640;
const H = 220;
const M = { left: 56, right: 16, top: 12, bottom: 34 };

const label = (v: number) =>
  Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(1) : String(Number(v.toPrecision(4)));

/**
 * One chart as SVG: x by step, a line per ReportLine over its shaded band where it pools runs, axes with
 * ticks and a legend. Each line is a `polyline.line` with data-points (how many), data-last-step, data-runs.
 */
export function reportChartSvg(chart: ReportChart): string {
  const all = chart.lines.flatMap((l) => l.points);
  if (!all.length)
    return `<svg class="metric-svg" width="${W}" height="40" role="img" aria-label="${escapeXml(chart.metric)}: no data" data-metric="${escapeXml(chart.metric)}"><text x="8" y="24">${escapeXml(chart.metric)}: not logged by these runs yet</text></svg>`;
  const xs = all.map((p) => p.x);
  const ys = all.flatMap((p) => [p.min, p.max]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y1 - y0 < 1e-12) [y0, y1] = [y0 - (Math.abs(y0) * 0.5 || 0.5), y1 + (Math.abs(y1) * 0.5 || 0.5)];
  const px = (x: number) => (M.left + ((x - x0) / (x1 - x0)) * (W - M.left - M.right)).toFixed(1);
  const py = (y: number) => (H - M.bottom - ((y - y0) / (y1 - y0)) * (H - M.top - M.bottom)).toFixed(1);
  const height = H + 16 * chart.lines.length;
  const parts = [
    `<svg class="metric-svg" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="${escapeXml(chart.metric)} by step" data-metric="${escapeXml(chart.metric)}" font-family="system-ui, sans-serif" font-size="11">`,
  ];
  for (const t of niceTicks(y0, y1))
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${py(t)}" y2="${py(t)}" stroke="#e3e6ec"/><text x="${M.left - 6}" y="${Number(py(t)) + 4}" text-anchor="end" fill="#667085">${label(t)}</text>`,
    );
  for (const t of niceTicks(x0, x1).filter(Number.isInteger))
    parts.push(`<text x="${px(t)}" y="${H - M.bottom + 14}" text-anchor="middle" fill="#667085">${t}</text>`);
  parts.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 4}" text-anchor="middle" fill="#667085">step</text>`);
  chart.lines.forEach((l, i) => {
    const colour = OKABE_ITO[i % OKABE_ITO.length]!;
    const pooled = l.runs.length > 1;
    if (pooled && l.points.length > 1) {
      const upper = l.points.map((p) => `${px(p.x)},${py(p.max)}`);
      const lower = l.points.map((p) => `${px(p.x)},${py(p.min)}`).reverse();
      parts.push(
        `<polygon class="band" points="${[...upper, ...lower].join(' ')}" fill="${colour}" fill-opacity="0.18" stroke="none" data-runs="${escapeXml(l.runs.join(' '))}"/>`,
      );
    }
    const pts = l.points.map((p) => `${px(p.x)},${py(p.mean)}`).join(' ');
    const lastStep = l.points.at(-1)!.x;
    parts.push(
      `<polyline class="line" points="${pts}" fill="none" stroke="${colour}" stroke-width="2" data-points="${l.points.length}" data-last-step="${lastStep}" data-runs="${escapeXml(l.runs.join(' '))}"/>`,
    );
    if (l.points.length === 1)
      parts.push(`<circle cx="${px(l.points[0]!.x)}" cy="${py(l.points[0]!.mean)}" r="3" fill="${colour}"/>`);
    const ly = H + 10 + 16 * i;
    parts.push(
      `<rect x="${M.left}" y="${ly - 8}" width="14" height="4" fill="${colour}"/><text x="${M.left + 20}" y="${ly}" fill="#344054">${escapeXml(l.label)} · last ${label(l.points.at(-1)!.mean)} at step ${lastStep}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
