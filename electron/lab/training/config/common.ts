/** Sections every stage shares: model, data, train (batching, steps), optimizer, schedule, checkpoint. */
import { z } from 'zod';

const posInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();

export const ModelSection = z
  .strictObject({
    /** Start from this checkpoint folder (the usual case: `t1lab model init` output, or a previous stage's). */
    checkpoint: z.string().min(1).optional(),
    /** Or fresh weights of a preset (its tokenizer is trained on the stage's data). */
    preset: z.enum(['nano', 'micro']).optional(),
    /** Weights seed for `preset`. */
    init_seed: nonNegInt.default(0),
  })
  .refine((m) => !!m.checkpoint !== !!m.preset, {
    message: 'set exactly one of model.checkpoint and model.preset',
    path: ['checkpoint'],
  });

export const DataSection = z.strictObject({
  /** Files or folders (lm: text; sft: sample JSONL files; ppo: a task suite). "builtin" = the lab's own corpus (lm). */
  path: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  /** Share of samples held out for the eval loss (chosen by a hash of the sample, stable across runs). */
  eval_fraction: z.number().min(0).max(0.5).default(0.05),
  /** Longest training sequence in tokens (longer samples are cut: lm) or skipped with a count (sft). 0 = the model's window. */
  max_seq_len: nonNegInt.default(0),
});

export const TrainSection = z.strictObject({
  /** Optimizer steps. */
  steps: posInt.default(200),
  /** Sequences per optimizer step. */
  batch_size: posInt.default(16),
  /** Sequences per forward/backward (gradients accumulate over batch_size / micro_batch_size of them). */
  micro_batch_size: posInt.default(8),
  /** Eval loss on the held-out split every N steps (0: only at the end). */
  eval_every: nonNegInt.default(50),
  /** Micro-batches of held-out data per evaluation. */
  eval_batches: posInt.default(4),
  /** Weight of the router load-balancing loss. */
  aux_coef: z.number().min(0).default(0.01),
  provider: z.enum(['auto', 'cpu', 'cuda']).default('auto'),
  /** onnxruntime intra-op threads (0: its default). */
  threads: nonNegInt.default(0),
});

export const GroupRuleSection = z.strictObject({
  /** Glob over parameter names: `*` within a dotted part, `**` across parts (e.g. "value_head.*", "layers.*.moe.router"). */
  pattern: z.string().min(1),
  lr_scale: z.number().positive().optional(),
  weight_decay: z.number().min(0).optional(),
});

export const OptimizerSection = z.strictObject({
  lr: z.number().positive().max(1).default(3e-4),
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.95),
  eps: z.number().positive().default(1e-8),
  /** Decoupled weight decay (not applied to norms, biases or the router unless a group says so). */
  weight_decay: z.number().min(0).default(0.1),
  /** Global gradient-norm clipping (0: off). */
  grad_clip: z.number().min(0).default(1),
  /** Parameters not trained (globs). */
  freeze: z.array(z.string().min(1)).default([]),
  /** Per-group learning-rate scale / weight decay (first match wins). */
  groups: z.array(GroupRuleSection).default([]),
});

export const ScheduleSection = z.strictObject({
  kind: z.enum(['constant', 'linear', 'cosine']).default('cosine'),
  warmup_steps: nonNegInt.default(20),
  /** Final learning rate as a share of optimizer.lr (linear, cosine). */
  min_lr_ratio: z.number().min(0).max(1).default(0.1),
});

export const CheckpointSection = z.strictObject({
  /** Save a training checkpoint every N steps (and always at the end). */
  every: posInt.default(50),
  /** Checkpoints kept besides the best. */
  keep_last: posInt.default(2),
  /** Keep the checkpoint with the lowest eval loss as "best". */
  keep_best: z.boolean().default(true),
});
