/**
 * The lab's checkpoints in a published Hugging Face layout, so transformers, vLLM, SGLang (and, through
 * export-gguf, llama.cpp) load them. The family is the one whose computation the config's options are:
 * Qwen3-MoE when the model has per-head QK-norm (`model init --set qk_norm=head`), Mixtral for the lab's
 * default architecture (softmax router, renormalized top-k, SwiGLU experts, no QK-norm: exactly what
 * Mixtral computes), and the imported families' own layouts for checkpoints trained from them. The critic's
 * value head is the lab's and is not written.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fromFloat32, writeSafetensors, type Tensor } from '../safetensors/index';
import type { ModelConfig } from '../config';
import { HF_ARCHITECTURE_OF, type HfFamily } from './hf-config';
import { publishedTensor, tensorRoutes } from './hf-names';

export class ExportHfError extends Error {
  override readonly name = 'ExportHfError';
}

/** The published family that computes what this config computes, or why there is none. */
export function familyFor(c: ModelConfig, wanted?: HfFamily): HfFamily {
  const moe = c.num_experts > 0;
  const bias = c.attention_qkv_bias ?? false;
  const outBias = c.attention_out_bias ?? false;
  const shared = (c.shared_expert_intermediate_size ?? 0) > 0;
  const dense = (c.mlp_only_layers ?? []).length > 0;
  // OLMoE and Qwen2(-MoE) configs have no head_dim key: their heads are hidden_size / heads wide.
  const plainHeads = c.head_dim * c.num_attention_heads === c.hidden_size;
  const candidates: HfFamily[] = [];
  if (moe) {
    if (shared && bias && !outBias && !c.qk_norm && plainHeads) candidates.push('qwen2_moe');
    if (!shared && c.qk_norm === 'projection' && bias === outBias && !dense && plainHeads) candidates.push('olmoe');
    if (!shared && c.qk_norm === 'head' && bias === outBias) candidates.push('qwen3_moe');
    if (!shared && !c.qk_norm && !bias && !outBias && !dense && (c.norm_topk_prob ?? true)) candidates.push('mixtral');
  } else {
    if (c.qk_norm === 'head' && bias === outBias) candidates.push('qwen3');
    if (!c.qk_norm && bias && !outBias && plainHeads) candidates.push('qwen2');
    if (!c.qk_norm && bias === outBias) candidates.push('llama');
  }
  if (wanted) {
    if (candidates.includes(wanted)) return wanted;
    const why =
      wanted === 'qwen3_moe' && !c.qk_norm
        ? ' (Qwen3-MoE normalizes queries and keys per head; this model has no QK-norm: create it with --set qk_norm=head, or export as mixtral, which computes exactly this model)'
        : '';
    throw new ExportHfError(
      `config.json: the model cannot be written as ${HF_ARCHITECTURE_OF[wanted]} without changing what it computes${why}; it can be: ${candidates.map((f) => HF_ARCHITECTURE_OF[f]).join(', ') || 'none'}`,
    );
  }
  const first = candidates[0];
  if (!first)
    throw new ExportHfError(
      'config.json: no published architecture computes this combination of options (qk_norm, biases, shared expert, dense layers)',
    );
  return first;
}

/** config.json of the published family for a lab config. */
export function hfConfigJson(c: ModelConfig, family: HfFamily, dtype: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    architectures: [HF_ARCHITECTURE_OF[family]],
    model_type: family,
    vocab_size: c.vocab_size,
    hidden_size: c.hidden_size,
    num_hidden_layers: c.num_hidden_layers,
    num_attention_heads: c.num_attention_heads,
    num_key_value_heads: c.num_key_value_heads,
    head_dim: c.head_dim,
    max_position_embeddings: c.max_position_embeddings,
    rms_norm_eps: c.rms_norm_eps,
    rope_theta: c.rope_theta,
    hidden_act: 'silu',
    tie_word_embeddings: c.tie_word_embeddings,
    initializer_range: c.initializer_range,
    torch_dtype: dtype,
  };
  if (c.rope_scaling) out.rope_scaling = c.rope_scaling;
  if (family === 'llama' || family === 'qwen3' || family === 'qwen3_moe' || family === 'olmoe')
    out.attention_bias = c.attention_qkv_bias ?? false;
  if (family === 'mixtral')
    Object.assign(out, {
      num_local_experts: c.num_experts,
      num_experts_per_tok: c.num_experts_per_tok,
      intermediate_size: c.moe_intermediate_size,
      sliding_window: null,
    });
  if (family === 'olmoe')
    Object.assign(out, {
      num_experts: c.num_experts,
      num_experts_per_tok: c.num_experts_per_tok,
      intermediate_size: c.moe_intermediate_size,
      norm_topk_prob: c.norm_topk_prob ?? true,
      clip_qkv: null,
    });
  if (family === 'qwen3_moe' || family === 'qwen2_moe') {
    Object.assign(out, {
      num_experts: c.num_experts,
      num_experts_per_tok: c.num_experts_per_tok,
      moe_intermediate_size: c.moe_intermediate_size,
      norm_topk_prob: c.norm_topk_prob ?? true,
      decoder_sparse_step: 1,
      mlp_only_layers: c.mlp_only_layers ?? [],
    });
    if (c.intermediate_size) out.intermediate_size = c.intermediate_size;
  }
  if (family === 'qwen2_moe') out.shared_expert_intermediate_size = c.shared_expert_intermediate_size;
  if (family === 'qwen3' || family === 'qwen2' || family === 'llama') out.intermediate_size = c.intermediate_size;
  return out;
}

export interface ExportHfOptions {
  family?: HfFamily;
  dtype?: 'F32' | 'BF16' | 'F16';
  /** Largest shard in bytes (default 2 GiB); more than one shard gets model.safetensors.index.json. */
  shardBytes?: number;
  /** The source folder, for tokenizer.json, tokenizer_config.json and chat_template.jinja. */
  sourceDir: string;
  eosTokenIds?: readonly number[];
  overwrite?: boolean;
}

export function exportHf(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  outArg: string,
  options: ExportHfOptions,
): { path: string; family: HfFamily; files: string[] } {
  const out = resolve(outArg);
  if (existsSync(out) && !options.overwrite) throw new ExportHfError(`${out} exists; choose a new folder`);
  const family = familyFor(config, options.family);
  const dtype = options.dtype ?? 'F32';
  const partial = `${out}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const routes = tensorRoutes(config, family);
  const limit = options.shardBytes ?? 2 * 2 ** 30;
  const shards: [string, Tensor][][] = [[]];
  let size = 0;
  for (const r of routes) {
    const lab = weights.get(r.lab);
    if (!lab) throw new ExportHfError(`weights: tensor '${r.lab}' is missing`);
    const values = publishedTensor(r, lab);
    const bytes = values.length * (dtype === 'F32' ? 4 : 2);
    if (size > 0 && size + bytes > limit) {
      shards.push([]);
      size = 0;
    }
    shards[shards.length - 1]!.push([
      r.hf,
      { dtype, shape: r.shape, data: dtype === 'F32' ? values : fromFloat32(dtype, values) },
    ]);
    size += bytes;
  }
  const files: string[] = [];
  const weightMap: Record<string, string> = {};
  let total = 0;
  shards.forEach((tensors, i) => {
    const name =
      shards.length === 1
        ? 'model.safetensors'
        : `model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`;
    writeSafetensors(join(partial, name), new Map(tensors), { metadata: { format: 'pt' } });
    for (const [t, v] of tensors) {
      weightMap[t] = name;
      total += v.data.byteLength;
    }
    files.push(name);
  });
  if (shards.length > 1) {
    writeFileSync(
      join(partial, 'model.safetensors.index.json'),
      JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2) + '\n',
    );
    files.push('model.safetensors.index.json');
  }
  const torchDtype = { F32: 'float32', BF16: 'bfloat16', F16: 'float16' }[dtype];
  writeFileSync(join(partial, 'config.json'), JSON.stringify(hfConfigJson(config, family, torchDtype), null, 2) + '\n');
  files.push('config.json');
  for (const name of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) {
    if (existsSync(join(options.sourceDir, name))) {
      copyFileSync(join(options.sourceDir, name), join(partial, name));
      files.push(name);
    }
  }
  if (options.eosTokenIds?.length) {
    writeFileSync(
      join(partial, 'generation_config.json'),
      JSON.stringify({ eos_token_id: [...options.eosTokenIds] }, null, 2) + '\n',
    );
    files.push('generation_config.json');
  }
  if (existsSync(out)) rmSync(out, { recursive: true, force: true });
  renameSync(partial, out);
  return { path: out, family, files };
}
