/**
 * The loss of the training graph is assembled from per-token terms. A `LossDefinition` declares the extra
 * inputs it needs (per-token [B, T] tensors or scalars) and builds a scalar loss plus named metrics from
 * the model's terms with AutoDiff ops; the engine differentiates whatever it returns. SFT cross-entropy
 * lives here; the PPO terms (clipped ratio, value loss, KL, entropy) are another LossDefinition written
 * by the trainer, with no change to the engine.
 */
import type { AutoDiff, Value } from '../onnx/autodiff';

export interface TokenTerms {
  batch: number;
  length: number;
  /**
   * [B, T] log p(target_t | tokens <= t) under the model. In a graph built with head positions (the trainers'
   * default), it and the entropy are computed where the batch's loss_mask is set and are 0 elsewhere: a loss
   * reads them through its mask.
   */
  logprobs: Value;
  /** [B, T] value-head predictions. */
  values: Value;
  /** [B, T] entropy of the next-token distribution (built on first use: it reads all V logits). */
  entropy(): Value;
  /** [B, T] 1 for real tokens, 0 for padding (the `attention_mask` input, in the graph's float type). */
  tokenMask: Value;
  /** Scalar load-balancing loss, averaged over layers (already masked to real tokens). */
  auxLoss: Value;
}

export interface LossInput {
  name: string;
  kind: 'tokens-float' | 'tokens-int' | 'scalar-float';
}

export interface LossDefinition {
  /** Part of the graph cache key. */
  name: string;
  inputs: readonly LossInput[];
  build(
    ad: AutoDiff,
    terms: TokenTerms,
    inputs: Readonly<Record<string, Value>>,
  ): { loss: Value; metrics: Record<string, Value> };
}

/** Masked token mean: sum(x * mask) / max(sum(mask), 1). */
export function maskedMean(ad: AutoDiff, x: Value, mask: Value): Value {
  const all = [...x.shape.keys()];
  const count = ad.maximum(ad.stopGradient(ad.reduceSum(mask, all, false)), ad.constant(1));
  return ad.div(ad.reduceSum(ad.mul(x, mask), all, false), count);
}

/**
 * Supervised fine-tuning: mean negative log-likelihood of the tokens selected by `loss_mask` (e.g. the
 * assistant's tokens of oracle trajectories) plus `aux_coef` times the load-balancing loss.
 */
export const sftLoss: LossDefinition = {
  name: 'sft',
  inputs: [
    { name: 'loss_mask', kind: 'tokens-float' },
    { name: 'aux_coef', kind: 'scalar-float' },
  ],
  build(ad, terms, inputs) {
    const nll = ad.neg(maskedMean(ad, terms.logprobs, inputs.loss_mask!));
    const loss = ad.add(nll, ad.mul(terms.auxLoss, inputs.aux_coef!));
    return { loss, metrics: { nll, aux_loss: terms.auxLoss } };
  },
};
