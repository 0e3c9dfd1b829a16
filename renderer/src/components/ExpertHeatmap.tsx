import type { PlaygroundToken } from '../../../electron/domain/models';
import { viridis } from './models/logprob-scale';

const CELL = 22;
const STRIP_CELL = 14;

function fill(t: number): string {
  const [r, g, b] = viridis(t);
  return `rgb(${r} ${g} ${b})`;
}

/**
 * Layers (rows) by experts (columns): how much gate weight the chosen tokens sent to each expert, on a
 * viridis scale with its legend and axis titles; under it, a routing strip: for each chosen token, the
 * expert it sent most weight to in each layer. An SVG grid (a small chart: uPlot would add nothing here).
 */
export function ExpertHeatmap({
  tokens,
  numExperts,
}: {
  tokens: (Pick<PlaygroundToken, 'experts' | 'gates'> & { text?: string })[];
  numExperts: number;
}) {
  const layers = tokens[0]?.experts?.length ?? 0;
  const weight = Array.from({ length: layers }, () => new Array<number>(numExperts).fill(0));
  for (const t of tokens)
    t.experts?.forEach((ex, l) => ex.forEach((e, j) => (weight[l]![e]! += t.gates?.[l]?.[j] ?? 1)));
  const max = Math.max(1e-9, ...weight.flat());
  const left = 74;
  const top = 34;
  const gridWidth = numExperts * CELL;
  const legendX = left + gridWidth + 24;
  const height = top + layers * CELL + 30;
  const top1 = (t: Pick<PlaygroundToken, 'experts' | 'gates'>, l: number) => {
    const ex = t.experts?.[l] ?? [];
    const gates = t.gates?.[l] ?? [];
    let best = 0;
    for (let j = 1; j < ex.length; j++) if ((gates[j] ?? 0) > (gates[best] ?? 0)) best = j;
    return ex[best] ?? 0;
  };
  return (
    <figure className="heatmap" data-testid="expert-heatmap">
      <figcaption className="muted">
        Routing of {tokens.length} token{tokens.length === 1 ? '' : 's'}: gate weight per layer and expert
      </figcaption>
      <svg width={legendX + 70} height={height} role="img" aria-label="expert heatmap">
        <text x={left + gridWidth / 2} y={11} textAnchor="middle" className="axis-title">
          expert
        </text>
        {Array.from({ length: numExperts }, (_, e) => (
          <text key={`e${e}`} x={left + e * CELL + CELL / 2} y={top - 6} textAnchor="middle" className="axis-label">
            {e}
          </text>
        ))}
        <text
          x={12}
          y={top + (layers * CELL) / 2}
          textAnchor="middle"
          className="axis-title"
          transform={`rotate(-90 12 ${top + (layers * CELL) / 2})`}
        >
          layer
        </text>
        {weight.map((row, l) => (
          <g key={l}>
            <text x={left - 6} y={top + l * CELL + CELL / 2 + 4} textAnchor="end" className="axis-label">
              {l}
            </text>
            {row.map((w, e) => (
              <rect
                key={e}
                data-layer={l}
                data-expert={e}
                data-weight={w.toFixed(4)}
                x={left + e * CELL}
                y={top + l * CELL}
                width={CELL - 2}
                height={CELL - 2}
                fill={fill(w / max)}
              >
                <title>{`layer ${l}, expert ${e}: gate weight ${w.toFixed(3)} (${((w / max) * 100).toFixed(0)}% of the largest)`}</title>
              </rect>
            ))}
          </g>
        ))}
        <g data-testid="heatmap-scale">
          <defs>
            <linearGradient id="heat-scale" x1="0" x2="0" y1="1" y2="0">
              {Array.from({ length: 9 }, (_, i) => (
                <stop key={i} offset={`${(i / 8) * 100}%`} stopColor={fill(i / 8)} />
              ))}
            </linearGradient>
          </defs>
          <rect x={legendX} y={top} width={12} height={layers * CELL - 2} fill="url(#heat-scale)" />
          <text x={legendX + 16} y={top + 9} className="axis-label">
            {max.toFixed(2)}
          </text>
          <text x={legendX + 16} y={top + layers * CELL - 4} className="axis-label">
            0
          </text>
          <text x={legendX} y={top - 6} className="axis-label">
            weight
          </text>
        </g>
      </svg>
      {tokens.length > 0 && (
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
                  const e = top1(t, l);
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
                      fill={fill(numExperts > 1 ? e / (numExperts - 1) : 0)}
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
      )}
    </figure>
  );
}
