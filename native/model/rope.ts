/**
 * Rotary position embeddings, "rotate half" layout (the pairs are i and i + head_dim/2, as in Llama/Qwen):
 *   rope(x, p) = x * cos(p * f) + rotate_half(x) * sin(p * f),  f_i = theta^(-2 (i mod d/2) / d)
 * The tables are computed once in float64 and stored in the graph's dtype; rotate_half is a constant
 * [d, d] matrix so that the autodiff needs no slicing rules.
 */
import type { FloatType } from '../onnx/proto';

export function ropeTables(headDim: number, maxPositions: number, theta: number, dtype: FloatType): { cos: Float32Array | Float64Array; sin: Float32Array | Float64Array } {
  const Ctor = dtype === 'float64' ? Float64Array : Float32Array;
  const cos = new Ctor(maxPositions * headDim);
  const sin = new Ctor(maxPositions * headDim);
  const half = headDim / 2;
  for (let p = 0; p < maxPositions; p++) {
    for (let i = 0; i < headDim; i++) {
      const angle = p * theta ** (-(2 * (i % half)) / headDim);
      cos[p * headDim + i] = Math.cos(angle);
      sin[p * headDim + i] = Math.sin(angle);
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
