/**
 * A small SVG bar chart of rates in [0, 1] with 95% interval whiskers (results by category / difficulty):
 * a % axis, each bar's value written above it, a visible sliver for 0%, and full labels (rotated when
 * they would not fit under their bar). The tooltip of each bar gives the value and its interval.
 */
export interface IntervalBar {
  label: string;
  value: number;
  ci: [number, number];
  /** Shown under the label, e.g. "4 tasks". */
  note?: string;
}

const BAR = 28;
const SLOT = 48;
const HEIGHT = 160;
const TOP = 16;
const LEFT = 40;
/** Approximate width of one axis-label character, px. */
const LABEL_CHAR_PX = 6.2;
/** Height drawn for a 0% bar, so that "nothing resolved" is seen rather than read as missing. */
const ZERO_BAR_PX = 2;

const pct = (v: number) => `${(v * 100).toFixed(v === 0 || v === 1 ? 0 : 1)}%`;

export function IntervalBars({ bars, title }: { bars: IntervalBar[]; title: string }) {
  const longest = Math.max(0, ...bars.map((b) => b.label.length));
  // Labels wider than their slot are rotated; the space under the chart grows to hold them.
  const rotate = longest * LABEL_CHAR_PX > SLOT - 4;
  const labelDepth = rotate ? Math.ceil(longest * LABEL_CHAR_PX * 0.72) + 14 : 16;
  const bottom = labelDepth + 18;
  const width = LEFT + bars.length * SLOT + (rotate ? Math.ceil(longest * LABEL_CHAR_PX * 0.5) : 8);
  const y = (v: number) => TOP + (1 - v) * (HEIGHT - TOP);
  return (
    <figure className="interval-bars">
      <figcaption>{title}</figcaption>
      <svg width={width} height={HEIGHT + bottom} role="img" aria-label={title}>
        {[0, 0.25, 0.5, 0.75, 1].map((t) => (
          <g key={t}>
            <line x1={LEFT - 4} x2={width} y1={y(t)} y2={y(t)} className="gridline" />
            <text x={LEFT - 6} y={y(t) + 4} textAnchor="end" className="axis">
              {Math.round(t * 100)}%
            </text>
          </g>
        ))}
        {bars.map((b, i) => {
          const x = LEFT + i * SLOT + (SLOT - BAR) / 2;
          const mid = x + BAR / 2;
          const h = Math.max(ZERO_BAR_PX, y(0) - y(b.value));
          const labelY = HEIGHT + 14;
          return (
            <g
              key={b.label}
              data-testid="interval-bar"
              data-label={b.label}
              data-value={b.value.toFixed(4)}
              data-lo={b.ci[0].toFixed(4)}
              data-hi={b.ci[1].toFixed(4)}
            >
              <title>{`${b.label}: ${pct(b.value)} resolved (95% CI ${pct(b.ci[0])}–${pct(b.ci[1])})${b.note ? `, ${b.note}` : ''}`}</title>
              <rect x={x} y={y(0) - h} width={BAR} height={h} className={b.value === 0 ? 'bar zero' : 'bar'} />
              <line x1={mid} x2={mid} y1={y(b.ci[1])} y2={y(b.ci[0])} className="whisker" />
              <line x1={mid - 6} x2={mid + 6} y1={y(b.ci[1])} y2={y(b.ci[1])} className="whisker" />
              <line x1={mid - 6} x2={mid + 6} y1={y(b.ci[0])} y2={y(b.ci[0])} className="whisker" />
              <text x={mid} y={Math.max(10, y(b.ci[1]) - 4)} textAnchor="middle" className="value-label">
                {pct(b.value)}
              </text>
              {rotate ? (
                <text x={mid} y={labelY} textAnchor="end" className="axis" transform={`rotate(-40 ${mid} ${labelY})`}>
                  {b.label}
                </text>
              ) : (
                <text x={mid} y={labelY} textAnchor="middle" className="axis">
                  {b.label}
                </text>
              )}
              {b.note && (
                <text x={mid} y={HEIGHT + labelDepth + 14} textAnchor="middle" className="axis note">
                  {b.note}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
