import { topExpert, viridisFill, type RoutedToken } from './expert-routing';

/** The side of a strip cell, in pixels (smaller than the heatmap's: a cell per token). */
const STRIP_CELL = 14;

/**
 * Under the expert heatmap: for each token (columns) and layer (rows), the expert it sent the most gate weight
 * to, coloured by the expert's number. `left` lines its cells up with the heatmap's grid.
 */
export function RoutingStrip({
  tokens,
  layers,
  numExperts,
  left,
}: {
  tokens: readonly (RoutedToken & { text?: string })[];
  layers: number;
  numExperts: number;
  left: number;
}) {
  return (
    <div className="routing-strip" data-testid="routing-strip">
      <div className="muted small">Routing strip: the top expert of each token, per layer (colour = expert)</div>
      <svg
        width={left + tokens.length * STRIP_CELL + 4}
        height={layers * STRIP_CELL + 18}
        role="img"
        aria-label="per-token routing strip"
      >
        {Array.from({ length: layers }, (_, l) => (
          <g key={l}>
            <text x={left - 6} y={l * STRIP_CELL + STRIP_CELL - 3} textAnchor="end" className="axis-label">
              layer {l}
            </text>
            {tokens.map((t, i) => {
              const e = topExpert(t, l);
              return (
                <rect
                  key={i}
                  data-token={i}
                  data-layer={l}
                  data-expert={e}
                  x={left + i * STRIP_CELL}
                  y={l * STRIP_CELL}
                  width={STRIP_CELL - 1}
                  height={STRIP_CELL - 1}
                  fill={viridisFill(numExperts > 1 ? e / (numExperts - 1) : 0)}
                >
                  <title>{`token ${i} ${JSON.stringify(t.text)}, layer ${l}: expert ${e}`}</title>
                </rect>
              );
            })}
          </g>
        ))}
        <text x={left} y={layers * STRIP_CELL + 13} className="axis-label">
          tokens →
        </text>
      </svg>
    </div>
  );
}
