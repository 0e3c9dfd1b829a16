/**
 * The scoring/training graph over padded full sequences (static [B, T]; callers pad T to a bucket, see
 * `lengthBucket`). Parameters are graph inputs (the trainer owns them and runs the optimizer outside).
 *
 * Inputs:  every parameter (parameterSpecs order); input_ids [B,T] int64; targets [B,T] int64 (the next
 *          token at each position; anything at padding); attention_mask [B,T] float (1 real, 0 padding,
 *          right-padded); forced_experts [L,B,T,k] int64 (only with forcedRouting: R3 replay);
 *          the loss's own inputs.
 * Outputs: logprobs [B,T], values [B,T], experts [L,B,T,k] (the graph's own top-k, for agreement
 *          metrics), aux_loss [], router_load [L,E]; with a loss: loss [], metric.NAME [], grad.PARAM.
 */
import { AutoDiff, type Value } from '../onnx/autodiff';
import type { FloatType } from '../onnx/proto';
import { moeLayers, paramName, parameterSpecs, type ModelConfig } from './config';
import type { LossDefinition, TokenTerms } from './losses';
import { sharedPrefixForward } from './prefix-forward';
import { loadBalance, staticPositions, transformerForward, type ExpertCompute, type LayerRouting } from './transformer';

export interface TrainingGraphOptions {
  batch: number;
  length: number;
  dtype: FloatType;
  expertCompute: ExpertCompute;
  /** Adds the forced_experts input (R3): it replaces top-k selection; gates still come from the router. */
  forcedRouting: boolean;
  /** With a loss: gradients of it for every parameter. Without: a scoring graph (forward only). */
  loss: LossDefinition | null;
  /**
   * The sampling temperature the log-probs (and entropy) are of: logits / temperature, as the sampler draws
   * (default 1). PPO scores and trains the policy that sampled, so that ratios and TIS weights compare like
   * with like.
   */
  temperature?: number;
  /**
   * Adds the head_positions input ([M] int64, flat b * T + t): the vocabulary head (logits, log-softmax,
   * entropy) runs on those positions only, and `logprobs` is 0 elsewhere. A loss reads log-probs only where
   * its mask is set, and those are a fifth to a third of a PPO episode's tokens (observations and the prompt
   * carry no loss), while the [tokens, vocab] tensors of the head and their gradients were half of a PPO
   * micro-batch's time. The loss and every gradient are those of the full head (the masked positions add 0).
   */
  headPositions?: boolean;
  /** Causal attention in query blocks (`attentionBlock(T)`, or this many positions), exact; false: the full [T, T] product. Default true. */
  causalBlocks?: boolean | number;
  /**
   * Shared prompt prefixes forwarded once (prefix-forward.ts): `groups` prefix rows of `length` positions, and
   * the [B, T] rows hold what follows each prefix. Adds the inputs prefix_ids [G, P] int64, prefix_weights
   * [G, P] (how many rows read each prefix token, 0 at padding: the load-balancing loss counts a token as
   * often as the unshared rows would), row_prefix [B] int64, prefix_length [B] int64, positions [B, T] int64
   * and, with forced routing, prefix_forced_experts [L, G, P, k]. Prefix positions carry no loss.
   */
  sharedPrefix?: { groups: number; length: number };
}

export interface BuiltGraph {
  bytes: Uint8Array;
  inputNames: string[];
  outputNames: string[];
  nodeCount: number;
  buildMs: number;
}

/**
 * The query block of causal attention at padded length T: the largest of 256, 128 and 64 that cuts T into
 * at least 6 blocks (at most 7/12 of the full product's work left), none below 384 positions, where the
 * [T, T] tensors are small and more nodes would cost more than they save.
 */
export function attentionBlock(T: number): number | undefined {
  return [256, 128, 64].find((d) => T % d === 0 && T / d >= 6);
}

/** Pad lengths to few distinct shapes: powers of two up to 64, then multiples of 64. */
export function lengthBucket(length: number): number {
  if (length <= 8) return 8;
  if (length <= 64) return 2 ** Math.ceil(Math.log2(length));
  return Math.ceil(length / 64) * 64;
}

export function buildTrainingGraph(config: ModelConfig, options: TrainingGraphOptions): BuiltGraph {
  const started = performance.now();
  const { batch: B, length: T, dtype } = options;
  checkTrainable(config, T);
  const ad = new AutoDiff(dtype);
  const g = ad.graph;
  const { params, paramList, ids, targets, tokenMask, forced, lossInputs } = trainingInputs(ad, config, options);
  const chunkAt = (length: number) =>
    typeof options.causalBlocks === 'number'
      ? options.causalBlocks
      : options.causalBlocks !== false
        ? attentionBlock(length)
        : undefined;
  const shared = options.sharedPrefix ? prefixInputs(ad, config, options, options.sharedPrefix) : null;
  const fwd = shared
    ? sharedPrefixForward(ad, {
        config,
        params,
        expertCompute: options.expertCompute,
        attentionChunk: chunkAt,
        prefix: { ...shared.prefix, forcedExperts: shared.prefixForced },
        rows: { ...shared.rows, ids, forcedExperts: forced, batch: B, length: T },
      })
    : transformerForward(ad, {
        config,
        params,
        ids,
        ...staticPositions(ad, B, T),
        forcedExperts: forced,
        expertCompute: options.expertCompute,
        attentionChunk: chunkAt(T),
        batch: B,
        length: T,
      });
  const temperature = options.temperature ?? 1;
  const scored = scoreTargets(ad, config, params, fwd.hidden, targets, tokenMask, options);
  const values = ad.reshape(
    ad.add(ad.matmul(fwd.hidden, params.get(paramName.valueHead)!), params.get(paramName.valueBias)!),
    [B, T],
  );
  // With shared prefixes the routing covers the prefix tokens first, each weighted by the rows that read it.
  const routedTokens = shared ? shared.prefixTokens + B * T : B * T;
  const balanceWeights = shared
    ? ad.concat([ad.reshape(shared.weights, [shared.prefixTokens]), ad.reshape(tokenMask, [B * T])], 0)
    : tokenMask;
  const { balance, aux } = routerBalance(ad, config, fwd.routing, balanceWeights, routedTokens);
  let entropy: Value | null = null;
  const terms: TokenTerms = {
    batch: B,
    length: T,
    logprobs: scored.logprobs,
    values,
    tokenMask,
    auxLoss: aux,
    entropy() {
      entropy ??= scored.entropy();
      return entropy;
    },
  };
  ad.output(scored.logprobs, 'logprobs');
  ad.output(values, 'values');
  ad.output(aux, 'aux_loss');
  addRoutingOutputs(ad, config, fwd.routing, balance, B, T, shared?.prefixTokens ?? 0);
  if (options.loss) addLossAndGradients(ad, options.loss, terms, lossInputs, paramList);
  const bytes = g.toModel({
    docString: `t1-moe training graph B=${B} T=${T} ${dtype} ${options.expertCompute}${options.forcedRouting ? ' forced' : ''} loss=${options.loss?.name ?? 'none'}${temperature === 1 ? '' : ` temperature=${temperature}`}${shared ? ` prefix=${shared.prefix.groups}x${shared.prefix.length}` : ''}`,
  });
  return {
    bytes,
    inputNames: g.inputs.map((i) => i.name),
    outputNames: g.outputs.map((o) => o.name),
    nodeCount: g.nodes.length,
    buildMs: performance.now() - started,
  };
}

/** The padded length fits the model's window, and every layer routes (training covers MoE models only). */
function checkTrainable(config: ModelConfig, T: number): void {
  if (T > config.max_position_embeddings)
    throw new Error(`sequence length ${T} exceeds max_position_embeddings ${config.max_position_embeddings}`);
  // The trainer's routing records, R3 replay and load-balance metrics have one entry per layer: a model
  // with dense layers (a dense import, or mlp_only_layers) samples and evaluates, but does not train yet.
  const routed = moeLayers(config).length;
  if (routed !== config.num_hidden_layers) {
    throw new Error(
      `training graph: ${config.num_hidden_layers - routed} of ${config.num_hidden_layers} layers are dense (num_experts ${config.num_experts}${config.mlp_only_layers?.length ? `, mlp_only_layers ${config.mlp_only_layers.join(',')}` : ''}); training covers models whose every layer is a mixture of experts`,
    );
  }
}

/** The graph's inputs: every parameter (parameterSpecs order), ids, targets, the token mask, R3's forced experts, the loss's own. */
function trainingInputs(ad: AutoDiff, config: ModelConfig, options: TrainingGraphOptions) {
  const { batch: B, length: T, dtype } = options;
  const params = new Map<string, Value>();
  const paramList = parameterSpecs(config).map((p) => {
    const v = ad.input(p.name, p.shape);
    params.set(p.name, v);
    return v;
  });
  const ids = ad.input('input_ids', [B, T], 'int64');
  const targets = ad.input('targets', [B, T], 'int64');
  const tokenMask = ad.input('attention_mask', [B, T]);
  const forced = options.forcedRouting
    ? ad.input('forced_experts', [config.num_hidden_layers, B, T, config.num_experts_per_tok], 'int64')
    : undefined;
  const lossInputs: Record<string, Value> = {};
  for (const i of options.loss?.inputs ?? []) {
    lossInputs[i.name] = ad.input(
      i.name,
      i.kind === 'scalar-float' ? [] : [B, T],
      i.kind === 'tokens-int' ? 'int64' : dtype,
    );
  }
  return { params, paramList, ids, targets, tokenMask, forced, lossInputs };
}

/** The shared-prefix inputs (see TrainingGraphOptions.sharedPrefix). */
function prefixInputs(
  ad: AutoDiff,
  config: ModelConfig,
  options: TrainingGraphOptions,
  shape: { groups: number; length: number },
) {
  const { batch: B, length: T } = options;
  const { groups: G, length: P } = shape;
  if (!(G >= 1 && P >= 1)) throw new Error(`shared prefix ${G}x${P}: needs at least one prefix row and position`);
  if (P + T > config.max_position_embeddings)
    throw new Error(
      `a prefix of ${P} and rows of ${T} exceed max_position_embeddings ${config.max_position_embeddings}`,
    );
  return {
    prefix: { ids: ad.input('prefix_ids', [G, P], 'int64'), groups: G, length: P },
    prefixForced: options.forcedRouting
      ? ad.input('prefix_forced_experts', [config.num_hidden_layers, G, P, config.num_experts_per_tok], 'int64')
      : undefined,
    weights: ad.input('prefix_weights', [G, P]),
    prefixTokens: G * P,
    rows: {
      prefixOf: ad.input('row_prefix', [B], 'int64'),
      prefixLength: ad.input('prefix_length', [B], 'int64'),
      positions: ad.input('positions', [B, T], 'int64'),
    },
  };
}

/**
 * The vocabulary head at the temperature sampled at (at every position, or at head_positions only): the
 * log-prob of each target [B, T], and the entropy per position when a loss asks for it.
 */
function scoreTargets(
  ad: AutoDiff,
  config: ModelConfig,
  params: Map<string, Value>,
  hidden: Value,
  targets: Value,
  tokenMask: Value,
  options: TrainingGraphOptions,
): { logprobs: Value; entropy(): Value } {
  const g = ad.graph;
  const { batch: B, length: T } = options;
  const lmHead = config.tie_word_embeddings
    ? ad.transpose(params.get(paramName.embed)!, [1, 0])
    : params.get(paramName.lmHead)!;
  const head = options.headPositions
    ? headAt(ad, hidden, targets, tokenMask, ad.input('head_positions', ['heads'], 'int64'), B, T, config.hidden_size)
    : null;
  const logits = ad.matmul(head ? head.hidden : hidden, lmHead);
  const temperature = options.temperature ?? 1;
  if (!(temperature > 0) || !Number.isFinite(temperature))
    throw new Error(`temperature ${temperature}: must be a positive number`);
  const logProbs = ad.logSoftmax(temperature === 1 ? logits : ad.mul(logits, ad.constant(1 / temperature)), -1); // [B, T, V] or [M, V]
  const vocabAxis = head ? 1 : 2;
  const targetIdx = head ? head.targets : ad.wrap(g.op('Unsqueeze', [targets.name, g.ints([-1])]), [B, T, 1], 'int64');
  const picked = ad.gatherElements(logProbs, targetIdx, vocabAxis);
  const logprobs = head ? head.scatter(picked) : ad.reshape(picked, [B, T]);
  return {
    logprobs,
    entropy() {
      const perPosition = ad.neg(ad.reduceSum(ad.mul(ad.exp(logProbs), logProbs), [vocabAxis], !!head));
      return head ? head.scatter(perPosition) : perPosition;
    },
  };
}

/** Each layer's load-balance loss and expert load over the real tokens; aux_loss is their mean. */
function routerBalance(ad: AutoDiff, config: ModelConfig, routing: LayerRouting[], tokenMask: Value, tokens: number) {
  const flatMask = ad.reshape(tokenMask, [tokens]);
  const balance = routing.map((r) => loadBalance(ad, config, r, flatMask));
  let aux = balance[0]!.loss;
  for (const b of balance.slice(1)) aux = ad.add(aux, b.loss);
  aux = ad.mul(aux, ad.constant(1 / config.num_hidden_layers));
  return { balance, aux };
}

/** `experts` [L, B, T, k] (the graph's own top-k) and `router_load` [L, E]. */
function addRoutingOutputs(
  ad: AutoDiff,
  config: ModelConfig,
  routing: LayerRouting[],
  balance: { load: Value }[],
  B: number,
  T: number,
  prefixTokens: number,
): void {
  const g = ad.graph;
  const L = config.num_hidden_layers;
  const k = config.num_experts_per_tok;
  const stack = (vs: Value[], shape: number[], dtypeOut: 'int64' | FloatType) => {
    const parts = vs.map((v) => g.op('Unsqueeze', [v.name, g.ints([0])]));
    return ad.wrap(g.op('Concat', parts, { axis: 0 }), shape, dtypeOut);
  };
  // The rows' experts only: shared prefix tokens (routed first) have no [B, T] place.
  const rowsOf = (topk: Value) =>
    prefixTokens
      ? ad.wrap(
          g.op('Slice', [topk.name, g.ints([prefixTokens]), g.ints([prefixTokens + B * T]), g.ints([0])]),
          [B * T, k],
          'int64',
        )
      : topk;
  const experts = stack(
    routing.map((r) => rowsOf(r.topk)),
    [L, B * T, k],
    'int64',
  );
  ad.output(ad.wrap(g.op('Reshape', [experts.name, g.ints([L, B, T, k])]), [L, B, T, k], 'int64'), 'experts');
  ad.output(
    stack(
      balance.map((b) => b.load),
      [L, config.num_experts],
      ad.dtype,
    ),
    'router_load',
  );
}

/** The loss, its metrics, and its gradient for every parameter, as outputs. */
function addLossAndGradients(
  ad: AutoDiff,
  lossDef: LossDefinition,
  terms: TokenTerms,
  lossInputs: Record<string, Value>,
  paramList: Value[],
): void {
  const { loss, metrics } = lossDef.build(ad, terms, lossInputs);
  ad.output(loss, 'loss');
  for (const [name, v] of Object.entries(metrics)) ad.output(v, `metric.${name}`);
  const grads = ad.backward(loss, paramList);
  for (const p of paramList) ad.output(grads.get(p.name)!, `grad.${p.name}`);
}

/**
 * The head's rows: hidden states and targets at `positions` ([M] flat indices into B x T), and the way back
 * to [B, T] (zeros where the head did not run).
 */
function headAt(
  ad: AutoDiff,
  hidden: Value,
  targets: Value,
  tokenMask: Value,
  positions: Value,
  B: number,
  T: number,
  H: number,
): { hidden: Value; targets: Value; scatter(perRow: Value): Value } {
  const g = ad.graph;
  const rows = ad.gather(ad.reshape(hidden, [B * T, H]), positions); // [M, H]
  const [flatTargets] = ad.nondiff('Reshape', [targets, g.ints([B * T])], {}, [{ shape: [B * T], dtype: 'int64' }]);
  const [picked] = ad.nondiff('Gather', [flatTargets!, positions], { axis: 0 }, [{ shape: ['heads'], dtype: 'int64' }]);
  const [targetIdx] = ad.nondiff('Unsqueeze', [picked!, g.ints([-1])], {}, [{ shape: ['heads', 1], dtype: 'int64' }]);
  const [index] = ad.nondiff('Unsqueeze', [positions, g.ints([-1])], {}, [{ shape: ['heads', 1], dtype: 'int64' }]);
  const column = ad.reshape(tokenMask, [B * T, 1]); // only its shape: the scatter starts from zeros like it
  return {
    hidden: rows,
    targets: targetIdx!,
    scatter: (perRow) => ad.reshape(ad.scatterRowsAddIntoZeros(column, index!, ad.reshape(perRow, [-1, 1])), [B, T]),
  };
}
