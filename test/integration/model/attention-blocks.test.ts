/**
 * Causal attention in query blocks is the full [T, T] attention, exactly: on a float64 tiny MoE the training
 * graph with blocks of 8 (and of 16) gives the log-probs, values, loss and every gradient of the full product
 * to rounding, padded rows included; the block size the engine picks cuts long buckets into 6+ blocks.
 */
import { describe, expect, it } from 'vitest';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { sftLoss } from '../../../native/model/losses';
import { runTrainingStep } from '../../../native/model/train-step';
import { attentionBlock } from '../../../native/model/training-graph';
import { seededRandom } from '../../helpers/gradcheck';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';
import { gradientGaps } from '../../helpers/ppo-inputs';

const config = tinyConfig();
const B = 2;
const T = 32;

describe('causal attention in query blocks', () => {
  it('equals the full product in log-probs, values, loss and gradients', async () => {
    const random = seededRandom(9);
    const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
    const params = new Map([...tinyWeights(config, 4)].map(([k, v]) => [k, Float64Array.from(v)]));
    const inputIds = BigInt64Array.from({ length: B * T }, () => BigInt(Math.floor(random() * config.vocab_size)));
    const targets = BigInt64Array.from({ length: B * T }, (_, i) => inputIds[(i + 1) % (B * T)]!);
    const attentionMask = Float64Array.from({ length: B * T }, (_, i) => (i >= B * T - 11 ? 0 : 1));
    const lossMask = Float64Array.from({ length: B * T }, (_, i) => (i % 3 !== 0 && attentionMask[i] === 1 ? 1 : 0));
    const batch = {
      inputIds,
      targets,
      attentionMask,
      lossInputs: {
        loss_mask: { dtype: 'float64' as const, dims: [B, T], data: lossMask },
        aux_coef: { dtype: 'float64' as const, dims: [], data: Float64Array.of(0.01) },
      },
    };
    const full = await runTrainingStep(
      config,
      await cache.get({
        batch: B,
        length: T,
        forcedRouting: false,
        loss: sftLoss,
        dtype: 'float64',
        causalBlocks: false,
      }),
      params,
      batch,
    );
    for (const block of [8, 16]) {
      const entry = await cache.get({
        batch: B,
        length: T,
        forcedRouting: false,
        loss: sftLoss,
        dtype: 'float64',
        causalBlocks: block,
      });
      expect(entry.graph.nodeCount).toBeGreaterThan(
        (
          await cache.get({
            batch: B,
            length: T,
            forcedRouting: false,
            loss: sftLoss,
            dtype: 'float64',
            causalBlocks: false,
          })
        ).graph.nodeCount,
      );
      const got = await runTrainingStep(config, entry, params, batch);
      expect(got.loss).toBeCloseTo(full.loss, 12);
      for (let i = 0; i < B * T; i++) {
        expect(got.logprobs[i]).toBeCloseTo(full.logprobs[i]!, 12);
        expect(got.values[i]).toBeCloseTo(full.values[i]!, 12);
      }
      for (const [name, worst] of gradientGaps(full.gradients, got.gradients))
        expect(worst, `${name} with blocks of ${block}`).toBeLessThan(1e-12);
    }
    await cache.clear();
  });

  it('picks blocks that cut long buckets into at least 6, and leaves short ones whole', () => {
    expect([256, 320, 384, 512, 640, 1024, 1536, 1792, 2048].map(attentionBlock)).toEqual([
      undefined,
      undefined,
      64,
      64,
      64,
      128,
      256,
      256,
      256,
    ]);
  });
});
