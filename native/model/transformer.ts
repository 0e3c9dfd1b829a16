/**
 * The MoE transformer's forward pass, written once against AutoDiff and used by both graphs: the
 * sampling graph (dynamic batch and lengths, KV cache, never differentiated) and the scoring/training
 * graph (static padded shapes, differentiated). See config.ts for the architecture.
 */
import type { AutoDiff, Value } from '../onnx/autodiff';
import { floatAttr } from '../onnx/graph';
import type { Dim } from '../onnx/proto';
import { isMoeLayer, paramName, type ModelConfig } from './config';
import { isPrefill, newCacheAttention } from './cache-attention';
import { ropeTables, rotateHalfMatrix } from './rope';

/**
 * How the experts are computed. 'dense': every expert on every token, weighted by a gate matrix that is
 * zero outside the top-k (E/k times the needed FLOPs, few large ops). 'sparse': each expert gathers its
 * tokens (NonZero + Gather), computes, and scatters back (k/E of the FLOPs, more small ops). 'fused':
 * onnxruntime's com.microsoft MoE op (routing and SwiGLU experts in one node; inference only, needs the
 * weights in its layout from `fusedMoeWeights`).
 */
export type ExpertCompute = 'dense' | 'sparse' | 'fused';

export interface ForwardInputs {
  config: ModelConfig;
  /** Every parameter by its name in parameterSpecs (inputs or initializers). */
  params: ReadonlyMap<string, Value>;
  /** [B, S] int64 token ids. */
  ids: Value;
  /** [B, S] int64 absolute positions (rotary angles). */
  positions: Value;
  /** [B, 1, 1, S, T] bool: may query s attend key j (T = past + S). */
  attentionMask: Value;
  /**
   * Per layer [B, kv_heads, P, head_dim]; absent in the training graph (no cache). `presentKey/Value` name
   * the concatenated cache so it is a graph output as it is (no copy through an Identity node).
   */
  past?: readonly {
    key: Value;
    value: Value;
    presentKey?: string;
    presentValue?: string;
    newKey?: string;
    newValue?: string;
  }[];
  /**
   * What the cache outputs are (fused path): 'present' (default), past and new concatenated, the common
   * layout of ONNX LLM exports; 'new', only the keys and values of the tokens processed now
   * ([B, kv_heads, S, head_dim]), with attention reading the past where it lies: no per-step copy of the
   * whole cache inside onnxruntime or across the binding (see `newCacheAttention`).
   */
  cacheOutputs?: 'present' | 'new';
  /** [L, B, S, k] int64 expert ids that replace each layer's top-k (rollout routing replay, R3). */
  forcedExperts?: Value;
  expertCompute: ExpertCompute;
  /**
   * Inference only (no gradients): onnxruntime's fused ops, ai.onnx opset 23 — RMSNormalization,
   * RotaryEmbedding, Attention (grouped heads, KV cache, mask) — instead of their compositions: far fewer
   * nodes per step. Needs `past` and `attentionMask4`.
   */
  fused?: boolean;
  /** [B, 1, S, T] bool, the mask in the layout of the fused Attention op. */
  attentionMask4?: Value;
  /**
   * Causal attention in query blocks of this many positions (static lengths without a cache only): block c
   * attends to the keys up to its own end, never to the later ones the mask would zero. At T = 7 blocks
   * that is 4/7 of the scores, softmax and their gradients of the full [T, T] product, with the same result.
   */
  attentionChunk?: number;
  /**
   * Keys and values every row attends to before its own (a shared prompt prefix computed once, see
   * prefix-forward.ts): per layer [B, kv_heads, length, head_dim], already rotated at their positions; the
   * mask then covers length + S keys. Static lengths without a cache only.
   */
  prefix?: { length: number; at(layer: number): { key: Value; value: Value } };
  /** Known sizes: numbers in the static training graph, names in the dynamic sampling graph. */
  batch: Dim;
  length: Dim;
}

export interface LayerRouting {
  /** [N, E] router softmax (N = B * S). */
  probs: Value;
  /** [N, k] the router's own top-k experts. */
  topk: Value;
  /** [N, k] the experts used (top-k, or the forced ones). */
  experts: Value;
  /** [N, k] gate weights of the used experts: router softmax renormalized over them. */
  gates: Value;
}

export interface ForwardResult {
  /** [B, S, H] after the final RMSNorm. */
  hidden: Value;
  routing: LayerRouting[];
  /** Per layer [B, kv_heads, P + S, head_dim], when a past was given. */
  present: { key: Value; value: Value }[];
}

const NEG_INF = -1e9;

export function transformerForward(ad: AutoDiff, inp: ForwardInputs): ForwardResult {
  const layers = new LayerBuilder(ad, inp);
  let x = ad.gather(layers.param(paramName.embed), inp.ids); // [B, S, H]
  for (let l = 0; l < inp.config.num_hidden_layers; l++) {
    x = ad.add(x, layers.attention(x, l));
    x = ad.add(x, ad.reshapeAs(layers.feedForward(x, l), x));
  }
  return {
    hidden: layers.norm(x, layers.param(paramName.finalNorm)),
    routing: layers.routing,
    present: layers.present,
  };
}

/** [1, 1, 1, L, L] bool, query i may read key j <= i: the causal mask of a static-length graph. */
export function causalMask(ad: AutoDiff, L: number): Value {
  const causal = Array.from({ length: L * L }, (_, i) => (i % L <= Math.floor(i / L) ? 1 : 0));
  return ad.wrap(ad.graph.constant('bool', [1, 1, 1, L, L], causal), [1, 1, 1, L, L], 'bool');
}

/** Positions 0..T-1 in every row and the causal [T, T] mask, as constants (right padding needs no more). */
export function staticPositions(ad: AutoDiff, B: number, T: number): { positions: Value; attentionMask: Value } {
  const positions = ad.wrap(
    ad.graph.constant(
      'int64',
      [B, T],
      Array.from({ length: B * T }, (_, i) => i % T),
    ),
    [B, T],
    'int64',
  );
  return { positions, attentionMask: causalMask(ad, T) };
}

/**
 * The values every layer shares (rotary tables, the mask as a bias, the fused ops' tables) and each layer's
 * blocks: attention (fused ops or their composition) and the feed-forward (a dense MLP or the experts).
 * The routing and the cache of the layers built so far are collected as they are built.
 */
export class LayerBuilder {
  readonly routing: LayerRouting[] = [];
  readonly present: { key: Value; value: Value }[] = [];
  /** Per layer built so far (composed attention without a cache): the rotated keys and the values, [B, kv_heads, S, head_dim]. */
  readonly attended: { key: Value; value: Value }[] = [];
  private readonly c: ModelConfig;
  private readonly g: AutoDiff['graph'];
  private readonly hd: number;
  private readonly nh: number;
  private readonly nkv: number;
  private readonly B: Dim;
  private readonly S: Dim;
  private readonly N: Dim;
  /** Reshape targets: exact numbers when static, 0 ("copy this dim") when dynamic. */
  private readonly bDim: number;
  private readonly sDim: number;
  /** [B, 1, S, hd] rotary tables gathered at the positions. */
  private readonly cos: Value;
  private readonly sin: Value;
  private readonly rotate: Value;
  private readonly scale: Value;
  private readonly maskBias: Value;
  private readonly fused: boolean;
  private readonly cosHalf: string;
  private readonly sinHalf: string;
  private readonly qkvSplit: string | null;
  private moeIndex = 0;
  private prefillFlag: string | undefined;

  constructor(
    private readonly ad: AutoDiff,
    private readonly inp: ForwardInputs,
  ) {
    const c = (this.c = inp.config);
    const g = (this.g = ad.graph);
    const hd = (this.hd = c.head_dim);
    this.nh = c.num_attention_heads;
    this.nkv = c.num_key_value_heads;
    const { batch: B, length: S } = inp;
    this.B = B;
    this.S = S;
    this.N = typeof B === 'number' && typeof S === 'number' ? B * S : 'tokens';
    this.bDim = typeof B === 'number' ? B : 0;
    this.sDim = typeof S === 'number' ? S : 0;

    const tables = ropeTables(hd, c.max_position_embeddings, c.rope_theta, ad.dtype, c.rope_scaling);
    const cosTable = g.initializer(g.fresh('rope_cos'), ad.dtype, [c.max_position_embeddings, hd], tables.cos);
    const sinTable = g.initializer(g.fresh('rope_sin'), ad.dtype, [c.max_position_embeddings, hd], tables.sin);
    this.cos = this.ropeAt(cosTable);
    this.sin = this.ropeAt(sinTable);
    this.rotate = ad.constant(rotateHalfMatrix(hd), [hd, hd]);
    this.scale = ad.constant(1 / Math.sqrt(hd));
    const negInf = ad.constant(NEG_INF);
    // The mask as an additive bias, made once for all layers: Add passes its gradient to the scores as it is,
    // where Where's backward cost two more full-size [B, kv, groups, S, T] Where nodes per layer (most of a
    // training step's time at 512 tokens). Graphs that attend through the fused ops never read it, and
    // GraphBuilder.toModel drops it there (liveNodes).
    this.maskBias = ad.nondiff('Where', [inp.attentionMask, ad.constant(0), negInf], {}, [
      { shape: inp.attentionMask.shape, dtype: ad.dtype },
    ])[0]!;

    const fused = (this.fused = inp.fused ?? false);
    if (fused && (!inp.past || !inp.attentionMask4))
      throw new Error('fused ops need a KV cache and a 4-D attention mask');
    this.cosHalf = fused
      ? g.initializer(
          g.fresh('rope_cos_half'),
          'float32',
          [c.max_position_embeddings, hd / 2],
          halfTable(tables.cos, c.max_position_embeddings, hd),
        )
      : '';
    this.sinHalf = fused
      ? g.initializer(
          g.fresh('rope_sin_half'),
          'float32',
          [c.max_position_embeddings, hd / 2],
          halfTable(tables.sin, c.max_position_embeddings, hd),
        )
      : '';
    this.qkvSplit =
      fused && inp.params.has(fusedQkvName(0))
        ? g.initializer(
            g.fresh('qkv_split'),
            'int64',
            [3],
            BigInt64Array.from([this.nh, this.nkv, this.nkv].map((n) => BigInt(n * hd))),
          )
        : null;
  }

  /** A parameter by name; a missing one is a bug of the graph's caller. */
  param(name: string): Value {
    const v = this.inp.params.get(name);
    if (!v) throw new Error(`parameter '${name}' is missing`);
    return v;
  }

  norm(x: Value, weight: Value): Value {
    const { ad, c } = this;
    return this.fused
      ? ad.nondiff('RMSNormalization', [x, weight], { axis: -1, epsilon: floatAttr(c.rms_norm_eps) }, [
          { shape: x.shape, dtype: ad.dtype },
        ])[0]!
      : ad.rmsNorm(x, weight, c.rms_norm_eps);
  }

  /** Layer l's attention block on the residual stream x: what it adds to x. */
  attention(x: Value, l: number): Value {
    const { ad, c } = this;
    const h = this.norm(x, this.param(paramName.attnNorm(l)));
    const ctx = this.fused ? this.fusedAttention(h, l) : this.composedAttention(h, l);
    return this.bias(ad.matmul(ctx, this.param(paramName.wo(l))), paramName.bo(l), c.attention_out_bias);
  }

  /** Layer l's feed-forward block on the residual stream x: a dense SwiGLU MLP or the mixture of experts, [N, H]. */
  feedForward(x: Value, l: number): Value {
    const { ad, c } = this;
    const P = (name: string) => this.param(name);
    const h2 = ad.reshape(this.norm(x, P(paramName.ffnNorm(l))), [-1, c.hidden_size]); // [N, H]
    if (!isMoeLayer(c, l))
      return swiglu(ad, h2, P(paramName.mlpGate(l)), P(paramName.mlpUp(l)), P(paramName.mlpDown(l)));
    return this.experts(h2, l);
  }

  private ropeAt(table: string): Value {
    const { ad, B, S, hd } = this;
    const [rows] = ad.nondiff('Gather', [table, this.inp.positions], { axis: 0 }, [
      { shape: [B, S, hd], dtype: ad.dtype },
    ]);
    return ad.nondiff('Unsqueeze', [rows!, this.g.ints([1])], {}, [{ shape: [B, 1, S, hd], dtype: ad.dtype }])[0]!;
  }

  private rope(x: Value): Value {
    const { ad } = this;
    return ad.add(ad.mul(x, this.cos), ad.mul(ad.matmul(x, this.rotate), this.sin));
  }

  /** [B, S, count*hd] -> [B, count, S, hd]. */
  private heads(x: Value, count: number): Value {
    return this.ad.transpose(this.ad.reshape(x, [this.bDim, this.sDim, count, this.hd]), [0, 2, 1, 3]);
  }

  private fusedRope(x: Value, count: number): Value {
    const { ad } = this;
    return ad.nondiff(
      'RotaryEmbedding',
      [x, this.cosHalf, this.sinHalf, this.inp.positions],
      { num_heads: count, interleaved: 0 },
      [{ shape: x.shape, dtype: ad.dtype }],
    )[0]!;
  }

  // Optional pieces of the imported families (config.ts): biases, and query/key RMSNorm before rotary,
  // per head (`[.., heads, hd]`, weight [hd]) or over the whole projection (`[.., heads * hd]`).
  private bias(v: Value, name: string, on: boolean | undefined): Value {
    return on ? this.ad.add(v, this.param(name)) : v;
  }

  private projNorm(v: Value, name: string): Value {
    return this.c.qk_norm === 'projection' ? this.norm(v, this.param(name)) : v;
  }

  private headNorm(v: Value, name: string): Value {
    return this.c.qk_norm === 'head' ? this.norm(v, this.param(name)) : v;
  }

  /** [B, S, count*hd] -> per-head norm -> [B, S, count*hd] (the fused path keeps heads in the last axis). */
  private flatHeadNorm(v: Value, name: string, count: number): Value {
    const { ad, bDim, sDim, hd } = this;
    return this.c.qk_norm === 'head'
      ? ad.reshape(this.norm(ad.reshape(v, [bDim, sDim, count, hd]), this.param(name)), [bDim, sDim, count * hd])
      : v;
  }

  /** Attention through the fused ops (inference, with a KV cache): the context [B, S, nh*hd]; the layer's cache output is collected. */
  private fusedAttention(h: Value, l: number): Value {
    const { ad, g, c, B, S, hd, nh, nkv } = this;
    const qkvBias = c.attention_qkv_bias;
    const past = this.inp.past![l]!;
    // One [H, (nh+2kv)*hd] matmul and a Split where the sampler has the fused weight (fewer nodes per step).
    const qkvWeight = this.inp.params.get(fusedQkvName(l));
    const [qLin, kLin, vLin] = qkvWeight
      ? ad.nondiff(
          'Split',
          [ad.matmul(h, qkvWeight), this.qkvSplit!],
          { axis: -1 },
          [nh, nkv, nkv].map((n) => ({ shape: [B, S, n * hd], dtype: ad.dtype })),
        )
      : [
          ad.matmul(h, this.param(paramName.wq(l))),
          ad.matmul(h, this.param(paramName.wk(l))),
          ad.matmul(h, this.param(paramName.wv(l))),
        ];
    const qn = this.flatHeadNorm(
      this.projNorm(this.bias(qLin!, paramName.bq(l), qkvBias), paramName.qNorm(l)),
      paramName.qNorm(l),
      nh,
    );
    const kn = this.flatHeadNorm(
      this.projNorm(this.bias(kLin!, paramName.bk(l), qkvBias), paramName.kNorm(l)),
      paramName.kNorm(l),
      nkv,
    );
    const q = this.fusedRope(qn, nh); // [B, S, nh*hd]
    const key = this.fusedRope(kn, nkv);
    const value = this.bias(vLin!, paramName.bv(l), qkvBias);
    if (this.inp.cacheOutputs === 'new') {
      this.prefillFlag ??= isPrefill(g, q);
      const { bDim, sDim } = this;
      const attended = newCacheAttention(ad, c, {
        q,
        key,
        value,
        past,
        mask: this.inp.attentionMask,
        mask4: this.inp.attentionMask4!,
        prefill: this.prefillFlag,
        bDim,
        sDim,
        B,
        S,
      });
      this.present.push({ key: attended.newKey, value: attended.newValue });
      return attended.ctx;
    }
    const [ctx, presentKey, presentValue] = ad.nondiff(
      'Attention',
      [q, key, value, this.inp.attentionMask4!, past.key, past.value],
      { q_num_heads: nh, kv_num_heads: nkv, scale: floatAttr(1 / Math.sqrt(hd)) },
      [
        { shape: [B, S, nh * hd], dtype: ad.dtype, name: past.presentKey ? g.fresh('attn') : undefined },
        { shape: [B, nkv, 'total', hd], dtype: ad.dtype, name: past.presentKey },
        { shape: [B, nkv, 'total', hd], dtype: ad.dtype, name: past.presentValue },
      ],
    );
    this.present.push({ key: presentKey!, value: presentValue! });
    return ctx!;
  }

  /** Attention composed of differentiable ops (grouped heads, the cache concatenated when there is one): the context [B, S, nh*hd]. */
  private composedAttention(h: Value, l: number): Value {
    const { ad, c, B, S, bDim, sDim, hd, nh, nkv } = this;
    const qkvBias = c.attention_qkv_bias;
    const qLin = this.projNorm(
      this.bias(ad.matmul(h, this.param(paramName.wq(l))), paramName.bq(l), qkvBias),
      paramName.qNorm(l),
    );
    const kLin = this.projNorm(
      this.bias(ad.matmul(h, this.param(paramName.wk(l))), paramName.bk(l), qkvBias),
      paramName.kNorm(l),
    );
    const q = this.rope(this.headNorm(this.heads(qLin, nh), paramName.qNorm(l))); // [B, nh, S, hd]
    let key = this.rope(this.headNorm(this.heads(kLin, nkv), paramName.kNorm(l))); // [B, nkv, S, hd]
    let value = this.heads(this.bias(ad.matmul(h, this.param(paramName.wv(l))), paramName.bv(l), qkvBias), nkv);
    this.attended.push({ key, value });
    const prefix = this.inp.prefix;
    if (prefix) {
      const before = prefix.at(l);
      key = ad.concat([before.key, key], 2);
      value = ad.concat([before.value, value], 2);
    }
    const past = this.inp.past?.[l];
    if (past) {
      // The cache is never differentiated: plain Concat nodes.
      key = ad.nondiff('Concat', [past.key, key], { axis: 2 }, [
        { shape: [B, nkv, 'total', hd], dtype: ad.dtype, name: past.presentKey },
      ])[0]!;
      value = ad.nondiff('Concat', [past.value, value], { axis: 2 }, [
        { shape: [B, nkv, 'total', hd], dtype: ad.dtype, name: past.presentValue },
      ])[0]!;
      this.present.push({ key, value });
    }
    // Grouped heads: queries [B, nkv, groups, S, hd] against keys [B, nkv, 1, T, hd] (broadcast over groups).
    const q5 = ad.reshape(q, [bDim, nkv, nh / nkv, sDim === 0 ? -1 : sDim, hd]);
    const keyLength = past ? -1 : prefix ? prefix.length + sDim : sDim;
    const k5 = ad.reshape(key, [bDim, nkv, 1, keyLength, hd]);
    const v5 = ad.reshape(value, [bDim, nkv, 1, keyLength, hd]);
    // Scaling the queries, not the scores: the same product on [S, hd] instead of [S, T].
    const chunk = this.inp.attentionChunk;
    const ctx5 =
      chunk && !past && typeof S === 'number' && S > chunk && S % chunk === 0
        ? causalBlocks(ad, ad.mul(q5, this.scale), k5, v5, this.maskBias, S, chunk, prefix?.length ?? 0) // [B, nkv, groups, S, hd]
        : ad.matmul(
            ad.softmax(ad.add(ad.matmul(ad.mul(q5, this.scale), ad.transpose(k5, [0, 1, 2, 4, 3])), this.maskBias), -1),
            v5,
          );
    return ad.reshape(ad.transpose(ad.reshape(ctx5, [bDim, nh, sDim === 0 ? -1 : sDim, hd]), [0, 2, 1, 3]), [
      bDim,
      sDim,
      nh * hd,
    ]);
  }

  /** The mixture of experts on h2 [N, H]: route, compute the chosen experts (and the shared one); the routing is collected. */
  private experts(h2: Value, l: number): Value {
    const { ad, c, inp } = this;
    const P = (name: string) => this.param(name);
    const { routerLogits, probs, topk, experts, gates } = this.route(h2, l);
    const routed =
      inp.expertCompute === 'dense'
        ? denseExperts(ad, c, l, P, h2, probs, experts, gates)
        : inp.expertCompute === 'sparse'
          ? sparseExperts(ad, c, l, P, h2, probs, experts, gates, inp.params.has(fusedGateUpName(l)))
          : fusedExperts(ad, c, l, P, h2, routerLogits);
    // Qwen2-MoE's shared expert, on every token, weighted by sigmoid(shared_expert_gate(x)).
    const moe = c.shared_expert_intermediate_size
      ? ad.add(
          routed,
          ad.mul(
            swiglu(ad, h2, P(paramName.sharedGate(l)), P(paramName.sharedUp(l)), P(paramName.sharedDown(l))),
            ad.sigmoid(ad.matmul(h2, P(paramName.sharedExpertGate(l)))),
          ),
        )
      : routed;
    this.routing.push({ probs, topk, experts, gates });
    this.moeIndex++;
    return moe;
  }

  /** The router: softmax over experts, its top-k (or the forced experts of R3), and the gate weights of the experts used. */
  private route(h2: Value, l: number): LayerRouting & { routerLogits: Value } {
    const { ad, g, c, inp, B, S, N } = this;
    const k = c.num_experts_per_tok;
    const routerLogits = ad.matmul(h2, this.param(paramName.router(l)));
    const probs = ad.softmax(routerLogits, -1); // [N, E]
    const [, topk] = ad.nondiff('TopK', [probs, g.ints([k])], { axis: -1, largest: 1, sorted: 1 }, [
      { shape: [N, k], dtype: ad.dtype },
      { shape: [N, k], dtype: 'int64' },
    ]);
    let experts = topk!;
    if (inp.forcedExperts) {
      // One entry per MoE layer (dense layers route nothing).
      const [layer] = ad.nondiff('Gather', [inp.forcedExperts, g.int(this.moeIndex)], { axis: 0 }, [
        { shape: [B, S, k], dtype: 'int64' },
      ]);
      experts = ad.nondiff('Reshape', [layer!, g.ints([-1, k])], {}, [{ shape: [N, k], dtype: 'int64' }])[0]!;
    }
    // Gate weights gathered from the full softmax (not a top-k-zeroed copy) so router gradients live.
    const chosen = ad.gatherElements(probs, experts, 1);
    // Renormalized over the k (Mixtral, Qwen3-MoE, t1-moe) or the plain softmax probabilities (norm_topk_prob false).
    const gates = (c.norm_topk_prob ?? true) ? ad.div(chosen, ad.reduceSum(chosen, [1], true)) : chosen; // [N, k]
    return { routerLogits, probs, topk: topk!, experts, gates };
  }
}

/** The first half of each row of a [positions, hd] rotary table (the fused RotaryEmbedding's layout). */
function halfTable(full: Float32Array | Float64Array, positions: number, hd: number): Float32Array {
  const half = new Float32Array(positions * (hd / 2));
  for (let p = 0; p < positions; p++) for (let i = 0; i < hd / 2; i++) half[p * (hd / 2) + i] = full[p * hd + i]!;
  return half;
}

/**
 * Attention over query blocks of `chunk` positions: block c's queries against keys and values [0, end of c),
 * with the mask's matching corner. Exact: the keys a block leaves out are the ones its causal mask zeroes.
 * With `offset` keys before the queries' own (a shared prefix), every block also reads those.
 */
function causalBlocks(
  ad: AutoDiff,
  q5: Value,
  k5: Value,
  v5: Value,
  maskBias: Value,
  S: number,
  chunk: number,
  offset = 0,
): Value {
  const blocks = ad.split(q5, 3, S / chunk).map((qc, c) => {
    const end = offset + (c + 1) * chunk;
    const keys = ad.slice(k5, 3, 0, end);
    const values = ad.slice(v5, 3, 0, end);
    const g = ad.graph;
    const [bias] = ad.nondiff(
      'Slice',
      [maskBias, g.ints([c * chunk, 0]), g.ints([(c + 1) * chunk, end]), g.ints([3, 4])],
      {},
      [{ shape: [...maskBias.shape.slice(0, 3), chunk, end], dtype: ad.dtype }],
    );
    const attn = ad.softmax(ad.add(ad.matmul(qc, ad.transpose(keys, [0, 1, 2, 4, 3])), bias!), -1);
    return ad.matmul(attn, values);
  });
  return ad.concat(blocks, 3);
}

/** down(silu(x gate) * (x up)): a dense MLP layer or a shared expert. */
function swiglu(ad: AutoDiff, x: Value, gate: Value, up: Value, down: Value): Value {
  return ad.matmul(ad.mul(ad.silu(ad.matmul(x, gate)), ad.matmul(x, up)), down);
}

function denseExperts(
  ad: AutoDiff,
  c: ModelConfig,
  l: number,
  P: (n: string) => Value,
  h2: Value,
  probs: Value,
  experts: Value,
  gates: Value,
): Value {
  const E = c.num_experts;
  const H = c.hidden_size;
  const gateMatrix = ad.scatterElementsIntoZeros(probs, experts, gates, 1); // [N, E], zero outside the chosen
  const hx = ad.reshape(h2, [1, -1, H]);
  const act = ad.mul(ad.silu(ad.matmul(hx, P(paramName.wGate(l)))), ad.matmul(hx, P(paramName.wUp(l)))); // [E, N, I]
  const out = ad.matmul(act, P(paramName.wDown(l))); // [E, N, H]
  const weights = ad.reshape(ad.transpose(gateMatrix, [1, 0]), [E, -1, 1]);
  return ad.reduceSum(ad.mul(out, weights), [0], false); // [N, H]
}

/** Names of the fused MoE op's weights (see `fusedMoeWeights`). */
/** The sampler's fused attention input projection: wq | wk | wv side by side, [H, (nh + 2 kv) * hd]. */
export const fusedQkvName = (l: number) => `layers.${l}.attn.fused_qkv`;

/**
 * Row-major matrices with the same `rows`, concatenated along their columns (wq | wk | wv: the matmul's
 * output columns in that order).
 */
export function sideBySide(rows: number, parts: readonly Float32Array[]): Float32Array {
  const widths = parts.map((w) => w.length / rows);
  const total = widths.reduce((a, b) => a + b, 0);
  const out = new Float32Array(rows * total);
  for (let r = 0; r < rows; r++) {
    let o = r * total;
    parts.forEach((w, i) => {
      out.set(w.subarray(r * widths[i]!, (r + 1) * widths[i]!), o);
      o += widths[i]!;
    });
  }
  return out;
}

/** The sampler's gate and up projections side by side per expert, [E, H, 2I]. */
export const fusedGateUpName = (l: number) => `layers.${l}.moe.fused_gate_up`;

export const fusedMoeName = {
  fc1: (l: number) => `layers.${l}.moe.fused_fc1`,
  fc2: (l: number) => `layers.${l}.moe.fused_fc2`,
} as const;

/**
 * The com.microsoft MoE op's weight layout: fc1 [E, 2I, H] with gate and up rows interleaved (SwiGLU
 * fusion), fc2 [E, H, I]; computed once from ours when the sampling graph is built.
 */
export function fusedMoeWeights(
  c: ModelConfig,
  wGate: Float32Array,
  wUp: Float32Array,
  wDown: Float32Array,
): { fc1: Float32Array; fc2: Float32Array } {
  const E = c.num_experts;
  const H = c.hidden_size;
  const I = c.moe_intermediate_size;
  const fc1 = new Float32Array(E * 2 * I * H);
  const fc2 = new Float32Array(E * H * I);
  for (let e = 0; e < E; e++) {
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < I; i++) {
        const src = (e * H + h) * I + i;
        fc1[(e * 2 * I + 2 * i) * H + h] = wGate[src]!;
        fc1[(e * 2 * I + 2 * i + 1) * H + h] = wUp[src]!;
        fc2[(e * H + h) * I + i] = wDown[(e * I + i) * H + h]!;
      }
    }
  }
  return { fc1, fc2 };
}

function fusedExperts(
  ad: AutoDiff,
  c: ModelConfig,
  l: number,
  P: (n: string) => Value,
  h2: Value,
  routerLogits: Value,
): Value {
  return ad.nondiff(
    'MoE',
    [h2, routerLogits, P(fusedMoeName.fc1(l)), '', P(fusedMoeName.fc2(l))],
    {
      k: c.num_experts_per_tok,
      activation_type: 'swiglu',
      swiglu_fusion: 1,
      activation_alpha: floatAttr(1),
      activation_beta: floatAttr(0),
      normalize_routing_weights: (c.norm_topk_prob ?? true) ? 1 : 0,
    },
    [{ shape: h2.shape, dtype: ad.dtype }],
    'com.microsoft',
  )[0]!;
}

function sparseExperts(
  ad: AutoDiff,
  c: ModelConfig,
  l: number,
  P: (n: string) => Value,
  h2: Value,
  probs: Value,
  experts: Value,
  gates: Value,
  fusedGateUp = false,
): Value {
  const E = c.num_experts;
  const g = ad.graph;
  const I = c.moe_intermediate_size;
  // The sampler's form: one [n, H] x [H, 2I] product per expert instead of two [H, I] ones (measured
  // 1.05-1.35x per decode step on micro at batch 8-64, bitwise the same logits); training keeps two.
  const gateUp = fusedGateUp ? ad.split(P(fusedGateUpName(l)), 0, E, true) : null;
  const wGate = gateUp ? [] : ad.split(P(paramName.wGate(l)), 0, E, true);
  const wUp = gateUp ? [] : ad.split(P(paramName.wUp(l)), 0, E, true);
  const wDown = ad.split(P(paramName.wDown(l)), 0, E, true);
  // Per expert, its gate weight for every token ([N, 1]; zero where not routed there).
  const gateColumns = ad.split(ad.scatterElementsIntoZeros(probs, experts, gates, 1), 1, E);
  let total: Value | null = null;
  for (let e = 0; e < E; e++) {
    const column = gateColumns[e]!;
    // Tokens routed to e. A gate that underflows to 0 drops its token, which contributes 0 x output anyway.
    const [routed] = ad.nondiff('Greater', [column, ad.constant(0)], {}, [{ shape: column.shape, dtype: 'bool' }]);
    const n = `n${l}_${e}`;
    const [nz] = ad.nondiff('NonZero', [routed!], {}, [{ shape: [2, n], dtype: 'int64' }]);
    const [flat] = ad.nondiff('Gather', [nz!, g.int(0)], { axis: 0 }, [{ shape: [n], dtype: 'int64' }]);
    const [rows] = ad.nondiff('Unsqueeze', [flat!, g.ints([1])], {}, [{ shape: [n, 1], dtype: 'int64' }]);
    const tokens = ad.gather(h2, flat!); // [n, H]
    let act: Value;
    if (gateUp) {
      const [gatePart, upPart] = ad.nondiff(
        'Split',
        [ad.matmul(tokens, gateUp[e]!).name],
        { axis: 1, num_outputs: 2 },
        [
          { shape: [n, I], dtype: ad.dtype },
          { shape: [n, I], dtype: ad.dtype },
        ],
      );
      act = ad.mul(ad.silu(gatePart!), upPart!);
    } else act = ad.mul(ad.silu(ad.matmul(tokens, wGate[e]!)), ad.matmul(tokens, wUp[e]!));
    const out = ad.mul(ad.matmul(act, wDown[e]!), ad.gather(column, flat!)); // [n, H]
    total = total ? ad.scatterRowsAdd(total, rows!, out) : ad.scatterRowsAddIntoZeros(h2, rows!, out);
  }
  return total!;
}

/**
 * Switch-style load-balancing loss of one layer: E * sum_e f_e * P_e, with f_e the fraction of routed
 * slots that went to expert e (no gradient) and P_e the mean router probability, both over real tokens
 * (`tokenMask` [N], 1 for a real token). Returns the loss and f (the expert load, for metrics).
 */
export function loadBalance(
  ad: AutoDiff,
  c: ModelConfig,
  r: LayerRouting,
  tokenMask: Value,
): { loss: Value; load: Value } {
  const E = c.num_experts;
  const k = c.num_experts_per_tok;
  const g = ad.graph;
  const mask = ad.reshape(tokenMask, [-1, 1]); // [N, 1]
  const count = ad.stopGradient(ad.reduceSum(tokenMask, [0], false));
  const denom = ad.maximum(count, ad.constant(1));
  const ones = ad.nondiff('Expand', [ad.constant(1), g.op('Shape', [r.experts.name])], {}, [
    { shape: r.experts.shape, dtype: ad.dtype },
  ])[0]!;
  const zeros = ad.nondiff('ConstantOfShape', [g.op('Shape', [r.probs.name])], {}, [
    { shape: r.probs.shape, dtype: ad.dtype },
  ])[0]!;
  // ConstantOfShape defaults to float32 zeros; cast keeps float64 graphs consistent.
  const zerosTyped = ad.cast(zeros, ad.dtype);
  const [slots] = ad.nondiff('ScatterElements', [zerosTyped, r.experts, ones], { axis: 1 }, [
    { shape: r.probs.shape, dtype: ad.dtype },
  ]);
  const load = ad.stopGradient(ad.div(ad.reduceSum(ad.mul(slots!, mask), [0], false), ad.mul(denom, ad.constant(k)))); // [E]
  const meanProb = ad.div(ad.reduceSum(ad.mul(r.probs, mask), [0], false), denom); // [E]
  return { loss: ad.mul(ad.reduceSum(ad.mul(load, meanProb), [0], false), ad.constant(E)), load };
}
