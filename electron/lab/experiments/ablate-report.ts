/** report.md and report.html of an ablation: the same tables in both, plus SVG learning curves in the HTML. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeStats } from '../runs/stats';
import { compareRuns } from '../stats/compare';
import { guardFlags, metricSeries, pooledEpisodes, readMetrics, seedBand, tailMean } from './cell-results';
import { cellLabel, cellName, type Cell, type GridAxis } from './grid';
import { svgLineChart } from './svg-chart';
import { formatPoints, formatRate } from '../../domain/rates';
import { escapeXml } from '../../domain/svg-axes';

export interface CellReport {
  cell: Cell;
  name: string;
  seeds: { seed: number; trainDir: string; checkpoint: string; evals: Record<string, string> }[];
}

export interface SuiteRow {
  cell: string;
  suite: string;
  tasks: number;
  resolvedRate: number;
  ci95: [number, number];
  meanReward: number;
  vsBaseline: { diff: number; ci95: [number, number]; p: number | null } | null;
}

const num = (x: number | null) => (x === null ? '—' : x < 1e-3 ? x.toExponential(2) : x.toFixed(4));

function markdownTable(rows: string[][]): string {
  return [
    `| ${rows[0]!.join(' | ')} |`,
    `|${rows[0]!.map(() => '---').join('|')}|`,
    ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

function htmlTable(rows: string[][]): string {
  return `<table><thead><tr>${rows[0]!.map((c) => `<th>${escapeXml(c)}</th>`).join('')}</tr></thead><tbody>${rows
    .slice(1)
    .map((r) => `<tr>${r.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function suiteRows(cells: readonly CellReport[], baseline: Cell): SuiteRow[] {
  const baseName = cellName(baseline);
  const base = cells.find((c) => c.name === baseName);
  const suites = [...new Set(cells.flatMap((c) => c.seeds.flatMap((s) => Object.keys(s.evals))))].sort();
  const rows: SuiteRow[] = [];
  for (const suite of suites) {
    const baseEpisodes = base ? pooledEpisodes(base.seeds.map((s) => s.evals[suite]!).filter(Boolean)) : [];
    for (const c of cells) {
      const episodes = pooledEpisodes(c.seeds.map((s) => s.evals[suite]!).filter(Boolean));
      const stats = computeStats(episodes);
      const cmp =
        c.name !== baseName && baseEpisodes.length
          ? compareRuns({ run: baseName, episodes: baseEpisodes }, { run: c.name, episodes }, { resamples: 4000 })
          : null;
      rows.push({
        cell: c.name,
        suite,
        tasks: stats.tasks,
        resolvedRate: stats.resolvedRate,
        // The task bootstrap collapses to a point when every task has the same outcome (0 of 40 gives
        // [0, 0]); Wilson over tasks still says what 20 tasks can rule out.
        ci95: stats.ci95Bootstrap && stats.ci95Bootstrap[1] > stats.ci95Bootstrap[0] ? stats.ci95Bootstrap : stats.ci95,
        meanReward: stats.meanReward,
        vsBaseline: cmp ? { diff: cmp.diff, ci95: cmp.diffCi95, p: cmp.test.p } : null,
      });
    }
  }
  return rows;
}

export function writeAblationReport(
  out: string,
  axes: readonly GridAxis[],
  baseline: Cell,
  cells: readonly CellReport[],
): { markdown: string; html: string } {
  const rows = suiteRows(cells, baseline);
  const gapRows: string[][] = [
    ['cell', 'seeds', 'train-infer gap (R3)', 'train-infer gap (free)', 'final reward', 'flagged assertions'],
  ];
  const curves: Record<string, { label: string; points: ReturnType<typeof seedBand> }[]> = {
    reward_dense: [],
    resolved: [],
  };
  for (const c of cells) {
    const metrics = c.seeds.map((s) => readMetrics(s.trainDir));
    const mean = (xs: (number | null)[]) => {
      const ok = xs.filter((x): x is number => x !== null);
      return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : null;
    };
    const flags = [...new Set(c.seeds.flatMap((s) => guardFlags(s.trainDir)))];
    gapRows.push([
      cellLabel(c.cell),
      String(c.seeds.length),
      num(mean(metrics.map((m) => tailMean(m, 'train_infer_gap_r3')))),
      num(mean(metrics.map((m) => tailMean(m, 'train_infer_gap_free')))),
      num(mean(metrics.map((m) => tailMean(m, 'reward_dense', 5)))),
      flags.length ? flags.join(', ') : 'none',
    ]);
    for (const key of Object.keys(curves))
      curves[key]!.push({ label: cellLabel(c.cell), points: seedBand(metrics.map((m) => metricSeries(m, key))) });
  }
  const resultRows: string[][] = [
    ['cell', 'suite', 'tasks', 'resolved', '95% CI', 'mean reward', 'vs baseline', '95% CI', 'p (McNemar)'],
  ];
  for (const r of rows) {
    resultRows.push([
      r.cell,
      r.suite,
      String(r.tasks),
      formatRate(r.resolvedRate),
      `[${formatRate(r.ci95[0])}, ${formatRate(r.ci95[1])}]`,
      r.meanReward.toFixed(2),
      r.vsBaseline ? formatPoints(r.vsBaseline.diff) : 'baseline',
      r.vsBaseline ? `[${formatPoints(r.vsBaseline.ci95[0])}, ${formatPoints(r.vsBaseline.ci95[1])}]` : '',
      r.vsBaseline?.p === null || r.vsBaseline === null
        ? ''
        : r.vsBaseline.p < 0.001
          ? r.vsBaseline.p.toExponential(1)
          : r.vsBaseline.p.toFixed(3),
    ]);
  }
  const seeds = Math.max(0, ...cells.map((c) => c.seeds.length));
  const intro = `Grid: ${axes.map((a) => `${a.key} = ${a.values.join(' | ')}`).join('; ')}. Baseline cell: ${cellLabel(baseline)}. ${seeds} seed(s) per cell; every cell starts from the same config and checkpoint.`;
  const method =
    'Resolved rates pool the seeds (a seed is one attempt per task); intervals resample tasks with their attempts together (Wilson over tasks where every task has the same outcome and the bootstrap has no width). Each cell is compared with the baseline on the same tasks: paired bootstrap of the difference and McNemar exact on (task, seed) pairs. The train-inference gap is the mean |logp_trainer − logp_sampler| over loss tokens, averaged over the last 10 steps.';
  const markdown = [
    '# Ablation report',
    '',
    intro,
    '',
    '## Final resolved rates',
    '',
    markdownTable(resultRows),
    '',
    '## Training: train-inference gap, final reward, dense-reward guard',
    '',
    markdownTable(gapRows),
    '',
    '## Learning curves',
    '',
    'See report.html (mean over seeds with the seeds’ min..max band), or each cell’s `train/metrics.jsonl`.',
    '',
    method,
    '',
  ].join('\n');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Ablation report</title><style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;color:#222}
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px;text-align:left}th{background:#f3f3f3}
.charts{display:flex;flex-wrap:wrap;gap:16px}
</style></head><body><h1>Ablation report</h1><p>${escapeXml(intro)}</p>
<h2>Learning curves</h2><div class="charts">${svgLineChart('reward_dense by step', curves.reward_dense!, { x: 'step', y: 'mean dense reward' })}${svgLineChart('resolved by step', curves.resolved!, { x: 'step', y: 'resolved share' })}</div>
<h2>Final resolved rates</h2>${htmlTable(resultRows)}
<h2>Training: train-inference gap, final reward, dense-reward guard</h2>${htmlTable(gapRows)}
<p>${escapeXml(method)}</p></body></html>
`;
  const mdPath = join(out, 'report.md');
  const htmlPath = join(out, 'report.html');
  writeFileSync(mdPath, markdown);
  writeFileSync(htmlPath, html);
  return { markdown: mdPath, html: htmlPath };
}
