/**
 * Value-target normalisation (the "ValueNorm" of MAPPO, without PopArt's weight rescaling): the value head
 * predicts returns standardised by a running mean and standard deviation of the returns it has been trained
 * on. Values are de-standardised for GAE (advantages in reward units, then whitened) and the value loss is
 * taken on standardised targets, so the value loss, its share of the shared gradient norm and the reach of
 * `vf_clip` are the same whatever the reward's scale (dense assertion counts of 1 or of 40).
 *
 * The statistics are a debiased exponential moving average over PPO steps (each step's batch of returns over
 * its loss tokens), as plain data that the run's checkpoint keeps.
 */

export interface ValueNormState {
  /** EMA of the batch means and of the batch means of squares. */
  mean: number;
  meanSq: number;
  /** 1 - beta^steps: the EMA's weight so far (0 before the first update), for debiasing. */
  weight: number;
}

/** Weight of the newest batch in the moving average. */
export const VALUE_NORM_BETA = 0.9;
/** Smallest standard deviation used (returns that never varied would otherwise blow targets up). */
export const VALUE_NORM_MIN_STD = 1e-4;

export const VALUE_NORM_IDENTITY = { mean: 0, std: 1 } as const;

export function initialValueNorm(): ValueNormState {
  return { mean: 0, meanSq: 0, weight: 0 };
}

/** The (debiased) mean and std; identity before any update. */
export function valueNormStats(s: ValueNormState): { mean: number; std: number } {
  if (s.weight <= 0) return { ...VALUE_NORM_IDENTITY };
  const mean = s.mean / s.weight;
  const variance = Math.max(s.meanSq / s.weight - mean * mean, 0);
  return { mean, std: Math.max(Math.sqrt(variance), VALUE_NORM_MIN_STD) };
}

/** The state after one batch of returns (masked-in entries only); unchanged when the batch has none. */
export function updateValueNorm(
  s: ValueNormState,
  returns: readonly ArrayLike<number>[],
  masks: readonly ArrayLike<number>[],
  beta = VALUE_NORM_BETA,
): ValueNormState {
  let n = 0;
  let sum = 0;
  let sq = 0;
  returns.forEach((r, row) => {
    const m = masks[row]!;
    for (let i = 0; i < m.length; i++) {
      if (m[i] !== 1) continue;
      n++;
      sum += r[i]!;
      sq += r[i]! * r[i]!;
    }
  });
  if (n === 0) return { ...s };
  return {
    mean: beta * s.mean + (1 - beta) * (sum / n),
    meanSq: beta * s.meanSq + (1 - beta) * (sq / n),
    weight: beta * s.weight + (1 - beta),
  };
}

export const standardize = (x: number, st: { mean: number; std: number }): number => (x - st.mean) / st.std;
export const destandardize = (x: number, st: { mean: number; std: number }): number => x * st.std + st.mean;
