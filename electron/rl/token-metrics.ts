/** Metrics over masked token arrays for PPO: the value head's explained variance, TIS weights, the trainer-sampler log-prob gap. */

/** 1 - Var(returns - values) / Var(returns) over masked-in entries; NaN when returns do not vary. */
export function explainedVariance(
  values: ArrayLike<number>[],
  returns: ArrayLike<number>[],
  masks: ArrayLike<number>[],
): number {
  const v: number[] = [];
  const r: number[] = [];
  masks.forEach((m, row) => {
    for (let i = 0; i < m.length; i++) {
      if (m[i] !== 1) continue;
      v.push(values[row]![i]!);
      r.push(returns[row]![i]!);
    }
  });
  const variance = (xs: number[]) => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  };
  if (r.length === 0) return NaN;
  const vr = variance(r);
  if (vr === 0) return NaN;
  return 1 - variance(r.map((x, i) => x - v[i]!)) / vr;
}

/**
 * Truncated importance sampling weights: min(exp(logp_trainer_old - logp_sampler), cap) per loss token
 * (1 where the mask is 0). They correct for the sampler being a slightly different policy than the
 * trainer's (kernels, precision, routing), and are constants of the loss (no gradient).
 */
export function tisWeights(
  trainerOld: ArrayLike<number>,
  sampler: ArrayLike<number>,
  mask: ArrayLike<number>,
  cap: number,
): Float64Array {
  const w = new Float64Array(mask.length).fill(1);
  for (let i = 0; i < mask.length; i++) if (mask[i] === 1) w[i] = Math.min(Math.exp(trainerOld[i]! - sampler[i]!), cap);
  return w;
}

export interface GapStats {
  mean: number;
  max: number;
  tokens: number;
}

/** Train-inference gap: mean and max |logp_trainer - logp_sampler| over loss tokens. */
export function logprobGap(
  trainer: ArrayLike<number>[],
  sampler: ArrayLike<number>[],
  masks: ArrayLike<number>[],
): GapStats {
  let sum = 0;
  let max = 0;
  let n = 0;
  masks.forEach((m, row) => {
    for (let i = 0; i < m.length; i++) {
      if (m[i] !== 1) continue;
      const d = Math.abs(trainer[row]![i]! - sampler[row]![i]!);
      sum += d;
      max = Math.max(max, d);
      n++;
    }
  });
  return { mean: n ? sum / n : 0, max, tokens: n };
}
