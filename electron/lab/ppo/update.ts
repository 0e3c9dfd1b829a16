/**
 * The PPO update of one step: `epochs` passes over the step's sequences, each shuffled (seeded) into
 * `minibatches` optimizer steps. A minibatch is split into micro-batches padded to the engine's shape
 * buckets; `inv_tokens` is 1 / the minibatch's loss tokens, so the micro-batches' gradients and metrics
 * simply add up to the minibatch's token mean. Global-norm clipping, then AdamW. During critic warm-up
 * the policy term is off (pg_coef 0) and everything but the value head is frozen.
 *
 * The load-balancing loss is the one term that is not a token sum: each micro-batch's is weighted by its
 * share of the minibatch's loss tokens (aux_coef x share), so the minibatch gets aux_coef x their token-
 * weighted mean however many micro-batches it is cut into. A minibatch whose gradient norm is not finite
 * (NaN or Inf anywhere) is skipped, not clipped: the weights and AdamW's moments stay as they were, and
 * `skipped_steps` counts it.
 */
import type { ModelConfig } from '../../../native/model/config';
import type { TrainingGraphCache } from '../../../native/model/graph-cache';
import { runTrainingStep } from '../../../native/model/train-step';
import { adamwStep, type AdamWHyper, type OptimizerState } from '../../rl/adamw';
import { clipScale, globalGradNorm } from '../../rl/grad-clip';
import type { ParamSettings } from '../../rl/param-groups';
import { PPO_METRICS, ppoLoss, ppoLossEntropyMetric } from '../../rl/ppo-loss';
import type { ResumableRng } from '../../rl/rng';
import { packMicroBatch, planMicroBatches, prefixBucket, type TokenSequence } from '../training/batching';
import type { PpoSection } from '../training/config/ppo';

export const VALUE_HEAD_PATTERN = /^value_head\./;

export interface UpdateInput {
  model: ModelConfig;
  cache: TrainingGraphCache;
  params: Map<string, Float32Array>;
  optimizer: OptimizerState;
  settings: ReadonlyMap<string, ParamSettings>;
  hyper: AdamWHyper;
  lr: number;
  gradClip: number;
  auxCoef: number;
  ppo: PpoSection;
  criticOnly: boolean;
  rows: number;
  maxLength: number;
  rng: ResumableRng;
  sequences: readonly TokenSequence[];
  /** The sampling temperature of the sequences (the trainer's log-probs are of the same tempered policy). */
  temperature?: number;
  /** Shared prompts' padded length (default: `prefixBucket` of the sequences: one prefix shape a step). */
  prefixLength?: number;
  log?(message: string): void;
}

export interface UpdateResult {
  metrics: Record<string, number>;
  optimizerSteps: number;
  /** Real positions forwarded and back-propagated, summed over epochs (padding not counted). */
  trainedTokens: number;
  /** Positions the loss covers (sampled tokens), summed over epochs: the tokens that carry a gradient. */
  lossTokens: number;
  /** Real positions forwarded, summed over epochs: trainedTokens less what shared prompt prefixes saved. */
  forwardedTokens: number;
  /** Positions computed, padding included (rows x padded length, and the prefix rows), summed over epochs. */
  computedTokens: number;
}

/** One epoch's minibatches: the items shuffled by `rng`, dealt in turn into `minibatches` parts (at most one per item). */
export function epochMinibatches<T>(items: readonly T[], minibatches: number, rng: ResumableRng): T[][] {
  const order = rng.shuffle(items.map((_, i) => i));
  const parts = Math.min(minibatches, order.length);
  return Array.from({ length: parts }, (_, m) => order.filter((_, i) => i % parts === m).map((i) => items[i]!));
}

export async function ppoUpdate(u: UpdateInput): Promise<UpdateResult> {
  const settings = u.criticOnly
    ? new Map([...u.settings].map(([n, s]) => [n, { ...s, frozen: s.frozen || !VALUE_HEAD_PATTERN.test(n) }]))
    : u.settings;
  const trainable = (name: string) => !settings.get(name)?.frozen;
  const sums: Record<string, number> = {};
  let gradNormSum = 0;
  let clipped = 0;
  let skipped = 0;
  let steps = 0;
  let trainedTokens = 0;
  let lossTokenSum = 0;
  let forwardedTokens = 0;
  let computedTokens = 0;
  const forced = u.ppo.r3 === 'on' && u.sequences.some((s) => s.forcedExperts);
  const prefixLength = u.prefixLength ?? prefixBucket(u.sequences);
  for (let epoch = 0; epoch < u.ppo.epochs; epoch++) {
    for (const [m, members] of epochMinibatches(u.sequences, u.ppo.minibatches, u.rng).entries()) {
      const lossTokens = members.reduce(
        (n, s) => n + Array.from(s.tokenInputs.loss_mask!).reduce((a, b) => a + b, 0),
        0,
      );
      if (lossTokens === 0) continue;
      const scalars = {
        inv_tokens: 1 / lossTokens,
        pg_coef: u.criticOnly ? 0 : 1,
        eps_low: u.ppo.clip_low,
        eps_high: u.ppo.clip_high,
        vf_clip: u.ppo.vf_clip,
        vf_coef: u.ppo.advantage === 'group' && !u.criticOnly ? 0 : u.ppo.vf_coef,
        ent_coef: u.criticOnly ? 0 : u.ppo.ent_coef,
        kl_coef: u.criticOnly ? 0 : u.ppo.kl_coef,
        aux_coef: u.criticOnly ? 0 : u.auxCoef,
      };
      const {
        grads,
        metrics: mb,
        tokens,
        forwarded,
        computed,
      } = await minibatchGradients({ ...u, prefixLength }, members, scalars, forced);
      trainedTokens += tokens;
      forwardedTokens += forwarded;
      lossTokenSum += lossTokens;
      computedTokens += computed;
      const norm = globalGradNorm(grads, trainable);
      if (!Number.isFinite(norm)) {
        // Clipping cannot bound a NaN/Inf norm, and one such step would turn every weight it touches to NaN.
        skipped++;
        u.log?.(
          `warning: PPO minibatch skipped: gradient norm is ${norm} (epoch ${epoch + 1}, minibatch ${m + 1}); weights and optimizer state unchanged`,
        );
        continue;
      }
      const scale = clipScale(norm, u.gradClip || null);
      if (scale < 1) clipped++;
      adamwStep(u.params, grads, u.optimizer, settings, u.lr, u.hyper, scale);
      gradNormSum += norm;
      steps++;
      for (const [k, v] of Object.entries(mb)) sums[k] = (sums[k] ?? 0) + v;
    }
  }
  const metrics: Record<string, number> = {};
  for (const k of ['loss', ...PPO_METRICS]) if (sums[k] !== undefined) metrics[k] = sums[k] / Math.max(steps, 1);
  metrics.grad_norm = gradNormSum / Math.max(steps, 1);
  metrics.grad_clipped_share = steps ? clipped / steps : 0;
  metrics.skipped_steps = skipped;
  return { metrics, optimizerSteps: steps, trainedTokens, forwardedTokens, lossTokens: lossTokenSum, computedTokens };
}

/**
 * One minibatch's summed gradients and metrics over its micro-batches: the token sums add up through
 * inv_tokens; the load-balancing term gets aux_coef x the micro-batch's share of the loss tokens.
 */
export async function minibatchGradients(
  u: Pick<UpdateInput, 'model' | 'cache' | 'params' | 'rows' | 'maxLength' | 'temperature' | 'prefixLength'>,
  members: readonly TokenSequence[],
  scalars: Readonly<Record<string, number>>,
  forced: boolean,
): Promise<{
  grads: Map<string, Float64Array>;
  metrics: Record<string, number>;
  tokens: number;
  forwarded: number;
  computed: number;
}> {
  const lossTokens = 1 / scalars.inv_tokens!;
  let grads: Map<string, Float64Array> | null = null;
  const mb: Record<string, number> = {};
  let tokens = 0;
  let forwarded = 0;
  let computed = 0;
  // Without an entropy bonus the entropy's gradient is 0: the graph keeps it as a metric only.
  const loss = scalars.ent_coef === 0 ? ppoLossEntropyMetric : ppoLoss;
  const packing = {
    loss,
    scalars,
    maxLength: u.maxLength,
    layers: u.model.num_hidden_layers,
    topK: u.model.num_experts_per_tok,
    sharePrefixes: sharePrefixes(),
    prefixLength: u.prefixLength ?? prefixBucket(members),
  };
  for (const group of planMicroBatches(members, u.rows, packing)) {
    const share =
      group.reduce((n, s) => n + Array.from(s.tokenInputs.loss_mask!).reduce((a, b) => a + b, 0), 0) / lossTokens;
    const pack = packMicroBatch(group, {
      ...packing,
      rows: u.rows,
      scalars: { ...scalars, aux_coef: scalars.aux_coef! * share },
    });
    const prefix = pack.batch.prefix;
    const entry = await u.cache.get({
      batch: pack.rows,
      length: pack.length,
      forcedRouting: forced,
      loss,
      temperature: u.temperature ?? 1,
      headPositions: true,
      ...(prefix ? { sharedPrefix: { groups: prefix.groups, length: prefix.length } } : {}),
    });
    const out = await runTrainingStep(u.model, entry, u.params, pack.batch);
    tokens += pack.tokens;
    forwarded += pack.forwarded;
    computed += pack.computed;
    mb.loss = (mb.loss ?? 0) + out.loss;
    for (const [k, v] of Object.entries(out.metrics)) mb[k] = (mb[k] ?? 0) + (k === 'aux_loss' ? v * share : v);
    grads ??= new Map([...out.gradients].map(([k, g]) => [k, new Float64Array(g.length)]));
    for (const [name, g] of out.gradients) {
      const acc = grads.get(name)!;
      for (let i = 0; i < g.length; i++) acc[i]! += g[i]!;
    }
  }
  if (!grads) throw new Error('a minibatch without sequences');
  return { grads, metrics: mb, tokens, forwarded, computed };
}

/** Set to 1 to forward every sequence whole, shared prompt prefixes included (the benchmark's previous path). */
export const UNSHARED_PREFIX_ENV = 'T1LAB_UNSHARED_PREFIX';

function sharePrefixes(): boolean {
  return process.env[UNSHARED_PREFIX_ENV] !== '1';
}
