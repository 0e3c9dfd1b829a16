/**
 * One forward+backward of a cached training graph: parameters, a padded batch and the loss's inputs in;
 * loss, metrics, per-token log-probs/values, routing and every parameter's gradient out. The optimizer
 * (AdamW) and the loss definitions (SFT here, PPO in electron/rl) live with the trainer.
 */
import type { HostTensor } from '../onnx/runtime';
import { parameterSpecs, type ModelConfig } from './config';
import type { CachedGraph } from './graph-cache';

export interface TrainingBatch {
  /** [B, T] ids, right-padded. */
  inputIds: BigInt64Array;
  /** [B, T] next-token ids (anything at padding). */
  targets: BigInt64Array;
  /** [B, T] 1 for real tokens. */
  attentionMask: Float32Array | Float64Array;
  /** [L, B, T, k] the sampler's experts (R3), when the graph was built with forced routing. */
  forcedExperts?: BigInt64Array;
  /** [M] flat positions (b * T + t) the vocabulary head runs on, for graphs built with headPositions. */
  headPositions?: BigInt64Array;
  /** The loss definition's inputs by name ([B, T] or scalars), already in the graph's layout. */
  lossInputs: Record<string, HostTensor>;
  /** Shared prompt prefixes forwarded once, for graphs built with `sharedPrefix` (see TrainingGraphOptions). */
  prefix?: SharedPrefixBatch;
}

export interface SharedPrefixBatch {
  groups: number;
  /** Padded prefix length P. */
  length: number;
  /** [G, P] ids, right-padded. */
  ids: BigInt64Array;
  /** [G, P] how many rows read each prefix token (0 at padding). */
  weights: Float32Array | Float64Array;
  /** [B] the prefix row of each row. */
  rowPrefix: BigInt64Array;
  /** [B] how many prefix positions each row reads (0: no prefix). */
  prefixLength: BigInt64Array;
  /** [B, T] each row's absolute positions. */
  positions: BigInt64Array;
  /** [L, G, P, k] R3's experts of the prefix tokens. */
  forcedExperts?: BigInt64Array;
}

export interface TrainingStepResult {
  loss: number;
  metrics: Record<string, number>;
  logprobs: Float32Array | Float64Array;
  values: Float32Array | Float64Array;
  experts: BigInt64Array;
  auxLoss: number;
  gradients: Map<string, Float32Array | Float64Array>;
}

export async function runTrainingStep(
  config: ModelConfig,
  entry: CachedGraph,
  params: ReadonlyMap<string, Float32Array | Float64Array>,
  batch: TrainingBatch,
): Promise<TrainingStepResult> {
  const { batch: B, length: T } = entry;
  const dtype = params.values().next().value instanceof Float64Array ? 'float64' : 'float32';
  const feeds: Record<string, HostTensor> = {
    input_ids: { dtype: 'int64', dims: [B, T], data: batch.inputIds },
    targets: { dtype: 'int64', dims: [B, T], data: batch.targets },
    attention_mask: { dtype, dims: [B, T], data: batch.attentionMask },
    ...batch.lossInputs,
  };
  if (entry.graph.inputNames.includes('head_positions')) {
    if (!batch.headPositions?.length)
      throw new Error(`training graph ${entry.key} runs its head at given positions, and the batch names none`);
    feeds.head_positions = { dtype: 'int64', dims: [batch.headPositions.length], data: batch.headPositions };
  }
  if (batch.forcedExperts)
    feeds.forced_experts = {
      dtype: 'int64',
      dims: [config.num_hidden_layers, B, T, config.num_experts_per_tok],
      data: batch.forcedExperts,
    };
  const names = entry.graph.inputNames;
  if (names.includes('prefix_ids') !== !!batch.prefix)
    throw new Error(
      `training graph ${entry.key} ${batch.prefix ? 'has no shared-prefix inputs, and the batch has a prefix' : 'reads shared prefixes, and the batch has none'}`,
    );
  if (batch.prefix) Object.assign(feeds, prefixFeeds(config, batch.prefix, B, T, dtype, names));
  for (const p of parameterSpecs(config)) {
    const data = params.get(p.name);
    if (!data) throw new Error(`parameter '${p.name}' is missing`);
    feeds[p.name] = { dtype, dims: p.shape, data };
  }
  const out = await entry.placement.session.run(feeds);
  const scalar = (name: string) => Number((out[name]!.data as Float32Array)[0]);
  const metrics: Record<string, number> = {};
  const gradients = new Map<string, Float32Array | Float64Array>();
  for (const [name, t] of Object.entries(out)) {
    if (name.startsWith('metric.')) metrics[name.slice(7)] = Number((t.data as Float32Array)[0]);
    if (name.startsWith('grad.')) gradients.set(name.slice(5), t.data as Float32Array);
  }
  return {
    loss: out.loss ? scalar('loss') : NaN,
    metrics,
    logprobs: out.logprobs!.data as Float32Array,
    values: out.values!.data as Float32Array,
    experts: out.experts!.data as BigInt64Array,
    auxLoss: scalar('aux_loss'),
    gradients,
  };
}

function prefixFeeds(
  config: ModelConfig,
  p: SharedPrefixBatch,
  B: number,
  T: number,
  dtype: 'float32' | 'float64',
  names: readonly string[],
): Record<string, HostTensor> {
  const { groups: G, length: P } = p;
  const feeds: Record<string, HostTensor> = {
    prefix_ids: { dtype: 'int64', dims: [G, P], data: p.ids },
    prefix_weights: { dtype, dims: [G, P], data: p.weights },
    row_prefix: { dtype: 'int64', dims: [B], data: p.rowPrefix },
    prefix_length: { dtype: 'int64', dims: [B], data: p.prefixLength },
    positions: { dtype: 'int64', dims: [B, T], data: p.positions },
  };
  if (names.includes('prefix_forced_experts')) {
    if (!p.forcedExperts) throw new Error('the training graph replays the prefix routing, and the batch has none');
    feeds.prefix_forced_experts = {
      dtype: 'int64',
      dims: [config.num_hidden_layers, G, P, config.num_experts_per_tok],
      data: p.forcedExperts,
    };
  }
  return feeds;
}
