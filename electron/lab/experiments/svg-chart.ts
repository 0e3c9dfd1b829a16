/**
 * Static SVG line charts for reports (report.html opens anywhere, no script): one line per series with a
 * shaded band (seed min..max), axes with ticks, a legend. Colours: Okabe-Ito, safe for colour-blind readers.
 */
import { escapeXml, niceTicks, OKABE_ITO } from '../../domain/svg-axes';

export interface ChartPoint {
  x: number;
  y: number;
  lo?: number;
  hi?: number;
}

export interface ChartSeries {
  label: string;
  points: ChartPoint[];
}

const W = 640;
const H = 300;
const M = { left: 56, right: 16, top: 28, bottom: 40 };

export function svgLineChart(title: string, series: readonly ChartSeries[], axes: { x: string; y: string }): string {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0)
    return `<svg width="${W}" height="60" role="img"><text x="8" y="30">${escapeXml(title)}: no data</text></svg>`;
  const xs = all.map((p) => p.x);
  const ys = all.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y1 - y0 < 1e-9) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const px = (x: number) => M.left + ((x - x0) / (x1 - x0)) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - ((y - y0) / (y1 - y0)) * (H - M.top - M.bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 18 * series.length}" role="img" aria-label="${escapeXml(title)}" font-family="sans-serif" font-size="11">`,
  ];
  parts.push(`<text x="${M.left}" y="16" font-size="13" font-weight="bold">${escapeXml(title)}</text>`);
  for (const t of niceTicks(y0, y1)) {
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${py(t)}" y2="${py(t)}" stroke="#ddd"/><text x="${M.left - 6}" y="${py(t) + 4}" text-anchor="end">${t}</text>`,
    );
  }
  for (const t of niceTicks(x0, x1))
    parts.push(`<text x="${px(t)}" y="${H - M.bottom + 16}" text-anchor="middle">${t}</text>`);
  parts.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 6}" text-anchor="middle">${escapeXml(axes.x)}</text>`);
  parts.push(
    `<text transform="translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(axes.y)}</text>`,
  );
  series.forEach((s, i) => {
    const colour = OKABE_ITO[i % OKABE_ITO.length]!;
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    const banded = pts.filter((p) => p.lo !== undefined && p.hi !== undefined);
    if (banded.length > 1) {
      const upper = banded.map((p) => `${px(p.x)},${py(p.hi!)}`);
      const lower = banded.map((p) => `${px(p.x)},${py(p.lo!)}`).reverse();
      parts.push(
        `<polygon points="${[...upper, ...lower].join(' ')}" fill="${colour}" fill-opacity="0.15" stroke="none"/>`,
      );
    }
    parts.push(
      `<polyline points="${pts.map((p) => `${px(p.x)},${py(p.y)}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="2"/>`,
    );
    const ly = H + 12 + 18 * i;
    parts.push(
      `<rect x="${M.left}" y="${ly - 9}" width="14" height="4" fill="${colour}"/><text x="${M.left + 20}" y="${ly}">${escapeXml(s.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
