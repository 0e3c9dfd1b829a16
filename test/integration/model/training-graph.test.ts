/**
 * The training graph's gradients against float64 finite differences over the whole tiny MoE model (SFT
 * loss + load-balance term, forced routing so the loss is smooth), for dense and sparse expert compute;
 * and forced routing (R3) reproducing the graph's own routing exactly.
 */
// float64 graphs run with 'basic' optimization: the extended fusions (e.g. x*sigmoid(x) -> QuickGelu) have float32 kernels only.
import { describe, expect, it } from 'vitest';
import { parameterSpecs } from '../../../native/model/config';
import { sftLoss } from '../../../native/model/losses';
import { buildTrainingGraph } from '../../../native/model/training-graph';
import { f64, i64, RuntimeSession, type HostTensor } from '../../../native/onnx/runtime';
import { seededRandom } from '../../helpers/gradcheck';
import { tinyConfig, tinyWeights, weightFeeds } from '../../helpers/tiny-model';

const config = tinyConfig();
const B = 2;
const T = 5;

function batchFeeds(random: () => number): Record<string, HostTensor> {
  const ids = Array.from({ length: B * T }, () => Math.floor(random() * config.vocab_size));
  const targets = Array.from({ length: B * T }, () => Math.floor(random() * config.vocab_size));
  const mask = Array.from({ length: B * T }, (_, i) => (i === B * T - 1 ? 0 : 1)); // last token of row 2 is padding
  return {
    input_ids: i64(ids, [B, T]),
    targets: i64(targets, [B, T]),
    attention_mask: f64(mask, [B, T]),
    loss_mask: f64(
      mask.map((m, i) => (i % T === 0 ? 0 : m)),
      [B, T],
    ),
    aux_coef: f64([0.1], []),
  };
}

describe('training graph gradients (float64 finite differences)', () => {
  for (const expertCompute of ['dense', 'sparse'] as const) {
    it(`matches finite differences for every parameter tensor (${expertCompute} experts)`, async () => {
      const random = seededRandom(11);
      const weights = weightFeeds(config, tinyWeights(config, 3), 'float64');
      const batch = batchFeeds(random);
      const scoring = buildTrainingGraph(config, {
        batch: B,
        length: T,
        dtype: 'float64',
        expertCompute,
        forcedRouting: false,
        loss: null,
      });
      const scorer = await RuntimeSession.create(scoring.bytes, {
        providers: ['cpu'],
        intraOpThreads: 1,
        graphOptimization: 'basic',
      });
      const routed = await scorer.run({
        ...weights,
        input_ids: batch.input_ids!,
        targets: batch.targets!,
        attention_mask: batch.attention_mask!,
      });
      await scorer.release();

      const built = buildTrainingGraph(config, {
        batch: B,
        length: T,
        dtype: 'float64',
        expertCompute,
        forcedRouting: true,
        loss: sftLoss,
      });
      const session = await RuntimeSession.create(built.bytes, {
        providers: ['cpu'],
        intraOpThreads: 1,
        graphOptimization: 'basic',
      });
      const feeds = { ...weights, ...batch, forced_experts: routed.experts! };
      const out = await session.run(feeds);
      // Forcing the graph's own choice reproduces the unforced forward exactly.
      expect(Array.from(out.logprobs!.data as Float64Array)).toEqual(Array.from(routed.logprobs!.data as Float64Array));
      expect(Array.from(out.experts!.data as BigInt64Array)).toEqual(Array.from(routed.experts!.data as BigInt64Array));

      const eps = 1e-6;
      let worst = 0;
      for (const p of parameterSpecs(config)) {
        const base = weights[p.name]!.data as Float64Array;
        const grad = out[`grad.${p.name}`]!.data as Float64Array;
        const coords = [...new Set(Array.from({ length: 4 }, () => Math.floor(random() * base.length)))];
        let diff = 0;
        let scale = 0;
        for (const i of coords) {
          const run = async (delta: number) => {
            const data = Float64Array.from(base);
            data[i] = base[i]! + delta;
            const o = await session.run({ ...feeds, [p.name]: { dtype: 'float64', dims: p.shape, data } }, ['loss']);
            return (o.loss!.data as Float64Array)[0]!;
          };
          const numeric = ((await run(eps)) - (await run(-eps))) / (2 * eps);
          diff = Math.max(diff, Math.abs(numeric - grad[i]!));
          scale = Math.max(scale, Math.abs(numeric));
        }
        worst = Math.max(worst, diff / Math.max(scale, 1e-3));
      }
      await session.release();
      expect(worst).toBeLessThan(1e-6);
    });
  }

  it('dense and sparse expert compute agree', async () => {
    const weights = weightFeeds(config, tinyWeights(config, 5), 'float64');
    const batch = batchFeeds(seededRandom(4));
    const results = [];
    for (const expertCompute of ['dense', 'sparse'] as const) {
      const built = buildTrainingGraph(config, {
        batch: B,
        length: T,
        dtype: 'float64',
        expertCompute,
        forcedRouting: false,
        loss: sftLoss,
      });
      const s = await RuntimeSession.create(built.bytes, {
        providers: ['cpu'],
        intraOpThreads: 1,
        graphOptimization: 'basic',
      });
      results.push(await s.run({ ...weights, ...batch }));
      await s.release();
    }
    const [dense, sparse] = results;
    const maxDiff = (a: HostTensor, b: HostTensor) =>
      Math.max(...Array.from(a.data as Float64Array, (v, i) => Math.abs(v - (b.data as Float64Array)[i]!)));
    expect(maxDiff(dense!.logprobs!, sparse!.logprobs!)).toBeLessThan(1e-12);
    expect(maxDiff(dense!['grad.layers.0.moe.router']!, sparse!['grad.layers.0.moe.router']!)).toBeLessThan(1e-12);
    expect(maxDiff(dense!['grad.layers.1.moe.w_down']!, sparse!['grad.layers.1.moe.w_down']!)).toBeLessThan(1e-12);
  });
});
