/**
 * The vocabulary head at the loss's positions only: the PPO loss, its metrics and every gradient equal
 * those of the head on every position (float64, so equal to rounding), for the positions `packMicroBatch`
 * names; and leaving one loss position out changes the loss, so the equality is not vacuous.
 */
import { describe, expect, it } from 'vitest';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { runTrainingStep } from '../../../native/model/train-step';
import { headPositionsOf } from '../../../electron/lab/training/batching';
import { ppoLoss } from '../../../electron/rl/ppo-loss';
import { seededRandom } from '../../helpers/gradcheck';
import { gradientGaps, ppoLossInputs } from '../../helpers/ppo-inputs';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig();
const B = 2;
const T = 16;

describe('the vocabulary head at the loss positions', () => {
  it('gives the full head loss, metrics and gradients; a missing position changes the loss', async () => {
    const random = seededRandom(5);
    const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
    const params = new Map([...tinyWeights(config, 3)].map(([k, v]) => [k, Float64Array.from(v)]));
    const inputIds = BigInt64Array.from({ length: B * T }, () => BigInt(Math.floor(random() * config.vocab_size)));
    const targets = BigInt64Array.from({ length: B * T }, (_, i) => inputIds[(i + 1) % (B * T)]!);
    const attentionMask = Float64Array.from({ length: B * T }, (_, i) => (i >= B * T - 3 ? 0 : 1));
    // Sampled spans between a prompt and an observation, as in an episode: a third of the tokens.
    const lossMask = Float64Array.from({ length: B * T }, (_, i) =>
      [3, 4, 5, 9, 10].includes(i % T) && attentionMask[i] === 1 ? 1 : 0,
    );
    const lossInputs = ppoLossInputs(random, B, T, lossMask);
    const batch = { inputIds, targets, attentionMask, lossInputs };

    const full = await runTrainingStep(
      config,
      await cache.get({ batch: B, length: T, forcedRouting: false, loss: ppoLoss, dtype: 'float64' }),
      params,
      batch,
    );
    const headEntry = await cache.get({
      batch: B,
      length: T,
      forcedRouting: false,
      loss: ppoLoss,
      dtype: 'float64',
      headPositions: true,
    });
    const positions = headPositionsOf(lossMask);
    expect(positions.length).toBe(lossMask.reduce((a, b) => a + b, 0));
    const head = await runTrainingStep(config, headEntry, params, { ...batch, headPositions: positions });

    expect(head.loss).toBeCloseTo(full.loss, 12);
    for (const [name, value] of Object.entries(full.metrics)) expect(head.metrics[name], name).toBeCloseTo(value, 12);
    for (const [name, worst] of gradientGaps(full.gradients, head.gradients)) expect(worst, name).toBeLessThan(1e-12);
    // Log-probs where the head ran are the full head's; elsewhere 0.
    for (const p of positions) expect(head.logprobs[Number(p)]).toBeCloseTo(full.logprobs[Number(p)]!, 12);

    const short = await runTrainingStep(config, headEntry, params, { ...batch, headPositions: positions.slice(1) });
    expect(Math.abs(short.loss - full.loss)).toBeGreaterThan(1e-6);
    await expect(runTrainingStep(config, headEntry, params, batch)).rejects.toThrow(/names none/);
    await cache.clear();
  });
});
