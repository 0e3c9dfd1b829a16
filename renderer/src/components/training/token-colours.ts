/**
 * How a rollout's tokens are painted: each quantity on a colour-blind-safe scale fitted to the episode's
 * loss tokens, with the legend's end labels. Tokens outside the loss get no colour.
 */
import type { RolloutToken } from '../../../../electron/domain/training-view';
import type { ColourBy } from '../../stores/training';
import { diverging, sequential } from './palette';

/** Log-probs below this are painted as the most surprising. */
const LOGPROB_FLOOR = -6;

export interface TokenScale {
  colour(t: RolloutToken): string | null;
  /** Legend: the gradient's stops and the labels at its ends and middle. */
  stops: string[];
  labels: [string, string, string];
  title: string;
}

const fmt = (v: number) => (Math.abs(v) >= 100 || (Math.abs(v) < 0.01 && v !== 0) ? v.toExponential(1) : v.toFixed(2));
const field = (by: ColourBy) => (t: RolloutToken) => t[by];
const gradient = (f: (x: number) => string, from: number, to: number) =>
  Array.from({ length: 9 }, (_, i) => f(from + ((to - from) * i) / 8));

export function tokenScale(tokens: RolloutToken[], by: ColourBy): TokenScale {
  const get = field(by);
  const values = tokens
    .filter((t) => t.mask === 1)
    .map(get)
    .filter((v): v is number => v !== null && Number.isFinite(v));
  if (by === 'logprob') {
    return {
      title: 'sampler log-prob (darker: less likely)',
      colour: (t) => (t.logprob === null ? null : sequential(Math.min(1, t.logprob / LOGPROB_FLOOR))),
      stops: gradient(sequential, 0, 1),
      labels: ['0 (certain)', fmt(LOGPROB_FLOOR / 2), `≤ ${LOGPROB_FLOOR}`],
    };
  }
  if (by === 'value') {
    const lo = Math.min(...values, 0);
    const hi = Math.max(...values, lo + 1e-9);
    return {
      title: 'value (critic)',
      colour: (t) => (t.value === null ? null : sequential((t.value - lo) / (hi - lo))),
      stops: gradient(sequential, 0, 1),
      labels: [fmt(lo), fmt((lo + hi) / 2), fmt(hi)],
    };
  }
  // Advantage around 0, TIS weight around 1: diverging, symmetric, blue below and orange above.
  const centre = by === 'tisWeight' ? 1 : 0;
  const span = Math.max(1e-9, ...values.map((v) => Math.abs(v - centre)));
  return {
    title: by === 'advantage' ? 'advantage (blue negative, orange positive)' : 'TIS weight (blue < 1, orange > 1)',
    colour: (t) => {
      const v = get(t);
      return v === null ? null : diverging((v - centre) / span);
    },
    stops: gradient(diverging, -1, 1),
    labels: [fmt(centre - span), fmt(centre), fmt(centre + span)],
  };
}
