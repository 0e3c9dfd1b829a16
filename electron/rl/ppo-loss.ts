/**
 * The PPO objective as a LossDefinition of the engine (exact gradients through the training graph).
 * Per loss token t (mask 1), with ratio r = exp(logp - logp_old) (logp_old: the trainer's own log-probs of the
 * sampled tokens before the update, scored with the sampler's routing forced):
 *   pg_t  = -min(r A, clip(r, 1 - eps_low, 1 + eps_high) A) * w_t          (w_t: the TIS weight, a constant)
 *   vf_t  = 1/2 max((V - R)^2, (V_old + clip(V - V_old, -c, c) - R)^2)
 *   kl_t  = exp(ref - logp) - (ref - logp) - 1                                (k3, to the reference policy)
 *   loss  = pg_coef * sum(pg) / N + vf_coef * sum(vf) / N - ent_coef * sum(H) / N + kl_coef * sum(kl) / N
 *           + aux_coef * load-balancing
 * N is `inv_tokens`' inverse: the token count of the whole minibatch, so that micro-batches accumulated
 * into one minibatch give its exact token mean (maskedMean per micro-batch would weight them equally).
 * The load-balancing term is the micro-batch's own; the trainer passes aux_coef times the micro-batch's
 * share of the minibatch's loss tokens, so the summed micro-batches weigh it once, like the token means.
 * Coefficients are scalar inputs: one graph serves critic warm-up (pg_coef 0) and every setting.
 *
 * Masked positions are selected out (Where), never multiplied by 0: a NaN or Inf there (an input the
 * trainer left undefined, a padded value) would otherwise make the loss and every gradient NaN
 * (NaN * 0 = NaN, in the forward pass and in the chain rule alike). Every per-token input is replaced by a
 * neutral value where the mask is 0 before it is used, and each token sum selects the masked-in terms.
 */
import type { AutoDiff, Value } from '../../native/onnx/autodiff';
import type { LossDefinition, TokenTerms } from '../../native/model/losses';

export const PPO_TOKEN_INPUTS = [
  'loss_mask',
  'old_logprobs',
  'advantages',
  'returns',
  'old_values',
  'tis_weights',
  'ref_logprobs',
] as const;
export const PPO_SCALAR_INPUTS = [
  'inv_tokens',
  'pg_coef',
  'eps_low',
  'eps_high',
  'vf_clip',
  'vf_coef',
  'ent_coef',
  'kl_coef',
  'aux_coef',
] as const;
export type PpoTokenInput = (typeof PPO_TOKEN_INPUTS)[number];
export type PpoScalarInput = (typeof PPO_SCALAR_INPUTS)[number];

/** Metrics the graph returns; each is a sum over the micro-batch times inv_tokens (sum them over micro-batches). */
export const PPO_METRICS = [
  'pg_loss',
  'pg_clipfrac',
  'ppo_kl',
  'entropy',
  'vf_loss',
  'vf_clipfrac',
  'kl_ref',
  'aux_loss',
] as const;

function clampBetween(ad: AutoDiff, x: Value, lo: Value, hi: Value): Value {
  return ad.minimum(ad.maximum(x, lo), hi);
}

/** sum over loss positions of x, times inv_tokens; positions outside the mask contribute exactly 0. */
function tokenMean(ad: AutoDiff, x: Value, inLoss: Value, inv: Value): Value {
  return ad.mul(ad.reduceSum(ad.where(inLoss, x, ad.constant(0)), [...x.shape.keys()], false), inv);
}

/** A bool tensor as 0/1 of the graph's float type (for fractions; no gradient). */
function indicator(ad: AutoDiff, cond: Value): Value {
  return ad.cast(cond, ad.dtype);
}

/**
 * The PPO loss. `entropyGradient: false` keeps the entropy as a metric and out of the gradient: with
 * ent_coef = 0 (the default) its gradient is 0 anyway, and its backward is several passes over the
 * [loss positions, vocabulary] tensors, a tenth of the update's time on the nano model.
 */
function ppoLossOf(entropyGradient: boolean): LossDefinition {
  return {
    name: entropyGradient ? 'ppo' : 'ppo-entropy-metric',
    inputs: PPO_LOSS_INPUTS,
    build: (ad, terms, x) => buildPpoLoss(ad, terms, x, entropyGradient),
  };
}

const PPO_LOSS_INPUTS = [
  ...PPO_TOKEN_INPUTS.map((name) => ({ name, kind: 'tokens-float' as const })),
  ...PPO_SCALAR_INPUTS.map((name) => ({ name, kind: 'scalar-float' as const })),
];

/** Every term, the entropy's included in the gradient (any ent_coef). */
export const ppoLoss: LossDefinition = ppoLossOf(true);
/** The same loss with the entropy a metric only: for ent_coef = 0, the same gradient for less work. */
export const ppoLossEntropyMetric: LossDefinition = ppoLossOf(false);

function buildPpoLoss(
  ad: AutoDiff,
  terms: TokenTerms,
  x: Readonly<Record<string, Value>>,
  entropyGradient: boolean,
): { loss: Value; metrics: Record<string, Value> } {
  const [inLoss] = ad.nondiff('Greater', [x.loss_mask!, ad.constant(0.5)], {}, [
    { shape: x.loss_mask!.shape, dtype: 'bool' },
  ]);
  const mask = inLoss!;
  const inv = x.inv_tokens!;
  const one = ad.constant(1);
  const zero = ad.constant(0);
  // Neutral values outside the loss, so no NaN/Inf there reaches a product whose gradient is taken.
  const safe = (v: Value, neutral: Value) => ad.where(mask, v, neutral);
  const logp = safe(terms.logprobs, zero);
  const logRatio = ad.sub(logp, safe(x.old_logprobs!, zero));
  const ratio = ad.exp(logRatio);
  const adv = safe(x.advantages!, zero);
  const unclipped = ad.mul(ratio, adv);
  const clipped = ad.mul(clampBetween(ad, ratio, ad.sub(one, x.eps_low!), ad.add(one, x.eps_high!)), adv);
  const surrogate = ad.minimum(unclipped, clipped);
  const pgLoss = tokenMean(ad, ad.neg(ad.mul(surrogate, safe(x.tis_weights!, one))), mask, inv);
  const [clipHit] = ad.nondiff('Less', [clipped, unclipped], {}, [{ shape: clipped.shape, dtype: 'bool' }]);
  const pgClipfrac = ad.stopGradient(tokenMean(ad, indicator(ad, clipHit!), mask, inv));
  const ppoKl = ad.stopGradient(tokenMean(ad, ad.neg(logRatio), mask, inv));

  const values = safe(terms.values, zero);
  const oldValues = safe(x.old_values!, zero);
  const returns = safe(x.returns!, zero);
  const vClipped = ad.add(oldValues, clampBetween(ad, ad.sub(values, oldValues), ad.neg(x.vf_clip!), x.vf_clip!));
  const errFree = ad.square(ad.sub(values, returns));
  const errClipped = ad.square(ad.sub(vClipped, returns));
  const vfLoss = tokenMean(ad, ad.mul(ad.maximum(errFree, errClipped), ad.constant(0.5)), mask, inv);
  const [vfHit] = ad.nondiff('Greater', [errClipped, errFree], {}, [{ shape: errFree.shape, dtype: 'bool' }]);
  const vfClipfrac = ad.stopGradient(tokenMean(ad, indicator(ad, vfHit!), mask, inv));

  const perToken = safe(terms.entropy(), zero);
  const entropy = tokenMean(ad, entropyGradient ? perToken : ad.stopGradient(perToken), mask, inv);
  const refDiff = ad.sub(safe(x.ref_logprobs!, zero), logp);
  const klRef = tokenMean(ad, ad.sub(ad.sub(ad.exp(refDiff), refDiff), one), mask, inv);

  let loss = ad.mul(pgLoss, x.pg_coef!);
  loss = ad.add(loss, ad.mul(vfLoss, x.vf_coef!));
  loss = ad.sub(loss, ad.mul(entropy, x.ent_coef!));
  loss = ad.add(loss, ad.mul(klRef, x.kl_coef!));
  loss = ad.add(loss, ad.mul(terms.auxLoss, x.aux_coef!));
  return {
    loss,
    metrics: {
      pg_loss: pgLoss,
      pg_clipfrac: pgClipfrac,
      ppo_kl: ppoKl,
      entropy: ad.stopGradient(entropy),
      vf_loss: vfLoss,
      vf_clipfrac: vfClipfrac,
      kl_ref: ad.stopGradient(klRef),
      aux_loss: terms.auxLoss,
    },
  };
}
