/** A small SVG bar chart of rates in [0, 1] with 95% interval whiskers (results by category / difficulty). */
export interface IntervalBar {
  label: string;
  value: number;
  ci: [number, number];
  /** Shown under the label, e.g. "4 tasks". */
  note?: string;
}

const BAR = 28;
const GAP = 14;
const HEIGHT = 160;
const LEFT = 34;
const BOTTOM = 44;
/** Labels longer than this are cut with an ellipsis (the full label is in the bar's tooltip). */
const MAX_LABEL_CHARS = 14;
/** Approximate width of one axis-label character, px: each bar's slot is wide enough for its label. */
const LABEL_CHAR_PX = 6.5;

function shortLabel(label: string): string {
  return label.length > MAX_LABEL_CHARS ? `${label.slice(0, MAX_LABEL_CHARS - 1)}…` : label;
}

export function IntervalBars({ bars, title }: { bars: IntervalBar[]; title: string }) {
  const longest = Math.max(0, ...bars.map((b) => Math.max(shortLabel(b.label).length, b.note?.length ?? 0)));
  const slot = Math.max(BAR + GAP, Math.ceil(longest * LABEL_CHAR_PX) + 8);
  const width = LEFT + bars.length * slot + GAP;
  const y = (v: number) => 8 + (1 - v) * (HEIGHT - 8);
  return (
    <figure className="interval-bars">
      <figcaption>{title}</figcaption>
      <svg width={width} height={HEIGHT + BOTTOM} role="img" aria-label={title}>
        {[0, 0.25, 0.5, 0.75, 1].map((t) => (
          <g key={t}>
            <line x1={LEFT - 4} x2={width} y1={y(t)} y2={y(t)} className="gridline" />
            <text x={LEFT - 6} y={y(t) + 4} textAnchor="end" className="axis">
              {Math.round(t * 100)}
            </text>
          </g>
        ))}
        {bars.map((b, i) => {
          const x = LEFT + GAP / 2 + i * slot + (slot - BAR) / 2;
          const mid = x + BAR / 2;
          return (
            <g key={b.label} data-testid="interval-bar" data-label={b.label} data-value={b.value.toFixed(4)} data-lo={b.ci[0].toFixed(4)} data-hi={b.ci[1].toFixed(4)}>
              <title>{`${b.label}: ${(b.value * 100).toFixed(1)}% (95% CI ${(b.ci[0] * 100).toFixed(1)}–${(b.ci[1] * 100).toFixed(1)}%)`}</title>
              <rect x={x} y={y(b.value)} width={BAR} height={Math.max(0, y(0) - y(b.value))} className="bar" />
              <line x1={mid} x2={mid} y1={y(b.ci[1])} y2={y(b.ci[0])} className="whisker" />
              <line x1={mid - 6} x2={mid + 6} y1={y(b.ci[1])} y2={y(b.ci[1])} className="whisker" />
              <line x1={mid - 6} x2={mid + 6} y1={y(b.ci[0])} y2={y(b.ci[0])} className="whisker" />
              <text x={mid} y={HEIGHT + 14} textAnchor="middle" className="axis">
                {shortLabel(b.label)}
              </text>
              {b.note && (
                <text x={mid} y={HEIGHT + 28} textAnchor="middle" className="axis muted">
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
