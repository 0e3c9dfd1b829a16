/**
 * The sampling graph: the model with a KV cache, in the common layout of ONNX LLM exports, so that our
 * graphs and external ones are driven by the same code.
 *
 * Inputs:  input_ids [B,S] int64; attention_mask [B,P+S] int64 (1: a real slot of the cache or a new token,
 *          0: left padding of a batched cache); position_ids [B,S] int64;
 *          past_key_values.L.key / .value [B,kv_heads,P,head_dim] float32.
 * Outputs: logits [B,1,V] (the last position only: all a sampler needs; `allLogits` gives [B,S,V]);
 *          present.L.key / .value [B,kv_heads,P+S,head_dim];
 *          routing.experts [L,B,S,k] int64 and routing.gates [L,B,S,k] float32 (the top-k experts of every
 *          processed token in every MoE layer, and their renormalized gate weights).
 * Weights are initializers: swapping weights means a new session (tens of milliseconds for nano on CPU).
 */
import { AutoDiff, type Value } from '../onnx/autodiff';
import { GraphBuilder } from '../onnx/graph';
import { DEFAULT_OPSET } from '../onnx/proto';
import { isMoeLayer, moeLayers, paramName, parameterSpecs, type ModelConfig } from './config';
import {
  fusedGateUpName,
  fusedMoeName,
  fusedMoeWeights,
  fusedQkvName,
  sideBySide,
  transformerForward,
  type ExpertCompute,
  type LayerRouting,
} from './transformer';
import { addSamplingHead } from './sampling-head';
import type { BuiltGraph } from './training-graph';

export interface SamplingGraphOptions {
  expertCompute: ExpertCompute;
  /** Logits for every position (an evaluation export) instead of the last one. */
  allLogits?: boolean;
  /** Leave out the routing outputs (an export for tools that expect exactly the common layout). */
  withoutRouting?: boolean;
  /** Fused opset-23 ops (RMSNormalization, RotaryEmbedding, Attention) instead of compositions (default true). */
  fused?: boolean;
  /**
   * 'present' (default): present.L.key/value, past and new concatenated, the common layout that external
   * tools expect. 'new': new_key_values.L.key/value [B, kv_heads, S, head_dim], only this call's tokens;
   * the past is read in place and the caller keeps the cache (the lab's decoder). Needs `fused`.
   */
  cacheOutputs?: 'present' | 'new';
  /** Sample in the graph (sampling-head.ts) as well as returning the logits; not with `allLogits`. */
  samplingHead?: boolean;
  /** Sparse experts: gate and up as one [H, 2I] product per expert (one MatMul fewer per expert). */
  fuseGateUp?: boolean;
  /**
   * Write the weights to this file as ONNX external data (models past protobuf's 2 GiB); the returned
   * bytes must then be saved in the same folder and the session opened from that path.
   */
  externalData?: string;
}

export const pastKeyName = (l: number) => `past_key_values.${l}.key`;
export const pastValueName = (l: number) => `past_key_values.${l}.value`;
export const presentKeyName = (l: number) => `present.${l}.key`;
export const presentValueName = (l: number) => `present.${l}.value`;
export const newKeyName = (l: number) => `new_key_values.${l}.key`;
export const newValueName = (l: number) => `new_key_values.${l}.value`;

export function buildSamplingGraph(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  options: SamplingGraphOptions,
): BuiltGraph {
  const started = performance.now();
  const fused = options.fused ?? true;
  const cacheOutputs = options.cacheOutputs ?? 'present';
  if (cacheOutputs === 'new' && !fused) throw new Error("sampling graph: cacheOutputs 'new' needs the fused graph");
  const ad = new AutoDiff('float32', new GraphBuilder('sampling', { '': fused ? 23 : DEFAULT_OPSET }));
  const g = ad.graph;
  const params = samplingParameters(ad, config, weights, {
    fused,
    expertCompute: options.expertCompute,
    fuseGateUp: (options.fuseGateUp ?? false) && options.expertCompute === 'sparse',
  });
  const { ids, keyMask, positions, past } = samplingInputs(ad, config, cacheOutputs);
  const { allowed, allowed4 } = causalMask(g, ids.name, keyMask.name);
  const fwd = transformerForward(ad, {
    config,
    params,
    ids,
    positions,
    attentionMask: ad.wrap(allowed, ['batch', 1, 1, 'sequence', 'total'], 'bool'),
    past,
    expertCompute: options.expertCompute,
    fused,
    cacheOutputs,
    attentionMask4: ad.wrap(allowed4, ['batch', 1, 'sequence', 'total'], 'bool'),
    batch: 'batch',
    length: 'sequence',
  });
  const flatLogits = addLogits(g, config, fwd.hidden.name, !!options.allLogits);
  if (options.samplingHead) {
    if (options.allLogits)
      throw new Error('sampling graph: the sampling head needs the last position only (not allLogits)');
    addSamplingHead(g, flatLogits, config.vocab_size);
  }
  addCacheOutputs(g, config, fwd.present, cacheOutputs);
  // A dense model routes nothing: no routing outputs (the decoder then records none).
  if (!options.withoutRouting && moeLayers(config).length > 0) addRoutingOutputs(g, config, fwd.routing, ids.name);
  const bytes = g.toModel({
    docString: `t1-moe sampling graph (${options.expertCompute} experts)`,
    ...(options.externalData ? { externalData: options.externalData } : {}),
  });
  return {
    bytes,
    inputNames: g.inputs.map((i) => i.name),
    outputNames: g.outputs.map((o) => o.name),
    nodeCount: g.nodes.length,
    buildMs: performance.now() - started,
  };
}

/**
 * The checkpoint's tensors as initializers (the critic left out), with the fused layouts where the graph
 * uses them: the fused MoE op's fc1/fc2, one [H, (nh+2kv)*hd] attention projection, gate|up per expert.
 */
function samplingParameters(
  ad: AutoDiff,
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  o: { fused: boolean; expertCompute: ExpertCompute; fuseGateUp: boolean },
): Map<string, Value> {
  const g = ad.graph;
  const L = config.num_hidden_layers;
  const params = new Map<string, Value>();
  const fusedMoe = o.expertCompute === 'fused';
  const routed = moeLayers(config);
  const expertWeights = new Set(routed.map((l) => [paramName.wGate(l), paramName.wUp(l), paramName.wDown(l)]).flat());
  const gateUpWeights = new Set(routed.map((l) => [paramName.wGate(l), paramName.wUp(l)]).flat());
  const attentionInputs = new Set(
    Array.from({ length: L }, (_, l) => [paramName.wq(l), paramName.wk(l), paramName.wv(l)]).flat(),
  );
  const specs = new Map(parameterSpecs(config).map((p) => [p.name, p.shape]));
  const weight = (name: string) => checkedWeight(weights, specs, name);
  const initializer = (name: string, shape: number[], data: Float32Array) =>
    params.set(name, ad.wrap(g.initializer(name, 'float32', shape, data), shape));
  for (const [name, shape] of specs) {
    if (name === paramName.valueHead || name === paramName.valueBias) continue; // the critic is not sampled
    if (fusedMoe && expertWeights.has(name)) continue; // in the fused op's layout below
    if (o.fuseGateUp && gateUpWeights.has(name)) continue; // as one [E, H, 2I] weight per layer below
    if (o.fused && attentionInputs.has(name)) continue; // as one fused [H, (nh+2kv)*hd] weight below
    initializer(name, shape, weight(name));
  }
  const H = config.hidden_size;
  const I = config.moe_intermediate_size;
  const E = config.num_experts;
  for (let l = 0; l < L; l++) {
    if (fusedMoe && isMoeLayer(config, l)) {
      const { fc1, fc2 } = fusedMoeWeights(
        config,
        weight(paramName.wGate(l)),
        weight(paramName.wUp(l)),
        weight(paramName.wDown(l)),
      );
      initializer(fusedMoeName.fc1(l), [E, 2 * I, H], fc1);
      initializer(fusedMoeName.fc2(l), [E, H, I], fc2);
    }
    if (o.fused) {
      // The attention projections as one matmul (the fused path only; same values, fewer nodes per step).
      const width = (config.num_attention_heads + 2 * config.num_key_value_heads) * config.head_dim;
      initializer(
        fusedQkvName(l),
        [H, width],
        sideBySide(H, [weight(paramName.wq(l)), weight(paramName.wk(l)), weight(paramName.wv(l))]),
      );
    }
    // Each expert's [H, I] gate and up side by side: [E * H] rows of gate | up.
    if (o.fuseGateUp && isMoeLayer(config, l))
      initializer(
        fusedGateUpName(l),
        [E, H, 2 * I],
        sideBySide(E * H, [weight(paramName.wGate(l)), weight(paramName.wUp(l))]),
      );
  }
  return params;
}

/** A checkpoint tensor by name, present and of its config's size (fused weights are built from these). */
function checkedWeight(
  weights: ReadonlyMap<string, Float32Array>,
  specs: Map<string, number[]>,
  name: string,
): Float32Array {
  const data = weights.get(name);
  if (!data) throw new Error(`weights: tensor '${name}' is missing`);
  const shape = specs.get(name)!;
  const expected = shape.reduce((a, b) => a * b, 1);
  if (data.length !== expected)
    throw new Error(`weights: tensor '${name}' has ${data.length} values, [${shape.join(',')}] needs ${expected}`);
  return data;
}

/** The graph's inputs: token ids, the key mask, positions and each layer's past keys and values. */
function samplingInputs(ad: AutoDiff, config: ModelConfig, cacheOutputs: 'present' | 'new') {
  const nkv = config.num_key_value_heads;
  const hd = config.head_dim;
  const ids = ad.input('input_ids', ['batch', 'sequence'], 'int64');
  const keyMask = ad.input('attention_mask', ['batch', 'total'], 'int64');
  const positions = ad.input('position_ids', ['batch', 'sequence'], 'int64');
  const past = Array.from({ length: config.num_hidden_layers }, (_, l) => ({
    key: ad.input(pastKeyName(l), ['batch', nkv, 'past', hd]),
    value: ad.input(pastValueName(l), ['batch', nkv, 'past', hd]),
    ...(cacheOutputs === 'new'
      ? { newKey: newKeyName(l), newValue: newValueName(l) }
      : { presentKey: presentKeyName(l), presentValue: presentValueName(l) }),
  }));
  return { ids, keyMask, positions, past };
}

/** allowed[b, s, j] = attention_mask[b, j] && j <= (T - S) + s, as [B,1,S,T] (the fused op's layout) and [B,1,1,S,T]. */
function causalMask(g: GraphBuilder, ids: string, keyMask: string): { allowed: string; allowed4: string } {
  const total = g.op('Gather', [g.op('Shape', [keyMask]), g.int(1)], { axis: 0 });
  const seq = g.op('Gather', [g.op('Shape', [ids]), g.int(1)], { axis: 0 });
  const pastLen = g.op('Sub', [total, seq]);
  const keyPos = g.op('Range', [g.int(0), total, g.int(1)]);
  const queryPos = g.op('Range', [pastLen, total, g.int(1)]);
  const causal = g.op('LessOrEqual', [
    g.op('Unsqueeze', [keyPos, g.ints([0])]),
    g.op('Unsqueeze', [queryPos, g.ints([1])]),
  ]); // [S, T]
  const valid = g.op('Unsqueeze', [g.op('Cast', [keyMask], { to: 9 }), g.ints([1])]); // [B, 1, T]
  const allowed4 = g.op('Unsqueeze', [g.op('And', [g.op('Unsqueeze', [causal, g.ints([0])]), valid]), g.ints([1])]); // [B,1,S,T]
  const allowed = g.op('Unsqueeze', [allowed4, g.ints([1])]); // [B,1,1,S,T]
  return { allowed, allowed4 };
}

/** The `logits` output (the last position, or every one); the [rows, V] logits before their reshape, for the sampling head. */
function addLogits(g: GraphBuilder, config: ModelConfig, hiddenName: string, allLogits: boolean): string {
  const hidden = allLogits ? hiddenName : g.op('Slice', [hiddenName, g.ints([-1]), g.ints([2 ** 31 - 1]), g.ints([1])]);
  // A tied head multiplies by the embedding transposed: Gemm's transB reads it in place (a Transpose
  // node would copy V x H floats on every step where onnxruntime does not fold it).
  const rows = g.op('Reshape', [hidden, g.ints([-1, config.hidden_size])]);
  const flatLogits = config.tie_word_embeddings
    ? g.op('Gemm', [rows, paramName.embed], { transB: 1 })
    : g.op('MatMul', [rows, paramName.lmHead]);
  const logitsShape = g.op('Concat', [g.op('Shape', [hidden], { end: 2 }), g.ints([config.vocab_size])], { axis: 0 });
  g.output(g.op('Reshape', [flatLogits, logitsShape]), 'logits', 'float32', [
    'batch',
    allLogits ? 'sequence' : 1,
    config.vocab_size,
  ]);
  return flatLogits;
}

/** Each layer's cache output: the new keys and values only, or past and new (the common layout). */
function addCacheOutputs(
  g: GraphBuilder,
  config: ModelConfig,
  present: { key: Value; value: Value }[],
  cacheOutputs: 'present' | 'new',
): void {
  const nkv = config.num_key_value_heads;
  const hd = config.head_dim;
  present.forEach((p, l) => {
    if (cacheOutputs === 'new') {
      g.output(p.key.name, newKeyName(l), 'float32', ['batch', nkv, 'sequence', hd]);
      g.output(p.value.name, newValueName(l), 'float32', ['batch', nkv, 'sequence', hd]);
    } else {
      g.output(p.key.name, presentKeyName(l), 'float32', ['batch', nkv, 'total', hd]);
      g.output(p.value.name, presentValueName(l), 'float32', ['batch', nkv, 'total', hd]);
    }
  });
}

/** `routing.experts` and `routing.gates`: [MoE layers, B, S, k], each layer's reshaped and stacked. */
function addRoutingOutputs(g: GraphBuilder, config: ModelConfig, routing: LayerRouting[], ids: string): void {
  const k = config.num_experts_per_tok;
  const stack = (vs: string[]) =>
    g.op(
      'Concat',
      vs.map((v) =>
        g.op('Unsqueeze', [
          g.op('Reshape', [v, g.op('Concat', [g.op('Shape', [ids]), g.ints([k])], { axis: 0 })]),
          g.ints([0]),
        ]),
      ),
      { axis: 0 },
    );
  g.output(stack(routing.map((r) => r.experts.name)), 'routing.experts', 'int64', [
    routing.length,
    'batch',
    'sequence',
    k,
  ]);
  g.output(stack(routing.map((r) => r.gates.name)), 'routing.gates', 'float32', [
    routing.length,
    'batch',
    'sequence',
    k,
  ]);
}
