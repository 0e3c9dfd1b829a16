/**
 * A published Hugging Face `config.json` read as the lab's architecture (config.ts with its options), for
 * the families of REFERENCE.md "Published MoE layouts". Every key that changes the computation is either
 * mapped onto an option or refused by name: nothing is approximated silently.
 */
import { CONFIG_FORMAT_VERSION, MODEL_TYPE, RopeScaling, parseModelConfig, type ModelConfig } from '../config';

export const HF_ARCHITECTURES = [
  'Qwen3MoeForCausalLM',
  'Qwen2MoeForCausalLM',
  'OlmoeForCausalLM',
  'MixtralForCausalLM',
  'Qwen3ForCausalLM',
  'Qwen2ForCausalLM',
  'LlamaForCausalLM',
] as const;
export type HfArchitecture = (typeof HF_ARCHITECTURES)[number];

/** How a family names its tensors (hf-names.ts) and which options it sets. */
export type HfFamily = 'qwen3_moe' | 'qwen2_moe' | 'olmoe' | 'mixtral' | 'qwen3' | 'qwen2' | 'llama';

const FAMILY: Record<HfArchitecture, HfFamily> = {
  Qwen3MoeForCausalLM: 'qwen3_moe',
  Qwen2MoeForCausalLM: 'qwen2_moe',
  OlmoeForCausalLM: 'olmoe',
  MixtralForCausalLM: 'mixtral',
  Qwen3ForCausalLM: 'qwen3',
  Qwen2ForCausalLM: 'qwen2',
  LlamaForCausalLM: 'llama',
};

export const HF_ARCHITECTURE_OF: Record<HfFamily, HfArchitecture> = Object.fromEntries(
  Object.entries(FAMILY).map(([a, f]) => [f, a]),
) as Record<HfFamily, HfArchitecture>;

export class HfConfigError extends Error {
  override readonly name = 'HfConfigError';
}

export interface HfModel {
  family: HfFamily;
  architecture: HfArchitecture;
  config: ModelConfig;
  /** The raw config.json (for export and `model info`). */
  raw: Record<string, unknown>;
}

type Raw = Record<string, unknown>;

/** Keys that change nothing the engine computes at inference or fine-tuning (bookkeeping, training-only regularisation, dtype hints). */
const INERT = new Set([
  'architectures',
  'model_type',
  'transformers_version',
  'torch_dtype',
  'dtype',
  'use_cache',
  'bos_token_id',
  'eos_token_id',
  'pad_token_id',
  'initializer_range',
  'attention_dropout',
  'router_aux_loss_coef',
  'output_router_logits',
  'router_jitter_noise',
  'pretraining_tp',
  'max_window_layers',
  'name_or_path',
  '_name_or_path',
  'auto_map',
  'quantization_config_none',
  'num_experts_per_tok',
  'hidden_act',
  'vocab_size',
  'hidden_size',
  'num_hidden_layers',
  'num_attention_heads',
  'num_key_value_heads',
  'head_dim',
  'intermediate_size',
  'moe_intermediate_size',
  'num_experts',
  'num_local_experts',
  'rope_theta',
  'rms_norm_eps',
  'tie_word_embeddings',
  'max_position_embeddings',
  'rope_scaling',
  'attention_bias',
  'mlp_bias',
  'norm_topk_prob',
  'decoder_sparse_step',
  'mlp_only_layers',
  'shared_expert_intermediate_size',
  'use_sliding_window',
  'sliding_window',
  'clip_qkv',
  'qkv_bias',
  'use_qk_norm',
  'layer_types',
  'rope_parameters',
  'bos_token',
  'eos_token',
  'id2label',
  'label2id',
  'is_decoder',
  'return_dict',
  'output_hidden_states',
  'output_attentions',
  'torchscript',
  'use_return_dict',
  'chunk_size_feed_forward',
  'tokenizer_class',
  'finetuning_task',
  'problem_type',
  'add_cross_attention',
  'tie_encoder_decoder',
  'is_encoder_decoder',
  'prefix',
  'sep_token_id',
  'decoder_start_token_id',
  'task_specific_params',
  'cross_attention_hidden_size',
  'embd_pdrop',
  'resid_pdrop',
  'max_length',
  'min_length',
  'do_sample',
  'early_stopping',
  'num_beams',
  'temperature',
  'top_k',
  'top_p',
  'repetition_penalty',
  'no_repeat_ngram_size',
  'length_penalty',
  'bad_words_ids',
  'num_return_sequences',
  'typical_p',
  'diversity_penalty',
  'num_beam_groups',
  'forced_bos_token_id',
  'forced_eos_token_id',
  'remove_invalid_values',
  'exponential_decay_length_penalty',
  'suppress_tokens',
  'begin_suppress_tokens',
  'encoder_no_repeat_ngram_size',
  'output_scores',
  'return_dict_in_generate',
  'tf_legacy_loss',
  'pruned_heads',
  'use_bfloat16',
  'architectures_note',
]);

function num(raw: Raw, key: string, source: string, fallback?: number): number {
  const v = raw[key] ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new HfConfigError(`${source}: "${key}" must be a number (found ${JSON.stringify(raw[key])})`);
  return v;
}

function bool(raw: Raw, key: string, fallback: boolean): boolean {
  const v = raw[key];
  return typeof v === 'boolean' ? v : fallback;
}

/** Refuse a key whose value the engine does not compute (named, with the value and what is supported). */
function refuse(source: string, key: string, value: unknown, supported: string): never {
  throw new HfConfigError(`${source}: "${key}": ${JSON.stringify(value)} is not supported (${supported})`);
}

function ropeScaling(raw: Raw, source: string): RopeScaling | undefined {
  const value = raw.rope_scaling;
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object') refuse(source, 'rope_scaling', value, 'an object with rope_type');
  const { type, rope_type, ...rest } = value as Raw;
  const kind = rope_type ?? type;
  if (!['default', 'linear', 'llama3', 'yarn'].includes(kind as string))
    refuse(source, 'rope_scaling.rope_type', kind, 'default, linear, llama3 or yarn');
  if (kind === 'yarn' && rest.truncate === false)
    refuse(source, 'rope_scaling.truncate', false, 'yarn with truncate true');
  delete rest.truncate;
  const parsed = RopeScaling.safeParse({ rope_type: kind, ...rest });
  if (!parsed.success)
    throw new HfConfigError(
      `${source}: "rope_scaling": ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** Read a Hugging Face config.json object; `source` (the path) is named in every error. */
export function parseHfConfig(raw: Raw, source = 'config.json'): HfModel {
  const arch = hfArchitecture(raw, source);
  const family = FAMILY[arch];
  refuseUnknownKeys(raw, source, arch);
  refuseUncomputedOptions(raw, source, family, arch);
  const candidate = modelCandidate(raw, source, family);
  try {
    return { family, architecture: arch, config: parseModelConfig(candidate, source), raw };
  } catch (error) {
    throw new HfConfigError((error as Error).message);
  }
}

/** The one supported entry of "architectures". */
function hfArchitecture(raw: Raw, source: string): HfArchitecture {
  const archs = raw.architectures;
  const architecture = Array.isArray(archs) && archs.length === 1 ? archs[0] : archs;
  if (typeof architecture !== 'string' || !(HF_ARCHITECTURES as readonly string[]).includes(architecture)) {
    throw new HfConfigError(
      `${source}: "architectures": ${JSON.stringify(archs)} is not supported (one of ${HF_ARCHITECTURES.join(', ')})`,
    );
  }
  return architecture as HfArchitecture;
}

/** Every key is either understood or inert; any other (a quantization config among them) is refused by name. */
function refuseUnknownKeys(raw: Raw, source: string, arch: HfArchitecture): void {
  for (const key of Object.keys(raw)) {
    if (!INERT.has(key) && !key.startsWith('_')) {
      if (key === 'quantization_config')
        refuse(source, key, raw[key], 'quantized checkpoints are not loaded; use the BF16/F16/F32 weights');
      throw new HfConfigError(
        `${source}: key "${key}" (${JSON.stringify(raw[key])}) is not understood for ${arch}; refusing rather than guessing what it changes`,
      );
    }
  }
}

/** Understood keys whose values the engine does not compute (activation, biases, windows, rope layouts, qk norm). */
function refuseUncomputedOptions(raw: Raw, source: string, family: HfFamily, arch: HfArchitecture): void {
  const act = raw.hidden_act ?? 'silu';
  if (act !== 'silu') refuse(source, 'hidden_act', act, 'silu');
  if (bool(raw, 'mlp_bias', false)) refuse(source, 'mlp_bias', true, 'MLPs without biases');
  if (raw.clip_qkv !== undefined && raw.clip_qkv !== null) refuse(source, 'clip_qkv', raw.clip_qkv, 'null');
  if (bool(raw, 'use_sliding_window', false)) refuse(source, 'use_sliding_window', true, 'full attention');
  if (family === 'mixtral' && raw.sliding_window !== undefined && raw.sliding_window !== null)
    refuse(source, 'sliding_window', raw.sliding_window, 'null (full attention)');
  if (raw.rope_parameters !== undefined)
    refuse(source, 'rope_parameters', raw.rope_parameters, 'rope_theta and rope_scaling');
  if (
    raw.layer_types !== undefined &&
    !(Array.isArray(raw.layer_types) && raw.layer_types.every((t) => t === 'full_attention'))
  )
    refuse(source, 'layer_types', raw.layer_types, 'full_attention only');
  if (
    raw.use_qk_norm !== undefined &&
    raw.use_qk_norm !== (family === 'qwen3_moe' || family === 'qwen3' || family === 'olmoe')
  )
    refuse(source, 'use_qk_norm', raw.use_qk_norm, `the ${arch} default`);
}

/** The lab's model config (before its own validation), option by option from the published keys. */
function modelCandidate(raw: Raw, source: string, family: HfFamily): Record<string, unknown> {
  const H = num(raw, 'hidden_size', source);
  const heads = num(raw, 'num_attention_heads', source);
  const layers = num(raw, 'num_hidden_layers', source);
  const moe = family === 'qwen3_moe' || family === 'qwen2_moe' || family === 'olmoe' || family === 'mixtral';
  const experts = moe ? num(raw, family === 'mixtral' ? 'num_local_experts' : 'num_experts', source) : 0;
  const mlpOnly = moe ? mlpOnlyLayers(raw, source, family, layers) : [];
  const candidate: Record<string, unknown> = {
    model_type: MODEL_TYPE,
    format_version: CONFIG_FORMAT_VERSION,
    vocab_size: num(raw, 'vocab_size', source),
    hidden_size: H,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: num(raw, 'num_key_value_heads', source, heads),
    head_dim:
      raw.head_dim === null || raw.head_dim === undefined ? Math.floor(H / heads) : num(raw, 'head_dim', source),
    num_experts: experts,
    num_experts_per_tok: moe ? num(raw, 'num_experts_per_tok', source) : 0,
    // Mixtral and OLMoE name the expert width intermediate_size (they have no dense layers).
    moe_intermediate_size: moe
      ? num(raw, family === 'mixtral' || family === 'olmoe' ? 'intermediate_size' : 'moe_intermediate_size', source)
      : 0,
    rope_theta: num(raw, 'rope_theta', source, 10000),
    rms_norm_eps: num(raw, 'rms_norm_eps', source, 1e-6),
    tie_word_embeddings: bool(raw, 'tie_word_embeddings', false),
    max_position_embeddings: num(raw, 'max_position_embeddings', source),
    initializer_range: num(raw, 'initializer_range', source, 0.02),
  };
  setAttentionOptions(candidate, raw, source, family);
  if (moe) setExpertOptions(candidate, raw, source, family);
  setDenseLayers(candidate, raw, source, moe, mlpOnly);
  const scaling = ropeScaling(raw, source);
  if (scaling) candidate.rope_scaling = scaling;
  return candidate;
}

/** Qwen MoE layers that stay dense: in mlp_only_layers, or off the decoder_sparse_step (none for the other families). */
function mlpOnlyLayers(raw: Raw, source: string, family: HfFamily, layers: number): number[] {
  const mlpOnly: number[] = [];
  if (family !== 'qwen3_moe' && family !== 'qwen2_moe') return mlpOnly;
  const step = num(raw, 'decoder_sparse_step', source, 1);
  const listed = raw.mlp_only_layers ?? [];
  if (!Array.isArray(listed) || !listed.every((l) => Number.isInteger(l)))
    refuse(source, 'mlp_only_layers', listed, 'a list of layer indices');
  // transformers: sparse when not in mlp_only_layers and num_experts > 0 and (l + 1) % decoder_sparse_step == 0.
  for (let l = 0; l < layers; l++)
    if ((listed as number[]).includes(l) || step <= 0 || (l + 1) % step !== 0) mlpOnly.push(l);
  return mlpOnly;
}

/** The query/key norm and the attention biases each family has. */
function setAttentionOptions(candidate: Record<string, unknown>, raw: Raw, source: string, family: HfFamily): void {
  if (family === 'qwen3_moe' || family === 'qwen3') candidate.qk_norm = 'head';
  if (family === 'olmoe') candidate.qk_norm = 'projection';
  // Qwen2 families always have q/k/v biases (and no o bias); Llama, Qwen3 and OLMoE follow attention_bias for all four.
  if (family === 'qwen2' || family === 'qwen2_moe') candidate.attention_qkv_bias = bool(raw, 'qkv_bias', true);
  else if (bool(raw, 'attention_bias', false)) {
    if (family === 'mixtral') refuse(source, 'attention_bias', true, 'Mixtral without attention biases');
    candidate.attention_qkv_bias = true;
    candidate.attention_out_bias = true;
  }
}

/** The router's top-k renormalisation and Qwen2-MoE's shared expert. */
function setExpertOptions(candidate: Record<string, unknown>, raw: Raw, source: string, family: HfFamily): void {
  // Mixtral: softmax over the top-k logits, the same as renormalized top-k probabilities.
  const defaultNorm = family === 'mixtral';
  candidate.norm_topk_prob = family === 'mixtral' ? true : bool(raw, 'norm_topk_prob', defaultNorm);
  if (family === 'qwen2_moe') {
    const shared = num(raw, 'shared_expert_intermediate_size', source, 0);
    if (shared > 0) candidate.shared_expert_intermediate_size = shared;
  }
}

/** The dense MLP width, required where any layer is dense, and which MoE layers are. */
function setDenseLayers(
  candidate: Record<string, unknown>,
  raw: Raw,
  source: string,
  moe: boolean,
  mlpOnly: number[],
): void {
  const denseWidth = raw.intermediate_size;
  if (!moe || mlpOnly.length > 0) {
    if (typeof denseWidth !== 'number')
      throw new HfConfigError(
        `${source}: "intermediate_size" is required (the dense MLP width${moe ? ` of layers ${mlpOnly.join(', ')}` : ''})`,
      );
    candidate.intermediate_size = denseWidth;
  }
  if (mlpOnly.length > 0) candidate.mlp_only_layers = mlpOnly;
}
