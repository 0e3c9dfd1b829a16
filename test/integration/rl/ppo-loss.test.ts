/**
 * The PPO LossDefinition against a reference written out here in plain arithmetic: on a tiny float64 MoE
 * with the routing replayed (R3, so the loss is smooth), the graph's loss and metrics equal the reference
 * computed from the model's own per-token log-probs, values and entropy, and the graph's gradients equal
 * central differences of the reference loss.
 */
import { describe, expect, it } from 'vitest';
import { parameterSpecs } from '../../../native/model/config';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import type { LossDefinition } from '../../../native/model/losses';
import { runTrainingStep } from '../../../native/model/train-step';
import type { HostTensor } from '../../../native/onnx/runtime';
import { ppoLoss, type PpoScalarInput, type PpoTokenInput } from '../../../electron/rl/ppo-loss';
import { seededRandom } from '../../helpers/gradcheck';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig();
const B = 2;
const T = 8;

/** sum(entropy * sel): the model's per-token entropy summed over the loss tokens, for the reference. */
const entropyProbe: LossDefinition = {
  name: 'entropy-probe',
  inputs: [{ name: 'sel', kind: 'tokens-float' }],
  build(ad, terms, x) {
    const s = ad.reduceSum(ad.mul(terms.entropy(), x.sel!), [0, 1], false);
    return { loss: s, metrics: { entropy_sum: s } };
  },
};

type Tokens = Record<PpoTokenInput, Float64Array>;
type Scalars = Record<PpoScalarInput, number>;

/** The reference: PPO with TIS, clipped value loss, entropy bonus, k3 KL and aux loss, token-mean. */
function reference(
  logp: ArrayLike<number>,
  v: ArrayLike<number>,
  entropySum: number,
  aux: number,
  x: Tokens,
  s: Scalars,
) {
  let pg = 0,
    clip = 0,
    kl = 0,
    vf = 0,
    vclip = 0,
    k3 = 0;
  for (let i = 0; i < B * T; i++) {
    if (x.loss_mask[i] !== 1) continue;
    const ratio = Math.exp(logp[i]! - x.old_logprobs[i]!);
    const a = x.advantages[i]!;
    const clipped = Math.min(Math.max(ratio, 1 - s.eps_low), 1 + s.eps_high) * a;
    pg += -Math.min(ratio * a, clipped) * x.tis_weights[i]!;
    if (clipped < ratio * a) clip++;
    kl += x.old_logprobs[i]! - logp[i]!;
    const vc = x.old_values[i]! + Math.min(Math.max(v[i]! - x.old_values[i]!, -s.vf_clip), s.vf_clip);
    const e1 = (v[i]! - x.returns[i]!) ** 2;
    const e2 = (vc - x.returns[i]!) ** 2;
    vf += 0.5 * Math.max(e1, e2);
    if (e2 > e1) vclip++;
    const d = x.ref_logprobs[i]! - logp[i]!;
    k3 += Math.exp(d) - d - 1;
  }
  const n = s.inv_tokens;
  const m = {
    pg_loss: pg * n,
    pg_clipfrac: clip * n,
    ppo_kl: kl * n,
    vf_loss: vf * n,
    vf_clipfrac: vclip * n,
    entropy: entropySum * n,
    kl_ref: k3 * n,
  };
  const loss =
    s.pg_coef * m.pg_loss + s.vf_coef * m.vf_loss - s.ent_coef * m.entropy + s.kl_coef * m.kl_ref + s.aux_coef * aux;
  return { loss, metrics: m };
}

describe('the PPO loss', () => {
  it('matches a hand-written reference in value, metrics and gradients (float64, R3)', async () => {
    const random = seededRandom(11);
    const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
    const params = new Map([...tinyWeights(config, 6)].map(([k, v]) => [k, Float64Array.from(v)]));
    const inputIds = BigInt64Array.from({ length: B * T }, () => BigInt(Math.floor(random() * config.vocab_size)));
    const targets = BigInt64Array.from({ length: B * T }, (_, i) => inputIds[(i + 1) % (B * T)]!);
    const attentionMask = Float64Array.from({ length: B * T }, (_, i) => (i >= B * T - 2 ? 0 : 1)); // row 1 right-padded
    const data = { inputIds, targets, attentionMask };

    const scorer = await cache.get({ batch: B, length: T, forcedRouting: false, loss: null, dtype: 'float64' });
    const routed = await runTrainingStep(config, scorer, params, { ...data, lossInputs: {} });
    const forcedExperts = routed.experts;

    // A multi-turn-like mask: prompt, sampled, observation, sampled; padding out.
    const mask = Float64Array.from({ length: B * T }, (_, i) =>
      [1, 2, 5, 6].includes(i % T) && attentionMask[i] === 1 ? 1 : 0,
    );
    const count = mask.reduce((a, b) => a + b, 0);
    const tok = (f: (i: number) => number) => Float64Array.from({ length: B * T }, (_, i) => f(i));
    const x: Tokens = {
      loss_mask: mask,
      old_logprobs: tok((i) => routed.logprobs[i]! + (random() - 0.5) * 0.8),
      advantages: tok(() => random() * 2 - 1),
      returns: tok(() => random() * 2),
      old_values: tok((i) => routed.values[i]! + (random() - 0.5) * 0.6),
      tis_weights: tok(() => Math.min(0.5 + random() * 2, 2)),
      ref_logprobs: tok((i) => routed.logprobs[i]! + (random() - 0.5) * 0.5),
    };
    const s: Scalars = {
      inv_tokens: 1 / count,
      pg_coef: 1,
      eps_low: 0.2,
      eps_high: 0.28,
      vf_clip: 0.2,
      vf_coef: 0.7,
      ent_coef: 0.03,
      kl_coef: 0.1,
      aux_coef: 0.01,
    };
    const lossInputs: Record<string, HostTensor> = {};
    for (const [k, v] of Object.entries(x)) lossInputs[k] = { dtype: 'float64', dims: [B, T], data: v };
    for (const [k, v] of Object.entries(s))
      lossInputs[k] = { dtype: 'float64', dims: [], data: Float64Array.from([v]) };

    const entry = await cache.get({ batch: B, length: T, forcedRouting: true, loss: ppoLoss, dtype: 'float64' });
    const probe = await cache.get({ batch: B, length: T, forcedRouting: true, loss: entropyProbe, dtype: 'float64' });
    const referenceAt = async (p: Map<string, Float64Array>) => {
      const r = await runTrainingStep(config, probe, p, {
        ...data,
        forcedExperts,
        lossInputs: { sel: { dtype: 'float64', dims: [B, T], data: mask } },
      });
      return reference(r.logprobs, r.values, r.metrics.entropy_sum!, r.auxLoss, x, s);
    };

    const got = await runTrainingStep(config, entry, params, { ...data, forcedExperts, lossInputs });
    const want = await referenceAt(params);
    expect(got.loss).toBeCloseTo(want.loss, 10);
    for (const [k, v] of Object.entries(want.metrics)) expect(got.metrics[k], k).toBeCloseTo(v, 10);
    // The batch exercises both branches of every clip.
    expect(want.metrics.pg_clipfrac).toBeGreaterThan(0);
    expect(want.metrics.pg_clipfrac).toBeLessThan(1);
    expect(want.metrics.vf_clipfrac).toBeGreaterThan(0);

    let worst = 0;
    for (const p of parameterSpecs(config)) {
      const w = params.get(p.name)!;
      for (let probeIndex = 0; probeIndex < 2; probeIndex++) {
        const i = Math.floor(random() * w.length);
        const at = async (d: number) => {
          const copy = new Map(params);
          const v = Float64Array.from(w);
          v[i] = w[i]! + d;
          copy.set(p.name, v);
          return (await referenceAt(copy)).loss;
        };
        const numeric = ((await at(1e-6)) - (await at(-1e-6))) / 2e-6;
        worst = Math.max(worst, Math.abs(numeric - got.gradients.get(p.name)![i]!) / Math.max(Math.abs(numeric), 1e-3));
      }
    }
    expect(worst).toBeLessThan(1e-5);

    // Critic warm-up: pg_coef 0 leaves the policy-only gradient path out (the value head still moves).
    const warm = await runTrainingStep(config, entry, params, {
      ...data,
      forcedExperts,
      lossInputs: { ...lossInputs, pg_coef: { dtype: 'float64', dims: [], data: Float64Array.from([0]) } },
    });
    expect(warm.loss).toBeCloseTo(want.loss - want.metrics.pg_loss, 10);
    await cache.clear();
  });
});
