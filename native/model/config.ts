/**
 * The architecture of a T1 MoE policy, as it is written in a checkpoint's `config.json`. Keys follow the
 * Hugging Face naming of MoE configs (Qwen3-MoE, Mixtral) so that researchers read them without a guide;
 * the tensors themselves use our own names and [in, out] layouts (see `parameterSpecs`).
 *
 * The model: token embedding, per layer RMSNorm -> rotary attention (grouped KV heads when
 * num_key_value_heads < num_attention_heads) -> residual, RMSNorm -> MoE feed-forward (router softmax,
 * top-k, gates renormalized over the k chosen, SwiGLU experts) -> residual; final RMSNorm; LM head (tied
 * to the embedding or not); a scalar value head for the critic.
 */
import { z } from 'zod';

export const MODEL_TYPE = 't1-moe';
/** Bumped when the meaning of a field or a tensor changes; readers refuse versions they do not know. */
export const CONFIG_FORMAT_VERSION = 1;

const positiveInt = z.number().int().positive();
const count = z.number().int().nonnegative();

/**
 * Rotary scaling as Hugging Face configs write it (`rope_type`, or the older `type`). 'linear' divides
 * positions by `factor`; 'llama3' rescales the low frequencies (Llama 3.1+); 'yarn' blends interpolated
 * and extrapolated frequencies and scales cos/sin by `attention_factor` (Qwen's long-context setting).
 */
export const RopeScaling = z
  .object({
    rope_type: z.enum(['default', 'linear', 'llama3', 'yarn']),
    factor: z.number().positive().optional(),
    low_freq_factor: z.number().positive().optional(),
    high_freq_factor: z.number().positive().optional(),
    original_max_position_embeddings: positiveInt.optional(),
    beta_fast: z.number().positive().optional(),
    beta_slow: z.number().positive().optional(),
    attention_factor: z.number().positive().optional(),
  })
  .strict();
export type RopeScaling = z.infer<typeof RopeScaling>;

export const ModelConfigFields = z.object({
  model_type: z.literal(MODEL_TYPE),
  format_version: z.literal(CONFIG_FORMAT_VERSION),
  /** Rows of the embedding and columns of the LM head; at least the tokenizer's vocabulary (special tokens included). */
  vocab_size: positiveInt,
  hidden_size: positiveInt,
  num_hidden_layers: positiveInt,
  num_attention_heads: positiveInt,
  /** Grouped-query attention when smaller than num_attention_heads (it must divide it). */
  num_key_value_heads: positiveInt,
  /** Per-head width; even (rotary pairs). Usually hidden_size / num_attention_heads. */
  head_dim: positiveInt,
  /** 0: a dense model (every layer a SwiGLU MLP of `intermediate_size`). */
  num_experts: count,
  /** Experts per token (top-k); gate weights are the router softmax renormalized over these k. */
  num_experts_per_tok: count,
  /** Hidden width of each SwiGLU expert. */
  moe_intermediate_size: count,
  rope_theta: z.number().positive(),
  rms_norm_eps: z.number().positive().max(1e-2),
  /** LM head = embedding transposed; no `lm_head.weight` tensor is stored. */
  tie_word_embeddings: z.boolean(),
  /** Longest sequence (prompt + generation) the rotary tables and KV cache are built for. */
  max_position_embeddings: positiveInt,
  /** Standard deviation of the normal initializer for matrices (`model init`). */
  initializer_range: z.number().positive().max(1),
  // ---- Architecture options (absent: the t1-moe default). Imported Hugging Face families set them. ----
  /** RMSNorm of queries and keys before rotary: per head (Qwen3, weight [head_dim]) or over the whole projection (OLMoE). */
  qk_norm: z.enum(['head', 'projection']).optional(),
  /** Biases on the q, k and v projections (Qwen2, Qwen2-MoE; Llama/Qwen3 `attention_bias`). */
  attention_qkv_bias: z.boolean().optional(),
  /** Bias on the output projection (Llama/Qwen3 `attention_bias`). */
  attention_out_bias: z.boolean().optional(),
  /** Renormalize the top-k gate weights to sum to 1 (default true; Qwen2-MoE and OLMoE set false). */
  norm_topk_prob: z.boolean().optional(),
  /** A shared SwiGLU expert on every token, weighted by sigmoid(shared_expert_gate(x)) (Qwen2-MoE). */
  shared_expert_intermediate_size: count.optional(),
  /** Width of the dense SwiGLU MLP of the layers in `mlp_only_layers` (every layer of a dense model). */
  intermediate_size: count.optional(),
  /** Layers whose feed-forward is a dense MLP instead of experts (resolved from decoder_sparse_step too). */
  mlp_only_layers: z.array(count).optional(),
  rope_scaling: RopeScaling.optional(),
});

/** The config.json schema, with the cross-field rules; every message names the field and its value. */
export const ModelConfig = ModelConfigFields.superRefine((c, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (c.num_attention_heads % c.num_key_value_heads !== 0)
    issue(
      'num_key_value_heads',
      `num_key_value_heads (${c.num_key_value_heads}) must divide num_attention_heads (${c.num_attention_heads})`,
    );
  if (c.head_dim % 2 !== 0) issue('head_dim', `head_dim (${c.head_dim}) must be even for rotary embeddings`);
  if (c.num_experts_per_tok > c.num_experts)
    issue(
      'num_experts_per_tok',
      `num_experts_per_tok (${c.num_experts_per_tok}) exceeds num_experts (${c.num_experts})`,
    );
  if (c.num_experts > 0 && (c.num_experts_per_tok === 0 || c.moe_intermediate_size === 0))
    issue(
      'num_experts_per_tok',
      `num_experts ${c.num_experts} needs num_experts_per_tok and moe_intermediate_size above 0`,
    );
  for (const l of c.mlp_only_layers ?? [])
    if (l >= c.num_hidden_layers)
      issue('mlp_only_layers', `mlp_only_layers names layer ${l}; the model has ${c.num_hidden_layers}`);
  const dense = Array.from({ length: c.num_hidden_layers }, (_, l) => l).filter((l) => !isMoeLayer(c, l));
  if (dense.length > 0 && !c.intermediate_size)
    issue('intermediate_size', `layers ${dense.join(', ')} are dense MLPs and need intermediate_size above 0`);
});

/** Whether layer l's feed-forward is a mixture of experts (else a dense SwiGLU MLP). */
export function isMoeLayer(c: Pick<ModelConfigFields, 'num_experts' | 'mlp_only_layers'>, l: number): boolean {
  return c.num_experts > 0 && !(c.mlp_only_layers ?? []).includes(l);
}

/** The MoE layers in order; routing outputs and R3's forced experts have one entry per MoE layer. */
export function moeLayers(
  c: Pick<ModelConfigFields, 'num_experts' | 'mlp_only_layers' | 'num_hidden_layers'>,
): number[] {
  return Array.from({ length: c.num_hidden_layers }, (_, l) => l).filter((l) => isMoeLayer(c, l));
}
type ModelConfigFields = z.infer<typeof ModelConfigFields>;
export type ModelConfig = z.infer<typeof ModelConfig>;

export const PRESET_NAMES = ['nano', 'micro'] as const;
export const PresetName = z.enum(PRESET_NAMES);
export type PresetName = z.infer<typeof PresetName>;

/**
 * nano: ~3.1M parameters (~1.3M active per token), trains in minutes on a 2-core CPU.
 * micro: ~12.7M parameters, the size the benchmark goals are set on.
 */
export const PRESETS: Record<PresetName, ModelConfig> = {
  nano: {
    model_type: MODEL_TYPE,
    format_version: CONFIG_FORMAT_VERSION,
    vocab_size: 4096,
    hidden_size: 128,
    num_hidden_layers: 4,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 32,
    num_experts: 8,
    num_experts_per_tok: 2,
    moe_intermediate_size: 192,
    rope_theta: 10000,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: true,
    max_position_embeddings: 2048,
    initializer_range: 0.02,
  },
  micro: {
    model_type: MODEL_TYPE,
    format_version: CONFIG_FORMAT_VERSION,
    vocab_size: 8192,
    hidden_size: 256,
    num_hidden_layers: 6,
    num_attention_heads: 8,
    num_key_value_heads: 4,
    head_dim: 32,
    num_experts: 8,
    num_experts_per_tok: 2,
    moe_intermediate_size: 256,
    rope_theta: 10000,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: true,
    max_position_embeddings: 4096,
    initializer_range: 0.02,
  },
};

/** Fields a user may override on top of a preset (`model init --set hidden_size=192`). */
export const ConfigOverrides = ModelConfigFields.omit({ model_type: true, format_version: true }).partial().strict();
export type ConfigOverrides = z.infer<typeof ConfigOverrides>;

/** A preset with user overrides applied and validated. head_dim follows hidden_size / heads unless given. */
export function configFromPreset(preset: PresetName, overrides: ConfigOverrides = {}): ModelConfig {
  const base = PRESETS[preset];
  const merged = { ...base, ...ConfigOverrides.parse(overrides) };
  if (
    overrides.head_dim === undefined &&
    (overrides.hidden_size !== undefined || overrides.num_attention_heads !== undefined)
  ) {
    merged.head_dim = Math.floor(merged.hidden_size / merged.num_attention_heads);
  }
  return parseModelConfig(merged, `preset ${preset}`);
}

/** Validate a config.json value; `source` (a path) is named in the error. */
export function parseModelConfig(value: unknown, source = 'config.json'): ModelConfig {
  const parsed = ModelConfig.safeParse(value);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new ModelConfigError(`${source}: ${where}`);
}

export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
}

/** One weight tensor of the model: its name in model.safetensors, its shape, and how `model init` fills it. */
export interface ParameterSpec {
  name: string;
  shape: number[];
  /** 'normal': N(0, initializer_range) (output projections scaled by 1/sqrt(2 * layers)); 'ones': norm gains; 'zeros'. */
  init: 'normal' | 'normal-scaled' | 'ones' | 'zeros';
}

/** Names of the per-layer tensors; the graph builders and the checkpoint validator share them. */
export const paramName = {
  embed: 'embed.weight',
  finalNorm: 'final_norm.weight',
  lmHead: 'lm_head.weight',
  valueHead: 'value_head.weight',
  valueBias: 'value_head.bias',
  attnNorm: (l: number) => `layers.${l}.attn_norm.weight`,
  wq: (l: number) => `layers.${l}.attn.wq`,
  wk: (l: number) => `layers.${l}.attn.wk`,
  wv: (l: number) => `layers.${l}.attn.wv`,
  wo: (l: number) => `layers.${l}.attn.wo`,
  ffnNorm: (l: number) => `layers.${l}.ffn_norm.weight`,
  router: (l: number) => `layers.${l}.moe.router`,
  wGate: (l: number) => `layers.${l}.moe.w_gate`,
  wUp: (l: number) => `layers.${l}.moe.w_up`,
  wDown: (l: number) => `layers.${l}.moe.w_down`,
  bq: (l: number) => `layers.${l}.attn.bq`,
  bk: (l: number) => `layers.${l}.attn.bk`,
  bv: (l: number) => `layers.${l}.attn.bv`,
  bo: (l: number) => `layers.${l}.attn.bo`,
  qNorm: (l: number) => `layers.${l}.attn.q_norm`,
  kNorm: (l: number) => `layers.${l}.attn.k_norm`,
  sharedGate: (l: number) => `layers.${l}.moe.shared_w_gate`,
  sharedUp: (l: number) => `layers.${l}.moe.shared_w_up`,
  sharedDown: (l: number) => `layers.${l}.moe.shared_w_down`,
  sharedExpertGate: (l: number) => `layers.${l}.moe.shared_expert_gate`,
  mlpGate: (l: number) => `layers.${l}.mlp.w_gate`,
  mlpUp: (l: number) => `layers.${l}.mlp.w_up`,
  mlpDown: (l: number) => `layers.${l}.mlp.w_down`,
} as const;

/**
 * Every tensor of the model, in a fixed order (the order of model.safetensors and of the training graph's
 * parameter inputs and gradient outputs). Matrices are [in, out] so the graphs use them without a transpose;
 * experts are stacked on the first axis. All tensors are float32.
 */
export function parameterSpecs(c: ModelConfig): ParameterSpec[] {
  const H = c.hidden_size;
  const q = c.num_attention_heads * c.head_dim;
  const kv = c.num_key_value_heads * c.head_dim;
  const E = c.num_experts;
  const I = c.moe_intermediate_size;
  const specs: ParameterSpec[] = [{ name: paramName.embed, shape: [c.vocab_size, H], init: 'normal' }];
  const qkNorm = c.qk_norm === 'head' ? [c.head_dim, c.head_dim] : c.qk_norm === 'projection' ? [q, kv] : null;
  const S = c.shared_expert_intermediate_size ?? 0;
  const D = c.intermediate_size ?? 0;
  for (let l = 0; l < c.num_hidden_layers; l++) {
    specs.push(
      { name: paramName.attnNorm(l), shape: [H], init: 'ones' },
      { name: paramName.wq(l), shape: [H, q], init: 'normal' },
    );
    if (c.attention_qkv_bias) specs.push({ name: paramName.bq(l), shape: [q], init: 'zeros' });
    specs.push({ name: paramName.wk(l), shape: [H, kv], init: 'normal' });
    if (c.attention_qkv_bias) specs.push({ name: paramName.bk(l), shape: [kv], init: 'zeros' });
    specs.push({ name: paramName.wv(l), shape: [H, kv], init: 'normal' });
    if (c.attention_qkv_bias) specs.push({ name: paramName.bv(l), shape: [kv], init: 'zeros' });
    if (qkNorm)
      specs.push(
        { name: paramName.qNorm(l), shape: [qkNorm[0]!], init: 'ones' },
        { name: paramName.kNorm(l), shape: [qkNorm[1]!], init: 'ones' },
      );
    specs.push({ name: paramName.wo(l), shape: [q, H], init: 'normal-scaled' });
    if (c.attention_out_bias) specs.push({ name: paramName.bo(l), shape: [H], init: 'zeros' });
    specs.push({ name: paramName.ffnNorm(l), shape: [H], init: 'ones' });
    if (!isMoeLayer(c, l)) {
      specs.push(
        { name: paramName.mlpGate(l), shape: [H, D], init: 'normal' },
        { name: paramName.mlpUp(l), shape: [H, D], init: 'normal' },
        { name: paramName.mlpDown(l), shape: [D, H], init: 'normal-scaled' },
      );
      continue;
    }
    specs.push(
      { name: paramName.router(l), shape: [H, E], init: 'normal' },
      { name: paramName.wGate(l), shape: [E, H, I], init: 'normal' },
      { name: paramName.wUp(l), shape: [E, H, I], init: 'normal' },
      { name: paramName.wDown(l), shape: [E, I, H], init: 'normal-scaled' },
    );
    if (S > 0) {
      specs.push(
        { name: paramName.sharedGate(l), shape: [H, S], init: 'normal' },
        { name: paramName.sharedUp(l), shape: [H, S], init: 'normal' },
        { name: paramName.sharedDown(l), shape: [S, H], init: 'normal-scaled' },
        { name: paramName.sharedExpertGate(l), shape: [H, 1], init: 'normal' },
      );
    }
  }
  specs.push({ name: paramName.finalNorm, shape: [H], init: 'ones' });
  if (!c.tie_word_embeddings) specs.push({ name: paramName.lmHead, shape: [H, c.vocab_size], init: 'normal' });
  specs.push(
    { name: paramName.valueHead, shape: [H, 1], init: 'zeros' },
    { name: paramName.valueBias, shape: [1], init: 'zeros' },
  );
  return specs;
}

export function countParameters(c: ModelConfig): number {
  return parameterSpecs(c).reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
}

/** Parameters touched per token: attention, router, k of E experts, norms, LM head and value head. */
export function countActiveParameters(c: ModelConfig): number {
  const expertParams = 3 * c.hidden_size * c.moe_intermediate_size;
  const inactive = moeLayers(c).length * (c.num_experts - c.num_experts_per_tok) * expertParams;
  return countParameters(c) - inactive;
}
