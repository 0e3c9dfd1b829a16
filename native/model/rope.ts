/**
 * Rotary position embeddings, "rotate half" layout (the pairs are i and i + head_dim/2, as in Llama/Qwen):
 *   rope(x, p) = x * cos(p * f) + rotate_half(x) * sin(p * f),  f_i = theta^(-2 (i mod d/2) / d)
 * The tables are computed once in float64 and stored in the graph's dtype; rotate_half is a constant
 * [d, d] matrix so that the autodiff needs no slicing rules.
 */
import type { FloatType } from '../onnx/proto';
import type { RopeScaling } from './config';

/**
 * The inverse frequencies f_i (i < head_dim/2) and the factor cos and sin are multiplied by, with the
 * scaling types of transformers' `ROPE_INIT_FUNCTIONS` that the supported families use.
 */
export function ropeFrequencies(
  headDim: number,
  theta: number,
  scaling?: RopeScaling,
  maxPositions = 0,
): { inv: Float64Array; attentionFactor: number } {
  const half = headDim / 2;
  const base = Float64Array.from({ length: half }, (_, i) => theta ** (-(2 * i) / headDim));
  const type = scaling?.rope_type ?? 'default';
  if (!scaling || type === 'default') return { inv: base, attentionFactor: 1 };
  const factor = scaling.factor ?? 1;
  if (type === 'linear') return { inv: base.map((f) => f / factor), attentionFactor: 1 };
  const original = scaling.original_max_position_embeddings ?? maxPositions;
  if (type === 'llama3') {
    const low = scaling.low_freq_factor ?? 1;
    const high = scaling.high_freq_factor ?? 4;
    const lowWavelen = original / low;
    const highWavelen = original / high;
    const inv = base.map((f) => {
      const wavelen = (2 * Math.PI) / f;
      if (wavelen < highWavelen) return f;
      if (wavelen > lowWavelen) return f / factor;
      const smooth = (original / wavelen - low) / (high - low);
      return (1 - smooth) * (f / factor) + smooth * f;
    });
    return { inv, attentionFactor: 1 };
  }
  // yarn
  const betaFast = scaling.beta_fast ?? 32;
  const betaSlow = scaling.beta_slow ?? 1;
  const correction = (rotations: number) =>
    (headDim * Math.log(original / (rotations * 2 * Math.PI))) / (2 * Math.log(theta));
  const lo = Math.max(Math.floor(correction(betaFast)), 0);
  let hi = Math.min(Math.ceil(correction(betaSlow)), headDim - 1);
  if (lo === hi) hi += 0.001;
  const inv = base.map((f, i) => {
    const ramp = Math.min(1, Math.max(0, (i - lo) / (hi - lo)));
    const extrapolation = 1 - ramp;
    return (f / factor) * (1 - extrapolation) + f * extrapolation;
  });
  const attentionFactor = scaling.attention_factor ?? (factor <= 1 ? 1 : 0.1 * Math.log(factor) + 1);
  return { inv, attentionFactor };
}

export function ropeTables(
  headDim: number,
  maxPositions: number,
  theta: number,
  dtype: FloatType,
  scaling?: RopeScaling,
): { cos: Float32Array | Float64Array; sin: Float32Array | Float64Array } {
  const Ctor = dtype === 'float64' ? Float64Array : Float32Array;
  const cos = new Ctor(maxPositions * headDim);
  const sin = new Ctor(maxPositions * headDim);
  const half = headDim / 2;
  const { inv, attentionFactor } = ropeFrequencies(headDim, theta, scaling, maxPositions);
  for (let p = 0; p < maxPositions; p++) {
    for (let i = 0; i < headDim; i++) {
      const angle = p * inv[i % half]!;
      cos[p * headDim + i] = Math.cos(angle) * attentionFactor;
      sin[p * headDim + i] = Math.sin(angle) * attentionFactor;
    }
  }
  return { cos, sin };
}

/** R with x @ R = [-x2, x1] for x = [x1, x2] (halves of the head). */
export function rotateHalfMatrix(headDim: number): number[] {
  const half = headDim / 2;
  const m = new Array<number>(headDim * headDim).fill(0);
  for (let i = 0; i < half; i++) {
    m[(i + half) * headDim + i] = -1; // out[i] = -x[i + half]
    m[i * headDim + i + half] = 1; // out[i + half] = x[i]
  }
  return m;
}
