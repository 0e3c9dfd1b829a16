/**
 * From token sequences to the engine's padded training batches. A sequence of n ids gives n-1 positions:
 * the model reads ids[0..n-2] and is scored on ids[1..n-1]; per-position loss inputs (loss_mask,
 * advantages, ...) are aligned with the scored ids. A micro-batch is right-padded to the length bucket
 * of its longest sequence and to a power of two rows (at most `rows`), so only a few graph shapes are
 * ever built (the graph cache keeps their sessions) and a short last micro-batch does not pay for full
 * rows of padding.
 */
import type { LossDefinition } from '../../../native/model/losses';
import type { TrainingBatch } from '../../../native/model/train-step';
import { lengthBucket } from '../../../native/model/training-graph';
import type { HostTensor } from '../../../native/onnx/runtime';

export interface TokenSequence {
  ids: readonly number[];
  /** Per scored position (length ids.length - 1), by loss input name, e.g. `loss_mask`. */
  tokenInputs: Readonly<Record<string, ArrayLike<number>>>;
  /** R3: the sampler's experts per read position [ids.length - 1][layers][k]. */
  forcedExperts?: readonly (readonly (readonly number[])[])[];
}

export interface PackedMicroBatch {
  batch: TrainingBatch;
  rows: number;
  /** Padded length (a bucket). */
  length: number;
  /** Real positions. */
  tokens: number;
  /** Sum of loss_mask (or real positions when the loss has none): the weight of this micro-batch. */
  lossTokens: number;
}

export interface PackOptions {
  /** Rows at most; a micro-batch of fewer sequences gets the next power of two (see `microBatchRows`). */
  rows: number;
  loss: LossDefinition;
  scalars: Readonly<Record<string, number>>;
  layers?: number;
  topK?: number;
  /** The longest padded length allowed (the model's window). */
  maxLength: number;
}

/**
 * The padded length of a micro-batch: the engine's buckets up to 256, then multiples of 128 up to 1024 and
 * of 256 beyond. Coarser than the engine's multiples of 64 for long sequences, so that SFT episodes of every
 * length make about a dozen graph shapes, not thirty (each costs seconds to build and a cached session).
 */
export function trainingBucket(length: number): number {
  if (length <= 256) return lengthBucket(length);
  if (length <= 1024) return Math.ceil(length / 128) * 128;
  return Math.ceil(length / 256) * 256;
}

/**
 * The rows a micro-batch of `count` sequences is padded to: the next power of two, at most `max`. Padding
 * 3 PPO samples to 8 rows of 2 000 tokens cost 2.7x the compute and memory of the 4 rows they need.
 */
export function microBatchRows(count: number, max: number): number {
  let rows = 1;
  while (rows < count) rows *= 2;
  return Math.min(rows, Math.max(max, count));
}

/** The longest padded length not above `max` that the engine's buckets produce (a graph shape). */
export function bucketFloor(max: number): number {
  if (max >= 64) return Math.floor(max / 64) * 64;
  return 2 ** Math.floor(Math.log2(Math.max(8, max)));
}

export function packMicroBatch(sequences: readonly TokenSequence[], o: PackOptions): PackedMicroBatch {
  if (sequences.length === 0 || sequences.length > o.rows)
    throw new Error(`a micro-batch holds 1..${o.rows} sequences, got ${sequences.length}`);
  const longest = Math.max(...sequences.map((s) => s.ids.length - 1));
  if (longest < 1) throw new Error('a training sequence needs at least 2 tokens');
  if (longest > o.maxLength)
    throw new Error(`a sequence of ${longest + 1} tokens exceeds the window of ${o.maxLength}`);
  const coarse = trainingBucket(longest);
  const T = coarse <= o.maxLength ? coarse : lengthBucket(longest);
  const B = microBatchRows(sequences.length, o.rows);
  const inputIds = new BigInt64Array(B * T);
  const targets = new BigInt64Array(B * T);
  const mask = new Float32Array(B * T);
  const lossInputs: Record<string, HostTensor> = {};
  const perToken = o.loss.inputs.filter((i) => i.kind !== 'scalar-float');
  const floatInputs = new Map<string, Float32Array>();
  const intInputs = new Map<string, BigInt64Array>();
  for (const i of perToken) {
    if (i.kind === 'tokens-int') intInputs.set(i.name, new BigInt64Array(B * T));
    else floatInputs.set(i.name, new Float32Array(B * T));
  }
  const forced =
    o.layers && o.topK && sequences.some((s) => s.forcedExperts)
      ? new BigInt64Array(o.layers * B * T * o.topK)
      : undefined;
  let tokens = 0;
  for (const [r, s] of sequences.entries()) {
    const n = s.ids.length - 1;
    tokens += n;
    for (let t = 0; t < n; t++) {
      inputIds[r * T + t] = BigInt(s.ids[t]!);
      targets[r * T + t] = BigInt(s.ids[t + 1]!);
      mask[r * T + t] = 1;
    }
    for (const i of perToken) {
      const values = s.tokenInputs[i.name];
      if (!values) throw new Error(`loss '${o.loss.name}' needs per-token input '${i.name}', which the sequence lacks`);
      if (values.length !== n)
        throw new Error(`per-token input '${i.name}' has ${values.length} values for ${n} positions`);
      const fl = floatInputs.get(i.name);
      const it = intInputs.get(i.name);
      for (let t = 0; t < n; t++) {
        if (fl) fl[r * T + t] = values[t]!;
        else it![r * T + t] = BigInt(values[t]!);
      }
    }
    if (forced && s.forcedExperts) {
      const L = o.layers!;
      const k = o.topK!;
      for (let t = 0; t < n; t++)
        for (let l = 0; l < L; l++)
          for (let j = 0; j < k; j++) forced[((l * B + r) * T + t) * k + j] = BigInt(s.forcedExperts[t]![l]![j]!);
    }
  }
  for (const [name, data] of floatInputs) lossInputs[name] = { dtype: 'float32', dims: [B, T], data };
  for (const [name, data] of intInputs) lossInputs[name] = { dtype: 'int64', dims: [B, T], data };
  for (const i of o.loss.inputs) {
    if (i.kind !== 'scalar-float') continue;
    const v = o.scalars[i.name];
    if (v === undefined) throw new Error(`loss '${o.loss.name}' needs scalar input '${i.name}'`);
    lossInputs[i.name] = { dtype: 'float32', dims: [], data: Float32Array.from([v]) };
  }
  const lm = floatInputs.get('loss_mask');
  let lossTokens = tokens;
  if (lm) {
    lossTokens = 0;
    for (const v of lm) lossTokens += v;
  }
  const headPositions = headPositionsOf(lm ?? mask);
  return {
    batch: {
      inputIds,
      targets,
      attentionMask: mask,
      headPositions,
      ...(forced ? { forcedExperts: forced } : {}),
      lossInputs,
    },
    rows: B,
    length: T,
    tokens,
    lossTokens,
  };
}

/**
 * The flat positions whose log-probs a loss reads: where `weights` (the loss mask, or the real tokens) is
 * not 0. A micro-batch without any still names position 0, so the head's tensors are never empty.
 */
export function headPositionsOf(weights: ArrayLike<number>): BigInt64Array {
  const at: bigint[] = [];
  for (let i = 0; i < weights.length; i++) if (weights[i] !== 0) at.push(BigInt(i));
  return at.length ? BigInt64Array.from(at) : BigInt64Array.of(0n);
}

/**
 * Split a step's sequences into micro-batches of at most `rows`, grouping similar lengths together
 * (sorted by length, stable) so that padding stays small.
 */
export function planMicroBatches(sequences: readonly TokenSequence[], rows: number): TokenSequence[][] {
  const order = sequences.map((s, i) => ({ s, i })).sort((a, b) => a.s.ids.length - b.s.ids.length || a.i - b.i);
  const out: TokenSequence[][] = [];
  for (let i = 0; i < order.length; i += rows) out.push(order.slice(i, i + rows).map((x) => x.s));
  return out;
}
