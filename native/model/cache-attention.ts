/**
 * Grouped-query attention over a KV cache that stays where it is. The common layout (and onnxruntime's
 * Attention op) concatenates past and new keys into a `present` tensor on every step: the whole cache is
 * copied inside onnxruntime and again across the binding into JavaScript, per layer per step, so the cost
 * of a step grows with the context. Here the scores against the past and against the new tokens are
 * computed separately and joined (only the scores are concatenated), and the values are weighted the
 * same way, so the past is only read. The graph outputs just the new keys and values; the decoder appends
 * them to its own cache (decoder.ts).
 */
import type { AutoDiff, Value } from '../onnx/autodiff';
import type { Dim } from '../onnx/proto';
import type { ModelConfig } from './config';

export interface CacheAttentionInputs {
  /** [B, S, heads * head_dim], rotary applied. */
  q: Value;
  /** [B, S, kv_heads * head_dim], rotary applied. */
  key: Value;
  /** [B, S, kv_heads * head_dim]. */
  value: Value;
  /** [B, kv_heads, P, head_dim] each; `newKey`/`newValue` name the outputs of this step's keys and values. */
  past: { key: Value; value: Value; newKey?: string; newValue?: string };
  /** [B, 1, 1, S, P + S] bool: may query s attend key j (past slots first, then the new tokens). */
  mask: Value;
  bDim: number;
  sDim: number;
  B: Dim;
  S: Dim;
}

const NEG_INF = -1e9;

export function newCacheAttention(ad: AutoDiff, c: ModelConfig, inp: CacheAttentionInputs): { ctx: Value; newKey: Value; newValue: Value } {
  const g = ad.graph;
  const hd = c.head_dim;
  const nkv = c.num_key_value_heads;
  const groups = c.num_attention_heads / nkv;
  const { bDim, sDim, B, S } = inp;
  const sOrRest = sDim === 0 ? -1 : sDim;
  // Query head j uses kv head floor(j / groups), as in the composed and fused paths.
  const q5 = g.op('Transpose', [g.op('Reshape', [inp.q.name, g.ints([bDim, sOrRest, nkv, groups, hd])])], { perm: [0, 2, 3, 1, 4] }); // [B, nkv, groups, S, hd]
  const kvHeads = (x: Value, name?: string) => g.op('Transpose', [g.op('Reshape', [x.name, g.ints([bDim, sOrRest, nkv, hd])])], { perm: [0, 2, 1, 3] }, name ? { outputs: [name] } : {}); // [B, nkv, S, hd]
  const newKey = kvHeads(inp.key, inp.past.newKey);
  const newValue = kvHeads(inp.value, inp.past.newValue);
  const axis2 = g.ints([2]);
  const withGroupAxis = (x: string) => g.op('Unsqueeze', [x, axis2]); // [B, nkv, 1, ., hd]: broadcast over groups
  const pastKey = withGroupAxis(inp.past.key.name);
  const pastValue = withGroupAxis(inp.past.value.name);
  const key5 = withGroupAxis(newKey);
  const value5 = withGroupAxis(newValue);
  // Keys transposed in the MatMul's input: onnxruntime folds such a Transpose into FusedMatMul (transB).
  const scoresOf = (k: string) => g.op('MatMul', [q5, g.op('Transpose', [k], { perm: [0, 1, 2, 4, 3] })]);
  const scores = g.op('Mul', [g.op('Concat', [scoresOf(pastKey), scoresOf(key5)], { axis: 4 }), g.scalar('float32', 1 / Math.sqrt(hd))]); // [B, nkv, groups, S, P + S]
  const attn = g.op('Softmax', [g.op('Where', [inp.mask.name, scores, g.scalar('float32', NEG_INF)])], { axis: -1 });
  const pastLength = g.op('Shape', [inp.past.key.name], { start: 2, end: 3 });
  const big = g.ints([2 ** 62]);
  const axis4 = g.ints([4]);
  const attnPast = g.op('Slice', [attn, g.ints([0]), pastLength, axis4]);
  const attnNew = g.op('Slice', [attn, pastLength, big, axis4]);
  const ctx5 = g.op('Add', [g.op('MatMul', [attnPast, pastValue]), g.op('MatMul', [attnNew, value5])]); // [B, nkv, groups, S, hd]
  const ctx = g.op('Reshape', [g.op('Transpose', [ctx5], { perm: [0, 3, 1, 2, 4] }), g.ints([bDim, sOrRest, c.num_attention_heads * hd])]);
  return {
    ctx: ad.wrap(ctx, [B, S, c.num_attention_heads * hd]),
    newKey: ad.wrap(newKey, [B, nkv, S, hd]),
    newValue: ad.wrap(newValue, [B, nkv, S, hd]),
  };
}
