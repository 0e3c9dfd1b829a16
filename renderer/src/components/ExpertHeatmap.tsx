import { gateWeights, viridisFill, type RoutedToken } from './expert-routing';
import { RoutingStrip } from './RoutingStrip';

/** The side of a heatmap cell, in pixels. */
const CELL = 22;
/** Where the grid starts: room for the layer labels on the left and the expert labels above. */
const LEFT = 74;
const TOP = 34;
/** Stops of the legend's gradient (the viridis scale sampled evenly). */
const SCALE_STOPS = 9;

/** Where the grid and its legend sit in the SVG. */
interface HeatmapLayout {
  layers: number;
  numExperts: number;
  gridWidth: number;
  legendX: number;
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
  tokens: (RoutedToken & { text?: string })[];
  numExperts: number;
}) {
  const weight = gateWeights(tokens, numExperts);
  const max = Math.max(1e-9, ...weight.flat());
  const gridWidth = numExperts * CELL;
  const layout: HeatmapLayout = { layers: weight.length, numExperts, gridWidth, legendX: LEFT + gridWidth + 24 };
  return (
    <figure className="heatmap" data-testid="expert-heatmap">
      <figcaption className="muted">
        Routing of {tokens.length} token{tokens.length === 1 ? '' : 's'}: gate weight per layer and expert
      </figcaption>
      <svg width={layout.legendX + 70} height={TOP + layout.layers * CELL + 30} role="img" aria-label="expert heatmap">
        <HeatmapAxes layout={layout} />
        {weight.map((row, l) => (
          <HeatmapRow key={l} layer={l} row={row} max={max} />
        ))}
        <HeatmapScale layout={layout} max={max} />
      </svg>
      {tokens.length > 0 && <RoutingStrip tokens={tokens} layers={layout.layers} numExperts={numExperts} left={LEFT} />}
    </figure>
  );
}

/** The axis titles and the experts' labels above the grid. */
function HeatmapAxes({ layout }: { layout: HeatmapLayout }) {
  const middle = TOP + (layout.layers * CELL) / 2;
  return (
    <>
      <text x={LEFT + layout.gridWidth / 2} y={11} textAnchor="middle" className="axis-title">
        expert
      </text>
      {Array.from({ length: layout.numExperts }, (_, e) => (
        <text key={`e${e}`} x={LEFT + e * CELL + CELL / 2} y={TOP - 6} textAnchor="middle" className="axis-label">
          {e}
        </text>
      ))}
      <text x={12} y={middle} textAnchor="middle" className="axis-title" transform={`rotate(-90 12 ${middle})`}>
        layer
      </text>
    </>
  );
}

/** One layer: its label and a cell per expert, coloured by its share of the largest weight. */
function HeatmapRow({ layer: l, row, max }: { layer: number; row: readonly number[]; max: number }) {
  return (
    <g>
      <text x={LEFT - 6} y={TOP + l * CELL + CELL / 2 + 4} textAnchor="end" className="axis-label">
        {l}
      </text>
      {row.map((w, e) => (
        <rect
          key={e}
          data-layer={l}
          data-expert={e}
          data-weight={w.toFixed(4)}
          x={LEFT + e * CELL}
          y={TOP + l * CELL}
          width={CELL - 2}
          height={CELL - 2}
          fill={viridisFill(w / max)}
        >
          <title>{`layer ${l}, expert ${e}: gate weight ${w.toFixed(3)} (${((w / max) * 100).toFixed(0)}% of the largest)`}</title>
        </rect>
      ))}
    </g>
  );
}

/** The legend: the colour scale from 0 to the largest weight. */
function HeatmapScale({ layout, max }: { layout: HeatmapLayout; max: number }) {
  const { legendX, layers } = layout;
  return (
    <g data-testid="heatmap-scale">
      <defs>
        <linearGradient id="heat-scale" x1="0" x2="0" y1="1" y2="0">
          {Array.from({ length: SCALE_STOPS }, (_, i) => (
            <stop key={i} offset={`${(i / (SCALE_STOPS - 1)) * 100}%`} stopColor={viridisFill(i / (SCALE_STOPS - 1))} />
          ))}
        </linearGradient>
      </defs>
      <rect x={legendX} y={TOP} width={12} height={layers * CELL - 2} fill="url(#heat-scale)" />
      <text x={legendX + 16} y={TOP + 9} className="axis-label">
        {max.toFixed(2)}
      </text>
      <text x={legendX + 16} y={TOP + layers * CELL - 4} className="axis-label">
        0
      </text>
      <text x={legendX} y={TOP - 6} className="axis-label">
        weight
      </text>
    </g>
  );
}
