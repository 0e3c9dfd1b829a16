/**
 * A report of chosen runs as one HTML file that opens offline: a title, the researcher's notes (Markdown:
 * headings, paragraphs, lists, emphasis, code, links as text), the training runs' metric charts by step
 * (report-chart.ts: pooled over seeds when asked, mean over a min..max band), a table of the evaluation
 * runs with the table's columns of your choosing, and a bar chart of their resolved rates with 95%
 * intervals, as inline SVG. Nothing is fetched: no script, no external style, font or image. The Runs
 * page's report and `t1lab runs report` both write it.
 */
import type { RunListing } from './runs';
import { formatField } from './run-fields';
import { reportChartSvg, type ReportChart } from './report-chart';
import { escapeXml } from './svg-axes';

export interface ReportInput {
  title: string;
  notes: string;
  runs: readonly RunListing[];
  /** Run field keys shown as extra columns (`config.seed`, `summary.meanTurns`). */
  columns: readonly string[];
  generatedAt: string;
  /** The training runs' metric charts (absent or empty: no such section). */
  charts?: readonly ReportChart[];
}

/** Inline Markdown: `code`, **strong**, *em*, [text](url) kept as text with its address. */
function inline(text: string): string {
  return escapeXml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\*([^*]+)\*/g, '<em>$1</em>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '$1 ($2)');
}

/** Block Markdown: # headings (shifted under the report's title), - / 1. lists, paragraphs. */
export function markdownToHtml(md: string): string {
  const out: string[] = [];
  let list: 'ul' | 'ol' | null = null;
  let para: string[] = [];
  const flush = () => {
    if (para.length) out.push(`<p>${inline(para.join(' '))}</p>`);
    para = [];
  };
  const close = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (const line of md.split('\n')) {
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const item = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      close();
      const level = Math.min(6, heading[1]!.length + 1);
      out.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
    } else if (item) {
      flush();
      const kind = /\d/.test(item[1]!) ? 'ol' : 'ul';
      if (list !== kind) {
        close();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline(item[2]!)}</li>`);
    } else if (!line.trim()) {
      flush();
      close();
    } else {
      close();
      para.push(line.trim());
    }
  }
  flush();
  close();
  return out.join('\n');
}

/** Wilson's 95% interval of a share (resolved episodes of a run). */
function wilson(k: number, n: number): [number, number] {
  if (!n) return [0, 0];
  const z = 1.96;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = (p + (z * z) / (2 * n)) / d;
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

export function resolvedChart(runs: readonly RunListing[]): string {
  const row = 26;
  const left = 220;
  const width = 640;
  const barW = width - left - 60;
  const h = runs.length * row + 30;
  const x = (v: number) => left + v * barW;
  const bars = runs.map((r, i) => {
    const y = 10 + i * row;
    const rate = r.resolvedRate ?? 0;
    const [lo, hi] = wilson(Math.round(rate * r.done), r.done);
    return `<g class="bar" data-run="${escapeXml(r.id)}"><text x="${left - 8}" y="${y + 14}" text-anchor="end">${escapeXml(r.title.length > 32 ? `${r.title.slice(0, 31)}…` : r.title)}</text><rect x="${left}" y="${y + 3}" width="${(rate * barW).toFixed(1)}" height="14" /><line x1="${x(lo).toFixed(1)}" x2="${x(hi).toFixed(1)}" y1="${y + 10}" y2="${y + 10}" class="ci" /><text x="${(x(Math.max(rate, hi)) + 6).toFixed(1)}" y="${y + 14}">${r.resolvedRate === null ? '—' : `${(rate * 100).toFixed(1)}%`}</text></g>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map(
    (t) =>
      `<line x1="${x(t)}" x2="${x(t)}" y1="6" y2="${h - 18}" class="grid" /><text x="${x(t)}" y="${h - 4}" text-anchor="middle">${t * 100}%</text>`,
  );
  return `<svg class="chart" viewBox="0 0 ${width} ${h}" width="${width}" height="${h}" role="img" aria-label="resolved rate by run, with 95% intervals">${ticks.join('')}${bars.join('')}</svg>`;
}

const STYLE = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:24px auto;max-width:980px;padding:0 16px;color:#1c2230}
h1{font-size:22px;margin:0 0 4px}.meta{color:#667085;font-size:12px;margin-bottom:16px}
table{border-collapse:collapse;width:100%;font-size:12px;margin:8px 0 16px}th,td{border-bottom:1px solid #e3e6ec;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f5f6f8}
td.num{text-align:right;font-variant-numeric:tabular-nums}code{background:#f1f2f5;padding:0 3px;border-radius:3px}
.metric-svg{display:block;margin:6px 0 12px;max-width:100%;height:auto}.chart text{font-size:11px;fill:#344054}.chart rect{fill:#0072B2}.chart .ci{stroke:#1c2230;stroke-width:1.5}.chart .grid{stroke:#e3e6ec}`;

export function reportHtml(input: ReportInput): string {
  const { runs, columns } = input;
  const charts = input.charts ?? [];
  const trainingRuns = new Set(charts.flatMap((c) => c.lines.flatMap((l) => l.runs))).size;
  const head = ['run', 'id', 'policy', 'suite', 'started', 'episodes', 'resolved', 'mean reward', ...columns];
  const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
  const rows = runs.map((r) =>
    [
      `<td>${escapeXml(r.title)}</td>`,
      `<td><code>${escapeXml(r.id)}</code></td>`,
      `<td>${escapeXml(r.policy)}</td>`,
      `<td>${escapeXml(r.suite)}</td>`,
      `<td>${escapeXml(r.createdAt)}</td>`,
      `<td class="num">${r.done}/${r.total}</td>`,
      `<td class="num">${pct(r.resolvedRate)}</td>`,
      `<td class="num">${r.meanReward === null ? '—' : r.meanReward.toFixed(2)}</td>`,
      ...columns.map((k) => `<td class="num">${escapeXml(formatField(r.fields?.[k]))}</td>`),
    ].join(''),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(input.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeXml(input.title)}</h1>
<div class="meta">T1 Lab report · ${runs.length} evaluation run${runs.length === 1 ? '' : 's'}${trainingRuns ? ` · ${trainingRuns} training run${trainingRuns === 1 ? '' : 's'}` : ''} · ${escapeXml(input.generatedAt)}</div>
<section class="notes">${markdownToHtml(input.notes)}</section>
${charts.length ? `<h2>Training metrics</h2>\n${charts.map((c) => `<h3>${escapeXml(c.metric)}</h3>\n${reportChartSvg(c)}`).join('\n')}` : ''}
${
  runs.length
    ? `<h2>Resolved rate</h2>
${resolvedChart(runs)}
<h2>Runs</h2>
<table class="runs"><thead><tr>${head.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r}</tr>`).join('\n')}</tbody></table>`
    : ''
}
</body></html>
`;
}
