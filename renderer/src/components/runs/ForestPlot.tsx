/**
 * Differences with 95% intervals around a zero line (a forest plot): B − A per category, in points. Text is
 * drawn in the page's text colour (SVG's default black is unreadable on the dark theme).
 */
export interface ForestRow {
  label: string;
  diff: number;
  ci: [number, number];
  note?: string;
}

const ROW = 22;
const LABEL_W = 150;
const PLOT_W = 320;
const AXIS_H = 24;

export function ForestPlot({ rows, title }: { rows: ForestRow[]; title: string }) {
  const extent = Math.max(0.1, ...rows.flatMap((r) => [Math.abs(r.ci[0]), Math.abs(r.ci[1])]));
  const x = (v: number) => LABEL_W + ((v + extent) / (2 * extent)) * PLOT_W;
  const height = rows.length * ROW + AXIS_H;
  const ticks = [-extent, -extent / 2, 0, extent / 2, extent];
  return (
    <figure className="forest-plot" data-testid="forest-plot">
      <figcaption>{title}</figcaption>
      <svg width={LABEL_W + PLOT_W + 60} height={height} role="img" aria-label={title}>
        <line
          x1={x(0)}
          x2={x(0)}
          y1={0}
          y2={rows.length * ROW}
          className="zero"
          stroke="currentColor"
          strokeOpacity={0.6}
        />
        {rows.map((r, i) => {
          const y = i * ROW + ROW / 2;
          const significant = r.ci[0] > 0 || r.ci[1] < 0;
          return (
            <g key={r.label} data-testid="forest-row">
              <title>{`${r.label}: ${(r.diff * 100).toFixed(1)} pp [${(r.ci[0] * 100).toFixed(1)}, ${(r.ci[1] * 100).toFixed(1)}]${r.note ? ` · ${r.note}` : ''}`}</title>
              <text
                x={LABEL_W - 8}
                y={y + 4}
                textAnchor="end"
                fontSize={12}
                fill="currentColor"
                data-testid="forest-label"
              >
                {r.label.length > 22 ? `${r.label.slice(0, 21)}…` : r.label}
              </text>
              <line
                x1={x(r.ci[0])}
                x2={x(r.ci[1])}
                y1={y}
                y2={y}
                stroke={significant ? '#0072b2' : '#888'}
                strokeWidth={2}
              />
              <circle cx={x(r.diff)} cy={y} r={4} fill={significant ? '#0072b2' : '#888'} />
              <text x={LABEL_W + PLOT_W + 6} y={y + 4} fontSize={11} fill="currentColor">
                {`${r.diff >= 0 ? '+' : ''}${(r.diff * 100).toFixed(1)}`}
              </text>
            </g>
          );
        })}
        {ticks.map((t) => (
          <text key={t} x={x(t)} y={rows.length * ROW + 16} textAnchor="middle" fontSize={11} fill="currentColor">
            {`${t > 0 ? '+' : ''}${Math.round(t * 100)}`}
          </text>
        ))}
      </svg>
    </figure>
  );
}
