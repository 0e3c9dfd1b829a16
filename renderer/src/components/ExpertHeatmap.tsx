import type { PlaygroundToken } from '../../../electron/domain/models';

const CELL = 22;

/**
 * Layers (rows) by experts (columns): how much gate weight the chosen tokens sent to each expert. An SVG
 * grid (a small chart: uPlot would add nothing here).
 */
export function ExpertHeatmap({ tokens, numExperts }: { tokens: Pick<PlaygroundToken, 'experts' | 'gates'>[]; numExperts: number }) {
  const layers = tokens[0]?.experts?.length ?? 0;
  const weight = Array.from({ length: layers }, () => new Array<number>(numExperts).fill(0));
  for (const t of tokens) t.experts?.forEach((ex, l) => ex.forEach((e, j) => (weight[l]![e]! += t.gates?.[l]?.[j] ?? 1)));
  const max = Math.max(1e-9, ...weight.flat());
  const left = 60;
  const top = 18;
  return (
    <figure className="heatmap" data-testid="expert-heatmap">
      <figcaption className="muted">
        Routing of {tokens.length} token{tokens.length === 1 ? '' : 's'}: gate weight per layer and expert
      </figcaption>
      <svg width={left + numExperts * CELL + 4} height={top + layers * CELL + 4} role="img" aria-label="expert heatmap">
        {Array.from({ length: numExperts }, (_, e) => (
          <text key={`e${e}`} x={left + e * CELL + CELL / 2} y={12} textAnchor="middle" fontSize={10} fill="currentColor">
            {e}
          </text>
        ))}
        {weight.map((row, l) => (
          <g key={l}>
            <text x={left - 6} y={top + l * CELL + CELL / 2 + 4} textAnchor="end" fontSize={10} fill="currentColor">
              layer {l}
            </text>
            {row.map((w, e) => (
              <rect key={e} data-layer={l} data-expert={e} data-weight={w.toFixed(4)} x={left + e * CELL} y={top + l * CELL} width={CELL - 2} height={CELL - 2} fill={`rgba(95, 168, 255, ${(w / max).toFixed(3)})`} stroke="#262b36">
                <title>{`layer ${l}, expert ${e}: ${w.toFixed(3)}`}</title>
              </rect>
            ))}
          </g>
        ))}
      </svg>
    </figure>
  );
}
