/** The numbers behind the expert heatmap: gate weight per layer and expert, and each token's top expert. */
import type { PlaygroundToken } from '../../../electron/domain/models';
import { viridis } from './models/logprob-scale';

/** What the heatmap reads of a token: the experts it was routed to per layer, and their gate weights. */
export type RoutedToken = Pick<PlaygroundToken, 'experts' | 'gates'>;

/** A scale value in [0, 1] as an SVG fill on the viridis scale. */
export function viridisFill(t: number): string {
  const [r, g, b] = viridis(t);
  return `rgb(${r} ${g} ${b})`;
}

/**
 * Layers by experts: the gate weight the tokens sent to each expert, summed over the tokens. A token routed
 * without gates counts 1 per chosen expert.
 */
export function gateWeights(tokens: readonly RoutedToken[], numExperts: number): number[][] {
  const layers = tokens[0]?.experts?.length ?? 0;
  const weight = Array.from({ length: layers }, () => new Array<number>(numExperts).fill(0));
  for (const t of tokens)
    t.experts?.forEach((ex, l) =>
      ex.forEach((e, j) => {
        const row = weight[l];
        if (row) row[e] = (row[e] ?? 0) + (t.gates?.[l]?.[j] ?? 1);
      }),
    );
  return weight;
}

/** The expert a token sent the most gate weight to in a layer (the first chosen one on a tie or without gates). */
export function topExpert(token: RoutedToken, layer: number): number {
  const ex = token.experts?.[layer] ?? [];
  const gates = token.gates?.[layer] ?? [];
  let best = 0;
  for (let j = 1; j < ex.length; j++) if ((gates[j] ?? 0) > (gates[best] ?? 0)) best = j;
  return ex[best] ?? 0;
}
