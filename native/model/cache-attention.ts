/**
 * Grouped-query attention over a KV cache that stays where it is. The common layout (and onnxruntime's
 * Attention op) concatenates past and new keys into a `present` tensor on every step: the whole cache is
 * copied inside onnxruntime and again across the binding into JavaScript, per layer per step, so the cost
 * of a step grows with the context. Here a decoding step (one new token per row) computes the scores
 * against the past and against the new token separately and joins them (only the scores are
 * concatenated), and weights the values the same way, so the past is only read. A prefill (several new
 * tokens; the decoder prefills one sequence at a time) keeps onnxruntime's Attention op, which handles a
 * long causal block far faster than the composition and whose copy of a single row's past is small: an If
 * on the number of new tokens picks the branch. Either way the graph outputs just the new keys and values;
 * the decoder appends them to its own cache (decoder.ts).
 */
import type { AutoDiff, Value } from '../onnx/autodiff';
import { floatAttr, type GraphBuilder } from '../onnx/graph';
import type { Dim } from '../onnx/proto';
import type { ModelConfig } from './config';

export interface CacheAttentionInputs {
  /** [B, S, heads * head_dim], rotary applied. */
  q: Value;
  /** [B, S, kv_heads * head_dim], rotary applied. */
  key: Value;
  /** [B, S, kv_heads * head_dim]. */
  value: Value;
  /** [B, kv_heads, P, head_dim] each; `newKey`/`newValue` name the outputs of this call's keys and values. */
  past: { key: Value; value: Value; newKey?: string; newValue?: string };
  /** [B, 1, 1, S, P + S] bool: may query s attend key j (past slots first, then the new tokens). */
  mask: Value;
  /** The same mask as [B, 1, S, P + S] (the Attention op's layout). */
  mask4: Value;
  /** Scalar bool: more than one new token (a prefill), from `isPrefill`. */
  prefill: string;
  bDim: number;
  sDim: number;
  B: Dim;
  S: Dim;
}

const NEG_INF = -1e9;

/** Scalar bool: `q` ([B, S, .]) holds more than one token per row. */
export function isPrefill(g: GraphBuilder, q: Value): string {
  return g.op('Greater', [g.op('Squeeze', [g.op('Shape', [q.name], { start: 1, end: 2 }), g.ints([0])]), g.int(1)]);
}

/** [B, S, kv * hd] -> [B, kv, S, hd]. */
function kvHeads(g: GraphBuilder, c: ModelConfig, x: Value, bDim: number, sOrRest: number): string {
  return g.op('Transpose', [g.op('Reshape', [x.name, g.ints([bDim, sOrRest, c.num_key_value_heads, c.head_dim])])], {
    perm: [0, 2, 1, 3],
  });
}

export function newCacheAttention(
  ad: AutoDiff,
  c: ModelConfig,
  inp: CacheAttentionInputs,
): { ctx: Value; newKey: Value; newValue: Value } {
  const g = ad.graph;
  const hd = c.head_dim;
  const nh = c.num_attention_heads;
  const nkv = c.num_key_value_heads;
  const groups = nh / nkv;
  const { bDim, sDim, B, S } = inp;
  const sOrRest = sDim === 0 ? -1 : sDim;
  const declare = (branch: GraphBuilder, outputs: string[]) => {
    branch.output(outputs[0]!, outputs[0]!, 'float32', [B, S, nh * hd]);
    branch.output(outputs[1]!, outputs[1]!, 'float32', [B, nkv, S, hd]);
    branch.output(outputs[2]!, outputs[2]!, 'float32', [B, nkv, S, hd]);
    return branch.toGraph();
  };

  // Prefill: onnxruntime's Attention op (it insists on writing `present` when given a past; unused here).
  const prefill = g.subgraph(g.fresh('prefill_attention'));
  const [prefillCtx] = prefill.ops(
    'Attention',
    [inp.q.name, inp.key.name, inp.value.name, inp.mask4.name, inp.past.key.name, inp.past.value.name],
    { q_num_heads: nh, kv_num_heads: nkv, scale: floatAttr(1 / Math.sqrt(hd)) },
    { outputCount: 3 },
  );
  const prefillGraph = declare(prefill, [
    prefillCtx!,
    kvHeads(prefill, c, inp.key, bDim, sOrRest),
    kvHeads(prefill, c, inp.value, bDim, sOrRest),
  ]);

  // Decoding step: the past read in place.
  const step = g.subgraph(g.fresh('step_attention'));
  // Query head j uses kv head floor(j / groups), as in the composed and fused paths.
  const q5 = step.op('Transpose', [step.op('Reshape', [inp.q.name, step.ints([bDim, sOrRest, nkv, groups, hd])])], {
    perm: [0, 2, 3, 1, 4],
  }); // [B, nkv, groups, S, hd]
  const newKey = kvHeads(step, c, inp.key, bDim, sOrRest);
  const newValue = kvHeads(step, c, inp.value, bDim, sOrRest);
  const withGroupAxis = (x: string) => step.op('Unsqueeze', [x, step.ints([2])]); // [B, nkv, 1, ., hd]: broadcast over groups
  // Keys transposed in the MatMul's input: onnxruntime folds such a Transpose into FusedMatMul (transB).
  const scoresOf = (k: string) =>
    step.op('MatMul', [q5, step.op('Transpose', [withGroupAxis(k)], { perm: [0, 1, 2, 4, 3] })]);
  const scores = step.op('Mul', [
    step.op('Concat', [scoresOf(inp.past.key.name), scoresOf(newKey)], { axis: 4 }),
    step.scalar('float32', 1 / Math.sqrt(hd)),
  ]); // [B, nkv, groups, S, P + S]
  const attn = step.op('Softmax', [step.op('Where', [inp.mask.name, scores, step.scalar('float32', NEG_INF)])], {
    axis: -1,
  });
  const pastLength = step.op('Shape', [inp.past.key.name], { start: 2, end: 3 });
  const axis4 = step.ints([4]);
  const attnPast = step.op('Slice', [attn, step.ints([0]), pastLength, axis4]);
  const attnNew = step.op('Slice', [attn, pastLength, step.ints([2 ** 62]), axis4]);
  const ctx5 = step.op('Add', [
    step.op('MatMul', [attnPast, withGroupAxis(inp.past.value.name)]),
    step.op('MatMul', [attnNew, withGroupAxis(newValue)]),
  ]); // [B, nkv, groups, S, hd]
  const stepCtx = step.op('Reshape', [
    step.op('Transpose', [ctx5], { perm: [0, 3, 1, 2, 4] }),
    step.ints([bDim, sOrRest, nh * hd]),
  ]);
  const stepGraph = declare(step, [stepCtx, newKey, newValue]);

  const [ctx, keyOut, valueOut] = g.ops(
    'If',
    [inp.prefill],
    { then_branch: { kind: 'graph', value: prefillGraph }, else_branch: { kind: 'graph', value: stepGraph } },
    { outputs: [g.fresh('attn'), inp.past.newKey ?? g.fresh('new_key'), inp.past.newValue ?? g.fresh('new_value')] },
  );
  return {
    ctx: ad.wrap(ctx!, [B, S, nh * hd]),
    newKey: ad.wrap(keyOut!, [B, nkv, S, hd]),
    newValue: ad.wrap(valueOut!, [B, nkv, S, hd]),
  };
}
