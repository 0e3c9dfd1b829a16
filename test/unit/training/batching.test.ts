/** Micro-batches: shifted targets, per-token loss inputs aligned with them, padding to few graph shapes. */
import { describe, expect, it } from 'vitest';
import { sftLoss } from '../../../native/model/losses';
import { lengthBucket } from '../../../native/model/training-graph';
import {
  bucketFloor,
  microBatchCost,
  microBatchRows,
  packMicroBatch,
  planMicroBatches,
  prefixBucket,
  trainingBucket,
} from '../../../electron/lab/training/batching';

describe('batching', () => {
  it('packs sequences: inputs, next-token targets, masks, padding rows', () => {
    const seqs = [
      { ids: [5, 6, 7, 8], tokenInputs: { loss_mask: [0, 1, 1] } },
      { ids: [9, 10], tokenInputs: { loss_mask: [1] } },
    ];
    const p = packMicroBatch([...seqs, seqs[1]!], {
      rows: 3,
      loss: sftLoss,
      scalars: { aux_coef: 0.5 },
      maxLength: 64,
    });
    expect(p.length).toBe(8);
    expect(p.rows).toBe(3);
    expect(p.tokens).toBe(5);
    expect(p.lossTokens).toBe(4);
    expect(Array.from(p.batch.inputIds.slice(0, 4), Number)).toEqual([5, 6, 7, 0]);
    expect(Array.from(p.batch.targets.slice(0, 4), Number)).toEqual([6, 7, 8, 0]);
    expect(Array.from(p.batch.inputIds.slice(8, 10), Number)).toEqual([9, 0]);
    expect(Array.from(p.batch.targets.slice(8, 10), Number)).toEqual([10, 0]);
    expect(Array.from(p.batch.attentionMask)).toEqual([
      1,
      1,
      1,
      0,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      ...Array(7).fill(0),
    ]);
    expect(Array.from(p.batch.lossInputs.loss_mask!.data as Float32Array).slice(0, 10)).toEqual([
      0, 1, 1, 0, 0, 0, 0, 0, 1, 0,
    ]);
    expect(Array.from(p.batch.lossInputs.aux_coef!.data as Float32Array)).toEqual([0.5]);
    expect(() => packMicroBatch(seqs, { rows: 3, loss: sftLoss, scalars: {}, maxLength: 64 })).toThrow(
      /scalar input 'aux_coef'/,
    );
    expect(() =>
      packMicroBatch([{ ids: [1, 2, 3], tokenInputs: { loss_mask: [1] } }], {
        rows: 1,
        loss: sftLoss,
        scalars: { aux_coef: 0 },
        maxLength: 64,
      }),
    ).toThrow(/1 values for 2 positions/);
  });

  it('pads rows to a power of two, never past the limit', () => {
    expect([1, 2, 3, 4, 5, 8].map((n) => microBatchRows(n, 8))).toEqual([1, 2, 4, 4, 8, 8]);
    expect(microBatchRows(3, 3)).toBe(3);
    const seq = { ids: [1, 2, 3], tokenInputs: { loss_mask: [1, 1] } };
    const p = packMicroBatch([seq, seq, seq], { rows: 8, loss: sftLoss, scalars: { aux_coef: 0 }, maxLength: 64 });
    expect(p.rows).toBe(4);
    expect(p.batch.inputIds.length).toBe(4 * p.length);
    expect(Array.from(p.batch.attentionMask.slice(3 * p.length))).toEqual(Array(p.length).fill(0));
  });

  it('pads to few shapes that the graph cache keeps as they are', () => {
    const shapes = new Set<number>();
    for (let n = 1; n <= 2048; n++) {
      const t = trainingBucket(n);
      expect(t).toBeGreaterThanOrEqual(n);
      expect(lengthBucket(t)).toBe(t); // a fixed point: the cache builds exactly this length
      shapes.add(t);
    }
    expect(shapes.size).toBeLessThanOrEqual(18);
    for (const max of [20, 100, 300, 2048]) expect(lengthBucket(bucketFloor(max))).toBe(bucketFloor(max));
    expect(bucketFloor(300)).toBe(256);
    // Near the window, the engine's finer bucket is used rather than exceeding it.
    const seq = {
      ids: Array.from({ length: 1090 }, (_, i) => i % 50),
      tokenInputs: { loss_mask: new Float32Array(1089).fill(1) },
    };
    expect(packMicroBatch([seq], { rows: 1, loss: sftLoss, scalars: { aux_coef: 0 }, maxLength: 1152 }).length).toBe(
      1152,
    );
  });

  it('groups similar lengths into micro-batches', () => {
    const seq = (n: number) => ({ ids: Array(n).fill(1), tokenInputs: {} });
    const groups = planMicroBatches([seq(100), seq(10), seq(90), seq(12)], 2);
    expect(groups.map((g) => g.map((s) => s.ids.length))).toEqual([
      [10, 12],
      [90, 100],
    ]);
  });

  it('puts sequences of one prompt into one micro-batch where sharing it computes fewer positions', () => {
    // Two prompts of 300 inputs, four episodes each, whose lengths interleave: the length order mixes prompts.
    const episode = (prompt: number, n: number) => ({
      ids: [...Array<number>(300).fill(prompt), ...Array<number>(n - 300).fill(9)],
      tokenInputs: { loss_mask: Array.from({ length: n - 1 }, (_, t) => (t >= 300 ? 1 : 0)) },
    });
    const seqs = [400, 420, 440, 460].flatMap((n) => [episode(1, n), episode(2, n + 5)]);
    const options = { loss: sftLoss, scalars: { aux_coef: 0 }, maxLength: 1024 };
    const plain = planMicroBatches(seqs, 4);
    expect(plain.map((m) => m.map((s) => s.ids[0]))).toEqual([
      [1, 2, 1, 2],
      [1, 2, 1, 2],
    ]);
    const shared = planMicroBatches(seqs, 4, { ...options, sharePrefixes: true });
    expect(shared.map((m) => m.map((s) => s.ids[0]))).toEqual([
      [1, 1, 1, 1],
      [2, 2, 2, 2],
    ]);
    const cost = (plan: typeof plain) =>
      plan.reduce((n, m) => n + microBatchCost(m, { ...options, rows: 4, sharePrefixes: true }), 0);
    expect(cost(shared)).toBeLessThan(cost(plain));
    // Packed, each micro-batch forwards its prompt once: 3 x 300 positions fewer.
    const packed = packMicroBatch(shared[0]!, { ...options, rows: 4, sharePrefixes: true });
    expect(packed.tokens - packed.forwarded).toBe(3 * 300);
    // Without the option, the length order whatever the prompts.
    expect(planMicroBatches(seqs, 4, { ...options, sharePrefixes: false })).toEqual(plain);
    // One prefix shape for an update: the bucket of its longest prompt; a prompt longer than a fixed one is not shared.
    expect(prefixBucket(seqs)).toBe(320);
    expect(
      packMicroBatch(shared[0]!, { ...options, rows: 4, sharePrefixes: true, prefixLength: 320 }).batch.prefix!.length,
    ).toBe(320);
    expect(
      packMicroBatch(shared[0]!, { ...options, rows: 4, sharePrefixes: true, prefixLength: 256 }).batch.prefix,
    ).toBeUndefined();
  });
});
