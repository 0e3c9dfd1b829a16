/**
 * The PPO loss with the entropy as a metric only: with ent_coef = 0, the loss, every metric and every
 * gradient equal the full loss's (float64); with an entropy bonus the two differ, so the variant is only
 * right where the trainer uses it (ent_coef = 0).
 */
import { describe, expect, it } from 'vitest';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { runTrainingStep } from '../../../native/model/train-step';
import { headPositionsOf } from '../../../electron/lab/training/batching';
import { ppoLoss, ppoLossEntropyMetric } from '../../../electron/rl/ppo-loss';
import { seededRandom } from '../../helpers/gradcheck';
import { gradientGaps, PPO_TEST_COEFFICIENTS, ppoLossInputs } from '../../helpers/ppo-inputs';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig();
const B = 2;
const T = 16;

function batch(entCoef: number) {
  const random = seededRandom(8);
  const inputIds = BigInt64Array.from({ length: B * T }, () => BigInt(Math.floor(random() * config.vocab_size)));
  const targets = BigInt64Array.from({ length: B * T }, (_, i) => inputIds[(i + 1) % (B * T)]!);
  const attentionMask = Float64Array.from({ length: B * T }, (_, i) => (i >= B * T - 3 ? 0 : 1));
  const lossMask = Float64Array.from({ length: B * T }, (_, i) => (i % T > 4 && attentionMask[i] === 1 ? 1 : 0));
  const lossInputs = ppoLossInputs(random, B, T, lossMask, { ...PPO_TEST_COEFFICIENTS, ent_coef: entCoef });
  return { inputIds, targets, attentionMask, lossInputs, headPositions: headPositionsOf(lossMask) };
}

describe('the PPO loss with the entropy as a metric', () => {
  it('gives the full loss gradients at ent_coef 0 and differs with an entropy bonus', async () => {
    const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
    const params = new Map([...tinyWeights(config, 6)].map(([k, v]) => [k, Float64Array.from(v)]));
    const shape = { batch: B, length: T, forcedRouting: false, dtype: 'float64' as const, headPositions: true };
    const full = await cache.get({ ...shape, loss: ppoLoss });
    const metric = await cache.get({ ...shape, loss: ppoLossEntropyMetric });
    const worstDiff = (a: Map<string, ArrayLike<number>>, b: Map<string, ArrayLike<number>>) =>
      Math.max(...gradientGaps(a, b).values());

    const a = await runTrainingStep(config, full, params, batch(0));
    const b = await runTrainingStep(config, metric, params, batch(0));
    expect(b.loss).toBeCloseTo(a.loss, 12);
    for (const [name, value] of Object.entries(a.metrics)) expect(b.metrics[name], name).toBeCloseTo(value, 12);
    expect(worstDiff(a.gradients, b.gradients)).toBeLessThan(1e-12);

    const c = await runTrainingStep(config, full, params, batch(0.5));
    const d = await runTrainingStep(config, metric, params, batch(0.5));
    expect(d.loss).toBeCloseTo(c.loss, 12); // the same value: only the gradient leaves the entropy out
    expect(worstDiff(c.gradients, d.gradients)).toBeGreaterThan(1e-6);
    // The metric graph is smaller: the entropy's backward is not in it.
    expect(metric.graph.nodeCount).toBeLessThan(full.graph.nodeCount);
    await cache.clear();
  });
});
