/**
 * AdamW (Loshchilov & Hutter) with decoupled weight decay, as pure functions over typed arrays: the caller
 * owns the fp32 master weights and the moments, and passes the step's learning rate (from a schedule).
 * Per parameter, at step t (1-based):
 *   w <- w - lr * wd * w                              (decoupled decay, before the Adam step, as PyTorch)
 *   m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
 *   w <- w - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
 * Arithmetic is in float64 and stored in float32, in a fixed order: the same inputs give the same bits.
 */
import type { ParamSettings } from './param-groups';

export interface AdamWHyper {
  beta1: number;
  beta2: number;
  eps: number;
}

export const DEFAULT_ADAMW: AdamWHyper = { beta1: 0.9, beta2: 0.95, eps: 1e-8 };

export interface Moments {
  expAvg: Float32Array;
  expAvgSq: Float32Array;
}

export function zeroMoments(size: number): Moments {
  return { expAvg: new Float32Array(size), expAvgSq: new Float32Array(size) };
}

/**
 * One AdamW update of one parameter in place. `step` is the 1-based count of updates this parameter has
 * had including this one; `gradScale` multiplies the gradient first (global-norm clipping, accumulation).
 */
export function adamwUpdate(
  weights: Float32Array,
  grad: ArrayLike<number>,
  moments: Moments,
  step: number,
  lr: number,
  weightDecay: number,
  hyper: AdamWHyper,
  gradScale = 1,
): void {
  const { beta1: b1, beta2: b2, eps } = hyper;
  const { expAvg: m, expAvgSq: v } = moments;
  const c1 = 1 - b1 ** step;
  const c2 = 1 - b2 ** step;
  const decay = 1 - lr * weightDecay;
  const stepSize = lr / c1;
  const sqrtC2 = Math.sqrt(c2);
  for (let i = 0; i < weights.length; i++) {
    const g = grad[i]! * gradScale;
    const mi = b1 * m[i]! + (1 - b1) * g;
    const vi = b2 * v[i]! + (1 - b2) * g * g;
    m[i] = mi;
    v[i] = vi;
    weights[i] = weights[i]! * decay - (stepSize * mi) / (Math.sqrt(vi) / sqrtC2 + eps);
  }
}

export interface OptimizerState {
  /** Updates applied so far (the next update is step + 1). */
  step: number;
  moments: Map<string, Moments>;
}

export function createOptimizerState(params: ReadonlyMap<string, Float32Array>): OptimizerState {
  return { step: 0, moments: new Map([...params].map(([name, w]) => [name, zeroMoments(w.length)])) };
}

/**
 * One optimizer step over every parameter: frozen ones are skipped, the others get lr * lrScale and their
 * group's weight decay. Gradients missing for a trainable parameter are an error (a graph that does not
 * reach it would silently stop training it).
 */
export function adamwStep(
  params: Map<string, Float32Array>,
  grads: ReadonlyMap<string, ArrayLike<number>>,
  state: OptimizerState,
  settings: ReadonlyMap<string, ParamSettings>,
  lr: number,
  hyper: AdamWHyper,
  gradScale = 1,
): void {
  state.step++;
  for (const [name, w] of params) {
    const s = settings.get(name);
    if (s?.frozen) continue;
    const g = grads.get(name);
    if (!g) throw new Error(`no gradient for trainable parameter '${name}'`);
    let m = state.moments.get(name);
    if (!m) state.moments.set(name, (m = zeroMoments(w.length)));
    adamwUpdate(w, g, m, state.step, lr * (s?.lrScale ?? 1), s?.weightDecay ?? 0, hyper, gradScale);
  }
}
