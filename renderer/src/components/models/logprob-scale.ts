/**
 * Log-probabilities as colours on viridis (perceptually uniform, readable with the common colour-vision
 * deficiencies and in greyscale), from p = 1e-6 (dark purple) to p = 1 (yellow), with its legend.
 */

/** Viridis at 9 evenly spaced stops. */
const VIRIDIS: [number, number, number][] = [
  [68, 1, 84],
  [71, 44, 122],
  [59, 81, 139],
  [44, 113, 142],
  [33, 144, 141],
  [39, 173, 129],
  [92, 200, 99],
  [170, 220, 50],
  [253, 231, 37],
];

/** The least probability the scale tells apart (log10). */
export const MIN_LOG10_P = -6;

export function viridis(t: number): [number, number, number] {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const a = VIRIDIS[i]!;
  const b = VIRIDIS[i + 1]!;
  return [0, 1, 2].map((k) => Math.round(a[k]! + (b[k]! - a[k]!) * f)) as [number, number, number];
}

/** Position of a log-prob (natural log) on the scale, 0..1. */
export function logprobPosition(logprob: number): number {
  const log10p = logprob / Math.LN10;
  return Math.min(1, Math.max(0, (log10p - MIN_LOG10_P) / -MIN_LOG10_P));
}

export function logprobColor(logprob: number): { background: string; color: string } {
  const t = logprobPosition(logprob);
  const [r, g, b] = viridis(t);
  // Dark text on the light (yellow-green) end, light text on the dark end.
  return { background: `rgb(${r} ${g} ${b})`, color: t > 0.55 ? '#111' : '#f4f4f4' };
}
