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
import { prefixBatch, prefixClusters, promptKey, shareableLength, type SharedLayout } from './prefix-sharing';

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
  /** Real positions forwarded: `tokens` less what shared prefixes save (each shared prefix counts once). */
  forwarded: number;
  /** Positions computed, padding included: rows x length, plus the prefix rows' G x P. */
  computed: number;
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
  /**
   * Forward a prompt prefix that several sequences share once (prefix-sharing.ts), where that computes fewer
   * positions than padding each sequence whole. The loss, metrics and gradients are the same.
   */
  sharePrefixes?: boolean;
  /**
   * The prefix rows' padded length, when a caller fixes one for all its micro-batches (see `prefixBucket`):
   * each new (rows, length, prefix) shape costs a graph and a session. Default: the bucket of the longest
   * shared prefix. A micro-batch whose prefix does not fit it is packed whole.
   */
  prefixLength?: number;
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
  const B = microBatchRows(sequences.length, o.rows);
  const T = paddedLength(longest, o.maxLength);
  const shared = o.sharePrefixes ? sharedLayout(sequences, o, B, B * T) : null;
  return fillMicroBatch(sequences, o, B, shared?.rowLength ?? T, shared);
}

/**
 * One prefix length for a whole update: the bucket of the longest prompt of its sequences (the inputs before
 * their first sampled token). A step's micro-batches then make one prefix shape, not one per prompt length.
 */
export function prefixBucket(sequences: readonly TokenSequence[]): number {
  return lengthBucket(Math.max(1, ...sequences.map(shareableLength)));
}

/** The micro-batch's padded length for its longest sequence of `longest` positions. */
function paddedLength(longest: number, maxLength: number): number {
  const coarse = trainingBucket(longest);
  return coarse <= maxLength ? coarse : lengthBucket(longest);
}

/** The shared-prefix layout, when it computes fewer positions than `plainCost`; else null. */
function sharedLayout(
  sequences: readonly TokenSequence[],
  o: PackOptions,
  B: number,
  plainCost: number,
): SharedLayout | null {
  const clusters = prefixClusters(sequences);
  if (!clusters.length) return null;
  const clusterOf = sequences.map(() => -1);
  const offsets = sequences.map(() => 0);
  clusters.forEach((c, ci) =>
    c.members.forEach((m) => {
      clusterOf[m] = ci;
      offsets[m] = c.length;
    }),
  );
  const longestPrefix = Math.max(...clusters.map((c) => c.length));
  const prefixLength = o.prefixLength ?? lengthBucket(longestPrefix);
  if (longestPrefix > prefixLength) return null;
  const rowLength = paddedLength(Math.max(...sequences.map((s, i) => s.ids.length - 1 - offsets[i]!)), o.maxLength);
  if (prefixLength + rowLength > o.maxLength) return null;
  if (clusters.length * prefixLength + B * rowLength >= plainCost) return null;
  return { clusters, clusterOf, offsets, prefixLength, rowLength };
}

function fillMicroBatch(
  sequences: readonly TokenSequence[],
  o: PackOptions,
  B: number,
  T: number,
  shared: SharedLayout | null,
): PackedMicroBatch {
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
    // With a shared prefix the row holds positions off..n-1; the prefix row holds the rest once.
    const off = shared?.offsets[r] ?? 0;
    tokens += n;
    for (let t = off; t < n; t++) {
      inputIds[r * T + t - off] = BigInt(s.ids[t]!);
      targets[r * T + t - off] = BigInt(s.ids[t + 1]!);
      mask[r * T + t - off] = 1;
    }
    for (const i of perToken) {
      const values = s.tokenInputs[i.name];
      if (!values) throw new Error(`loss '${o.loss.name}' needs per-token input '${i.name}', which the sequence lacks`);
      if (values.length !== n)
        throw new Error(`per-token input '${i.name}' has ${values.length} values for ${n} positions`);
      const fl = floatInputs.get(i.name);
      const it = intInputs.get(i.name);
      for (let t = off; t < n; t++) {
        if (fl) fl[r * T + t - off] = values[t]!;
        else it![r * T + t - off] = BigInt(values[t]!);
      }
    }
    if (forced && s.forcedExperts) {
      const L = o.layers!;
      const k = o.topK!;
      for (let t = off; t < n; t++)
        for (let l = 0; l < L; l++)
          for (let j = 0; j < k; j++) forced[((l * B + r) * T + t - off) * k + j] = BigInt(s.forcedExperts[t]![l]![j]!);
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
  const prefix = shared
    ? prefixBatch(sequences, shared, B, T, forced ? { layers: o.layers!, k: o.topK! } : null)
    : null;
  const prefixPositions = shared ? shared.clusters.reduce((n, c) => n + c.length, 0) : 0;
  const skipped = shared ? shared.offsets.reduce((a, b) => a + b, 0) : 0;
  return {
    batch: {
      inputIds,
      targets,
      attentionMask: mask,
      headPositions,
      ...(forced ? { forcedExperts: forced } : {}),
      lossInputs,
      ...(prefix ? { prefix } : {}),
    },
    rows: B,
    length: T,
    tokens,
    forwarded: tokens - skipped + prefixPositions,
    computed: B * T + (shared ? shared.clusters.length * shared.prefixLength : 0),
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
export function planMicroBatches(
  sequences: readonly TokenSequence[],
  rows: number,
  sharing?: Omit<PackOptions, 'rows'>,
): TokenSequence[][] {
  const byLength = chunks(
    sequences.map((s, i) => ({ s, i })).sort((a, b) => a.s.ids.length - b.s.ids.length || a.i - b.i),
    rows,
  );
  if (!sharing?.sharePrefixes) return byLength;
  // Sequences of one prompt side by side (then by length), so that a micro-batch shares its prompt; taken
  // only where that computes fewer positions than the length order's padding.
  const byPrompt = chunks(
    sequences
      .map((s, i) => ({ s, i, prompt: promptKey(s) }))
      .sort(
        (a, b) =>
          (a.prompt < b.prompt ? -1 : a.prompt > b.prompt ? 1 : 0) || a.s.ids.length - b.s.ids.length || a.i - b.i,
      ),
    rows,
  );
  const cost = (plan: TokenSequence[][]) => plan.reduce((n, m) => n + microBatchCost(m, { ...sharing, rows }), 0);
  return cost(byPrompt) < cost(byLength) ? byPrompt : byLength;
}

function chunks(order: readonly { s: TokenSequence }[], rows: number): TokenSequence[][] {
  const out: TokenSequence[][] = [];
  for (let i = 0; i < order.length; i += rows) out.push(order.slice(i, i + rows).map((x) => x.s));
  return out;
}

/** Positions a micro-batch computes, padding and prefix rows included (what packMicroBatch would lay out). */
export function microBatchCost(sequences: readonly TokenSequence[], o: PackOptions): number {
  const B = microBatchRows(sequences.length, o.rows);
  const T = paddedLength(Math.max(...sequences.map((s) => s.ids.length - 1)), o.maxLength);
  const shared = o.sharePrefixes ? sharedLayout(sequences, o, B, B * T) : null;
  return shared ? shared.clusters.length * shared.prefixLength + B * shared.rowLength : B * T;
}
