/**
 * The trainer's side of the engine: SFT steps through the graph cache lower the loss, and a PPO-style loss
 * (clipped ratio, value loss, entropy, per-token inputs) plugs in as a LossDefinition with exact gradients.
 */
import { describe, expect, it } from 'vitest';
import { parameterSpecs } from '../../../native/model/config';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { maskedMean, sftLoss, type LossDefinition } from '../../../native/model/losses';
import { runTrainingStep } from '../../../native/model/train-step';
import { seededRandom } from '../../helpers/gradcheck';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig();
const B = 2;
const T = 8;

function batch(random: () => number) {
  const ids = BigInt64Array.from({ length: B * T }, () => BigInt(Math.floor(random() * config.vocab_size)));
  const targets = BigInt64Array.from({ length: B * T }, (_, i) => ids[(i + 1) % (B * T)]!);
  return { inputIds: ids, targets, attentionMask: new Float32Array(B * T).fill(1) };
}

/** A PPO-style objective, as the trainer will write it: nothing in the engine changes for it. */
const ppoLike: LossDefinition = {
  name: 'ppo-test',
  inputs: [
    { name: 'old_logprobs', kind: 'tokens-float' },
    { name: 'advantages', kind: 'tokens-float' },
    { name: 'returns', kind: 'tokens-float' },
    { name: 'loss_mask', kind: 'tokens-float' },
  ],
  build(ad, terms, x) {
    const ratio = ad.exp(ad.sub(terms.logprobs, x.old_logprobs!));
    const surrogate = ad.minimum(ad.mul(ratio, x.advantages!), ad.mul(ad.clip(ratio, 0.8, 1.2), x.advantages!));
    const pg = ad.neg(maskedMean(ad, surrogate, x.loss_mask!));
    const valueLoss = maskedMean(ad, ad.square(ad.sub(terms.values, x.returns!)), x.loss_mask!);
    const entropy = maskedMean(ad, terms.entropy(), x.loss_mask!);
    const loss = ad.add(ad.add(pg, ad.mul(valueLoss, ad.constant(0.5))), ad.mul(entropy, ad.constant(-0.01)));
    return { loss, metrics: { pg_loss: pg, value_loss: valueLoss, entropy } };
  },
};

describe('training through the graph cache', () => {
  it('SFT steps (plain SGD) lower the loss', async () => {
    const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
    const entry = await cache.get({ batch: B, length: T, forcedRouting: false, loss: sftLoss });
    const params = tinyWeights(config, 2);
    const data = batch(seededRandom(3));
    const lossInputs = {
      loss_mask: { dtype: 'float32' as const, dims: [B, T], data: new Float32Array(B * T).fill(1) },
      aux_coef: { dtype: 'float32' as const, dims: [], data: Float32Array.from([0.01]) },
    };
    const losses: number[] = [];
    for (let step = 0; step < 15; step++) {
      const r = await runTrainingStep(config, entry, params, { ...data, lossInputs });
      losses.push(r.loss);
      expect(r.metrics.nll).toBeGreaterThan(0);
      for (const [name, g] of r.gradients) {
        const w = params.get(name)!;
        for (let i = 0; i < w.length; i++) w[i]! -= 0.5 * g[i]!;
      }
    }
    expect(losses.at(-1)!).toBeLessThan(losses[0]! * 0.8);
    await cache.clear();
  });

  it('a PPO-style loss plugs in: float64 gradients match finite differences', async () => {
    const random = seededRandom(5);
    const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
    // R3: score once to get routing, then replay it so the loss is smooth for finite differences.
    const scorer = await cache.get({ batch: B, length: T, forcedRouting: false, loss: null, dtype: 'float64' });
    const params = new Map([...tinyWeights(config, 4)].map(([k, v]) => [k, Float64Array.from(v)]));
    const data = { ...batch(random), attentionMask: new Float64Array(B * T).fill(1) };
    const routed = await runTrainingStep(config, scorer, params, { ...data, lossInputs: {} });
    const entry = await cache.get({ batch: B, length: T, forcedRouting: true, loss: ppoLike, dtype: 'float64' });
    const tokens = (f: (i: number) => number) => ({
      dtype: 'float64' as const,
      dims: [B, T],
      data: Float64Array.from({ length: B * T }, (_, i) => f(i)),
    });
    const lossInputs = {
      old_logprobs: tokens((i) => routed.logprobs[i]! + (random() - 0.5) * 0.6),
      advantages: tokens(() => random() * 2 - 1),
      returns: tokens(() => random()),
      loss_mask: tokens((i) => (i % T === 0 ? 0 : 1)),
    };
    const step = (p: Map<string, Float64Array>) =>
      runTrainingStep(config, entry, p, { ...data, forcedExperts: routed.experts, lossInputs });
    const base = await step(params);
    expect(Object.keys(base.metrics).sort()).toEqual(['entropy', 'pg_loss', 'value_loss']);
    let worst = 0;
    for (const p of parameterSpecs(config)) {
      const w = params.get(p.name)!;
      const i = Math.floor(random() * w.length);
      const at = async (d: number) => {
        const copy = new Map(params);
        const v = Float64Array.from(w);
        v[i] = w[i]! + d;
        copy.set(p.name, v);
        return (await step(copy)).loss;
      };
      const numeric = ((await at(1e-6)) - (await at(-1e-6))) / 2e-6;
      worst = Math.max(worst, Math.abs(numeric - base.gradients.get(p.name)![i]!) / Math.max(Math.abs(numeric), 1e-3));
    }
    expect(worst).toBeLessThan(1e-5);
    await cache.clear();
  });
});
