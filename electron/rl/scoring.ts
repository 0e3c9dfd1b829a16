/**
 * Scoring the exact sampled sequences with the trainer's weights: log-probs (at the loss positions; 0 elsewhere), values and the trainer's own
 * top-k, with the sampler's routing forced (R3) or free. Used for the old log-probs and values of PPO, for
 * the reference policy's log-probs (KL), and for the train-inference gap with R3 on and off.
 */
import type { ModelConfig } from '../../native/model/config';
import type { TrainingGraphCache } from '../../native/model/graph-cache';
import { runTrainingStep } from '../../native/model/train-step';
import { packRows, type PackedBatch, type TrainRow } from './batch';
import { gapOf, routingAgreement, unpack } from './gap';
import type { GapStats } from './token-metrics';

export type Params = ReadonlyMap<string, Float32Array | Float64Array>;

export interface Scored {
  logprobs: number[][];
  values: number[][];
  /** The graph's own top-k [L, B, T, k] of the packed batch. */
  experts: BigInt64Array;
  packed: PackedBatch;
}

/**
 * Score `rows` in one batch of `batch` rows (default: as many as rows; padding rows keep the graph shapes few).
 * `head`: 'loss' computes log-probs at the rows' loss positions only (0 elsewhere), what PPO and the gap read;
 * 'all' at every position.
 */
export async function scoreRows(
  config: ModelConfig,
  cache: TrainingGraphCache,
  params: Params,
  rows: readonly TrainRow[],
  r3: boolean,
  fallbackExperts?: BigInt64Array,
  batch?: number,
  temperature = 1,
  head: 'loss' | 'all' = 'loss',
): Promise<Scored> {
  const L = config.num_hidden_layers;
  const k = config.num_experts_per_tok;
  const forced = r3 && rows.some((r) => r.routing);
  const packed = packRows(rows, L, k, { fallbackExperts, batch });
  // PPO's readers of these log-probs (old and reference log-probs, the gap) read them at loss positions only.
  const entry = await cache.get({
    batch: packed.batch,
    length: packed.length,
    forcedRouting: forced,
    loss: null,
    temperature,
    headPositions: head === 'loss',
  });
  const out = await runTrainingStep(config, entry, params, {
    inputIds: packed.inputIds,
    targets: packed.targets,
    attentionMask: packed.attentionMask,
    ...(head === 'loss' ? { headPositions: lossPositions(rows, packed.length) } : {}),
    ...(forced ? { forcedExperts: packed.forcedExperts! } : {}),
    lossInputs: {},
  });
  const lengths = rows.map((r) => r.inputIds.length);
  return {
    logprobs: unpack(out.logprobs, packed.batch, packed.length, lengths),
    values: unpack(out.values, packed.batch, packed.length, lengths),
    experts: out.experts,
    packed,
  };
}

/** Flat positions (b * T + t) of the rows' loss tokens; position 0 when there is none (the head is never empty). */
function lossPositions(rows: readonly TrainRow[], T: number): BigInt64Array {
  const at: bigint[] = [];
  rows.forEach((r, b) => r.lossMask.forEach((m, t) => m === 1 && at.push(BigInt(b * T + t))));
  return at.length ? BigInt64Array.from(at) : BigInt64Array.of(0n);
}

export interface GapReport {
  r3: GapStats;
  free: GapStats;
  /** Per layer, the trainer's own top-k vs the sampler's experts (free routing pass). */
  agreement: number[];
  /** Input positions the sampler left without routing (filled from the trainer's own choice). */
  unrouted: number;
  /** The R3 pass, reusable as PPO's old log-probs and values. */
  scoredR3: Scored;
  scoredFree: Scored;
}

/** Score the batch free and with R3; compare both with the sampler's log-probs. */
export async function measureGap(
  config: ModelConfig,
  cache: TrainingGraphCache,
  params: Params,
  rows: readonly TrainRow[],
): Promise<GapReport> {
  const free = await scoreRows(config, cache, params, rows, false);
  const r3 = await scoreRows(config, cache, params, rows, true, free.experts);
  return {
    r3: gapOf(rows, r3.logprobs),
    free: gapOf(rows, free.logprobs),
    agreement: routingAgreement(rows, free.packed, free.experts, config.num_hidden_layers, config.num_experts_per_tok),
    unrouted: r3.packed.unrouted,
    scoredR3: r3,
    scoredFree: free,
  };
}
