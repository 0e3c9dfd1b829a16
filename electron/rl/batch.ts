/**
 * From ledger samples to the training graph's rows. A sample's ids t_0..t_{n-1} become inputs t_0..t_{n-2}
 * and targets t_1..t_{n-1}; graph position p scores target t_{p+1}, so a sampled token at ledger index j is
 * the loss position j - 1, with its sampler log-prob, and its value is V(state before sampling it). The
 * routing replayed at position p is the sampler's routing of input token t_p (R3 on every token).
 */
import { lengthBucket } from '../../native/model/training-graph';
import type { LedgerSample } from '../domain/trajectory';

export interface TrainRow {
  /** Graph inputs (n - 1 tokens) and targets. */
  inputIds: number[];
  targets: number[];
  /** 1 at loss positions (the target was sampled and is in the loss). */
  lossMask: number[];
  /** The sampler's log-prob of each target (0 where not a loss position). */
  samplerLogprobs: number[];
  /** Per input position, per layer, the sampler's k experts (null: the sampler never processed it). */
  routing: (number[][] | null)[] | null;
}

export function rowFromSample(sample: Pick<LedgerSample, 'ids' | 'mask' | 'logprobs' | 'routing'>): TrainRow {
  const n = sample.ids.length;
  const lossMask: number[] = [];
  const samplerLogprobs: number[] = [];
  for (let j = 1; j < n; j++) {
    const inLoss = sample.mask[j] === 1 && sample.logprobs[j] !== null;
    lossMask.push(inLoss ? 1 : 0);
    samplerLogprobs.push(inLoss ? sample.logprobs[j]! : 0);
  }
  return {
    inputIds: sample.ids.slice(0, n - 1),
    targets: sample.ids.slice(1),
    lossMask,
    samplerLogprobs,
    routing: sample.routing ? sample.routing.slice(0, n - 1) : null,
  };
}

export interface PackedBatch {
  batch: number;
  length: number;
  inputIds: BigInt64Array;
  targets: BigInt64Array;
  attentionMask: Float32Array;
  /** [L, B, T, k]; positions without a record get the trainer's own experts when `fallback` is given, else 0..k-1. */
  forcedExperts: BigInt64Array | null;
  /** Input positions that had no sampler routing (replayed from the fallback). */
  unrouted: number;
}

/** Right-pad rows to one [B, T] bucket (T = lengthBucket of the longest row unless `length` is given). */
export function packRows(
  rows: readonly TrainRow[],
  layers: number,
  k: number,
  options: { batch?: number; length?: number; fallbackExperts?: BigInt64Array } = {},
): PackedBatch {
  const B = options.batch ?? rows.length;
  const T = options.length ?? lengthBucket(Math.max(1, ...rows.map((r) => r.inputIds.length)));
  if (rows.length > B) throw new Error(`packRows: ${rows.length} rows for a batch of ${B}`);
  const inputIds = new BigInt64Array(B * T);
  const targets = new BigInt64Array(B * T);
  const attentionMask = new Float32Array(B * T);
  const anyRouting = rows.some((r) => r.routing);
  const forced = anyRouting ? new BigInt64Array(layers * B * T * k) : null;
  let unrouted = 0;
  rows.forEach((row, b) => {
    if (row.inputIds.length > T) throw new Error(`packRows: a row of ${row.inputIds.length} tokens does not fit ${T}`);
    row.inputIds.forEach((id, t) => {
      inputIds[b * T + t] = BigInt(id);
      targets[b * T + t] = BigInt(row.targets[t]!);
      attentionMask[b * T + t] = 1;
    });
  });
  if (forced) {
    for (let b = 0; b < B; b++) {
      const row = rows[b];
      for (let t = 0; t < T; t++) {
        const route = row?.routing?.[t] ?? null;
        if (row && t < row.inputIds.length && !route) unrouted++;
        for (let l = 0; l < layers; l++) {
          for (let j = 0; j < k; j++) {
            const at = ((l * B + b) * T + t) * k + j;
            forced[at] = route ? BigInt(route[l]![j]!) : (options.fallbackExperts?.[at] ?? BigInt(j));
          }
        }
      }
    }
  }
  return { batch: B, length: T, inputIds, targets, attentionMask, forcedExperts: forced, unrouted };
}
