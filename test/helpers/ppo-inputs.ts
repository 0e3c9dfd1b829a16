/** The PPO loss's inputs for graph-level tests, and how far two runs' gradients are apart. */
import type { HostTensor } from '../../native/onnx/runtime';
import { PPO_SCALAR_INPUTS, PPO_TOKEN_INPUTS } from '../../electron/rl/ppo-loss';

/** Coefficients with every term of the loss switched on (the entropy bonus and the KL included). */
export const PPO_TEST_COEFFICIENTS = {
  pg_coef: 1,
  eps_low: 0.2,
  eps_high: 0.28,
  vf_clip: 0.2,
  vf_coef: 0.5,
  ent_coef: 0.05,
  kl_coef: 0.1,
  aux_coef: 0.01,
};

/**
 * Float64 [B, T] token inputs: `lossMask` as loss_mask, TIS weights 1, the others uniform in [-1.5, -0.5)
 * drawn from `random` in PPO_TOKEN_INPUTS order; and the scalars, inv_tokens 1 / the mask's sum.
 */
export function ppoLossInputs(
  random: () => number,
  B: number,
  T: number,
  lossMask: Float64Array,
  coefficients: Record<string, number> = PPO_TEST_COEFFICIENTS,
): Record<string, HostTensor> {
  const inputs: Record<string, HostTensor> = {};
  for (const name of PPO_TOKEN_INPUTS) {
    const data =
      name === 'loss_mask'
        ? lossMask
        : Float64Array.from({ length: B * T }, () => (name === 'tis_weights' ? 1 : -1.5 + random()));
    inputs[name] = { dtype: 'float64', dims: [B, T], data };
  }
  const scalars: Record<string, number> = { inv_tokens: 1 / lossMask.reduce((a, b) => a + b, 0), ...coefficients };
  for (const name of PPO_SCALAR_INPUTS)
    inputs[name] = { dtype: 'float64', dims: [], data: Float64Array.of(scalars[name]!) };
  return inputs;
}

/** Per parameter, the largest absolute difference between two runs' gradients. */
export function gradientGaps(
  a: ReadonlyMap<string, ArrayLike<number>>,
  b: ReadonlyMap<string, ArrayLike<number>>,
): Map<string, number> {
  const gaps = new Map<string, number>();
  for (const [name, g] of a) {
    const h = b.get(name)!;
    let worst = 0;
    for (let i = 0; i < g.length; i++) worst = Math.max(worst, Math.abs(g[i]! - h[i]!));
    gaps.set(name, worst);
  }
  return gaps;
}
