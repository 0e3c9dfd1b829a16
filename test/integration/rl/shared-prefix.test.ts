/**
 * Shared prompt prefixes forwarded once: a PPO micro-batch whose rows share a prompt (with R3's replayed
 * experts on it) packed with one prefix row gives the loss, every metric and every gradient of the same rows
 * packed whole (float64, so equal to rounding), with causal attention in blocks and in one product; it
 * forwards fewer positions; and a prefix row that differs from the rows' own prompt changes the loss, so the
 * equality is not vacuous.
 */
import { describe, expect, it } from 'vitest';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { runTrainingStep, type TrainingBatch } from '../../../native/model/train-step';
import type { HostTensor } from '../../../native/onnx/runtime';
import { packMicroBatch, type TokenSequence } from '../../../electron/lab/training/batching';
import { PPO_TOKEN_INPUTS, ppoLoss } from '../../../electron/rl/ppo-loss';
import { seededRandom } from '../../helpers/gradcheck';
import { gradientGaps, PPO_TEST_COEFFICIENTS } from '../../helpers/ppo-inputs';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig({ max_position_embeddings: 512 });
const L = config.num_hidden_layers;
const K = config.num_experts_per_tok;
const SCALARS = { inv_tokens: 1 / 50, ...PPO_TEST_COEFFICIENTS };

/** Three episodes of one prompt (40 shared input positions) and one of another, with sampled spans after it. */
function sequences(): TokenSequence[] {
  const random = seededRandom(9);
  const token = () => Math.floor(random() * config.vocab_size);
  const route = (): number[][] =>
    Array.from({ length: L }, () => {
      const first = Math.floor(random() * config.num_experts);
      return [first, (first + 1 + Math.floor(random() * (config.num_experts - 1))) % config.num_experts];
    });
  const prompt = Array.from({ length: 41 }, token);
  const promptRoutes = Array.from({ length: 41 }, route);
  const other = Array.from({ length: 41 }, token);
  const otherRoutes = Array.from({ length: 41 }, route);
  return [70, 95, 58, 50].map((n, r) => {
    const ids = [...(r === 3 ? other : prompt), ...Array.from({ length: n - 41 }, token)];
    const forcedExperts = [...(r === 3 ? otherRoutes : promptRoutes), ...Array.from({ length: n - 41 }, route)].slice(
      0,
      n - 1,
    );
    const tokenInputs: Record<string, number[]> = {};
    for (const name of PPO_TOKEN_INPUTS)
      tokenInputs[name] = Array.from({ length: n - 1 }, (_, t) =>
        name === 'loss_mask' ? (t >= 41 && t % 7 !== 0 ? 1 : 0) : name === 'tis_weights' ? 1 : -1.5 + random(),
      );
    return { ids, tokenInputs, forcedExperts };
  });
}

/** The packed batch in float64 (the packer writes float32 for the float32 graphs the trainer runs). */
function asFloat64(batch: TrainingBatch): TrainingBatch {
  const lossInputs: Record<string, HostTensor> = {};
  for (const [name, t] of Object.entries(batch.lossInputs))
    lossInputs[name] =
      t.dtype === 'float32' ? { ...t, dtype: 'float64', data: Float64Array.from(t.data as Float32Array) } : t;
  return {
    ...batch,
    attentionMask: Float64Array.from(batch.attentionMask),
    lossInputs,
    ...(batch.prefix ? { prefix: { ...batch.prefix, weights: Float64Array.from(batch.prefix.weights) } } : {}),
  };
}

describe('shared prompt prefixes forwarded once', () => {
  it.each([
    ['attention in query blocks', 16],
    ['attention in one product', false],
  ] as const)(
    'give the whole rows loss, metrics and gradients (%s)',
    async (_, causalBlocks) => {
      const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
      const params = new Map([...tinyWeights(config, 4)].map(([k, v]) => [k, Float64Array.from(v)]));
      const seqs = sequences();
      const options = { rows: 4, loss: ppoLoss, scalars: SCALARS, maxLength: 512, layers: L, topK: K };
      const whole = packMicroBatch(seqs, options);
      const shared = packMicroBatch(seqs, { ...options, sharePrefixes: true });
      expect(whole.batch.prefix).toBeUndefined();
      const prefix = shared.batch.prefix!;
      expect(prefix.groups).toBe(1);
      expect(Array.from(prefix.prefixLength)).toEqual([41n, 41n, 41n, 0n]);
      expect(shared.tokens).toBe(whole.tokens);
      expect(shared.forwarded).toBe(whole.tokens - 2 * 41);
      expect(shared.computed).toBeLessThan(whole.computed);

      const shape = {
        forcedRouting: true,
        loss: ppoLoss,
        dtype: 'float64' as const,
        headPositions: true,
        causalBlocks,
      };
      const a = await runTrainingStep(
        config,
        await cache.get({ ...shape, batch: whole.rows, length: whole.length }),
        params,
        asFloat64(whole.batch),
      );
      const sharedEntry = await cache.get({
        ...shape,
        batch: shared.rows,
        length: shared.length,
        sharedPrefix: { groups: prefix.groups, length: prefix.length },
      });
      const b = await runTrainingStep(config, sharedEntry, params, asFloat64(shared.batch));
      expect(b.loss).toBeCloseTo(a.loss, 10);
      for (const [name, value] of Object.entries(a.metrics)) expect(b.metrics[name], name).toBeCloseTo(value, 10);
      expect(b.auxLoss).toBeCloseTo(a.auxLoss, 10);
      for (const [name, worst] of gradientGaps(a.gradients, b.gradients)) expect(worst, name).toBeLessThan(1e-10);

      // A prefix row that is not the rows' prompt: the rows read it, so the loss moves.
      const wrong = asFloat64(shared.batch);
      const ids = BigInt64Array.from(prefix.ids);
      ids[5] = (ids[5]! + 1n) % BigInt(config.vocab_size);
      const c = await runTrainingStep(config, sharedEntry, params, { ...wrong, prefix: { ...wrong.prefix!, ids } });
      expect(Math.abs(c.loss - a.loss)).toBeGreaterThan(1e-8);
      await cache.clear();
    },
    120_000,
  );

  it('keeps a micro-batch whole where no prompt is shared, and stops sharing at the first loss position', () => {
    const seqs = sequences();
    const options = {
      rows: 4,
      loss: ppoLoss,
      scalars: SCALARS,
      maxLength: 512,
      layers: L,
      topK: K,
      sharePrefixes: true,
    };
    expect(packMicroBatch([seqs[0]!, seqs[3]!], options).batch.prefix).toBeUndefined();
    // A loss position at 20 inside one row's prompt: fewer than MIN_SHARED_PREFIX positions before it, so
    // that row is forwarded whole and the two others share.
    const lossAt20 = Array.from(seqs[2]!.tokenInputs.loss_mask!, (v, t) => (t === 20 ? 1 : v));
    const early = { ...seqs[2]!, tokenInputs: { ...seqs[2]!.tokenInputs, loss_mask: lossAt20 } };
    const packed = packMicroBatch([seqs[0]!, seqs[1]!, early], options);
    expect(Array.from(packed.batch.prefix!.prefixLength)).toEqual([41n, 41n, 0n, 0n]);
    // Routes that differ at position 35: the prefix stops before it.
    const rerouted = {
      ...seqs[1]!,
      forcedExperts: seqs[1]!.forcedExperts!.map((r, t) => (t === 35 ? r.map(([e1, e2]) => [e2!, e1!]) : r)),
    };
    const cut = packMicroBatch([seqs[0]!, rerouted, seqs[2]!], options).batch.prefix!;
    expect(Array.from(cut.prefixLength)).toEqual([35n, 35n, 35n, 0n]);
  });
});
