/**
 * The train-inference gap and routing agreement of a batch: the trainer scores the exact sampled sequences
 * twice — with the sampler's routing forced (R3) and with its own (free) routing — and compares log-probs
 * with the sampler's over the loss tokens; per MoE layer, the share of the sampler's experts the trainer's
 * own top-k picks too.
 */
import type { GapStats } from './token-metrics';
import type { PackedBatch, TrainRow } from './batch';

/** Per-row slices [B, T] -> the first `len` entries of each row. */
export function unpack(data: ArrayLike<number>, batch: number, length: number, lengths: readonly number[]): number[][] {
  return Array.from({ length: lengths.length }, (_, b) =>
    Array.from({ length: lengths[b]! }, (_, t) => Number(data[b * length + t]!)),
  );
}

export function gapOf(rows: readonly TrainRow[], trainer: readonly (readonly number[])[]): GapStats {
  let sum = 0;
  let max = 0;
  let n = 0;
  rows.forEach((row, b) => {
    row.lossMask.forEach((m, t) => {
      if (m !== 1) return;
      const d = Math.abs(trainer[b]![t]! - row.samplerLogprobs[t]!);
      sum += d;
      max = Math.max(max, d);
      n++;
    });
  });
  return { mean: n ? sum / n : 0, max, tokens: n };
}

/**
 * Per layer: mean over routed input tokens of |own top-k ∩ sampler's k| / k. `own` is the graph's `experts`
 * output [L, B, T, k] (its own top-k, whether or not routing was forced).
 */
export function routingAgreement(
  rows: readonly TrainRow[],
  packed: PackedBatch,
  own: BigInt64Array,
  layers: number,
  k: number,
): number[] {
  const B = packed.batch;
  const T = packed.length;
  const out: number[] = [];
  for (let l = 0; l < layers; l++) {
    let hit = 0;
    let total = 0;
    rows.forEach((row, b) => {
      row.routing?.forEach((route, t) => {
        if (!route || t >= row.inputIds.length) return;
        const mine = new Set<number>();
        for (let j = 0; j < k; j++) mine.add(Number(own[((l * B + b) * T + t) * k + j]!));
        for (const e of route[l]!) if (mine.has(e)) hit++;
        total += k;
      });
    });
    out.push(total ? hit / total : NaN);
  }
  return out;
}
