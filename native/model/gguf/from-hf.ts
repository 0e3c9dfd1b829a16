/**
 * A published Hugging Face folder as GGUF, the way llama.cpp's own converter writes these families:
 * architecture names `qwen3moe`, `qwen2moe`, `olmoe`, `qwen3`, `qwen2` and `llama` (Mixtral is `llama`
 * with experts), tensors renamed from the published names (its own table here, not the lab's import
 * routes, so an export is an independent reading of the checkpoint), experts stacked as
 * `ffn_{gate,up,down}_exps`, Llama's q/k rows permuted for llama.cpp's interleaved rotary, and the
 * tokenizer (BPE vocabulary, merges, token types, special ids, chat template) as `tokenizer.ggml.*`.
 * What llama.cpp would compute differently is refused by name instead of written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isMoeLayer, type ModelConfig } from '../config';
import { openSafetensors, toFloat32 } from '../safetensors/index';
import { readHfModel, weightFiles, HfCheckpointError } from '../hf/hf-checkpoint';
import type { HfFamily } from '../hf/hf-config';
import { writeGguf, type GgufTensor, type GgufValue } from './writer';

export const GGUF_ARCH: Record<HfFamily, string> = {
  qwen3_moe: 'qwen3moe',
  qwen2_moe: 'qwen2moe',
  olmoe: 'olmoe',
  mixtral: 'llama',
  qwen3: 'qwen3',
  qwen2: 'qwen2',
  llama: 'llama',
};
/** llama.cpp's pre-tokenizer names for these families' regexes. */
const GGUF_PRE: Record<HfFamily, string> = {
  qwen3_moe: 'qwen2',
  qwen2_moe: 'qwen2',
  olmoe: 'olmo',
  mixtral: 'default',
  qwen3: 'qwen2',
  qwen2: 'qwen2',
  llama: 'llama-bpe',
};
/** Whether llama.cpp renormalizes the top-k weights for the architecture (fixed per architecture there). */
const LLAMA_CPP_NORM_TOPK: Partial<Record<HfFamily, boolean>> = {
  qwen3_moe: true,
  qwen2_moe: false,
  olmoe: false,
  mixtral: true,
};

export class GgufExportError extends Error {
  override readonly name = 'GgufExportError';
}

interface Published {
  shape: number[];
  data: Float32Array;
}

/** A published tensor name -> its GGUF name, or an expert slot of a stacked GGUF tensor. */
function ggufName(name: string): { name: string; expert?: number } | null {
  if (name === 'model.embed_tokens.weight') return { name: 'token_embd.weight' };
  if (name === 'model.norm.weight') return { name: 'output_norm.weight' };
  if (name === 'lm_head.weight') return { name: 'output.weight' };
  const m = /^model\.layers\.(\d+)\.(.+)$/.exec(name);
  if (!m) return null;
  const [, l, rest] = m as unknown as [string, string, string];
  const blk = (s: string) => ({ name: `blk.${l}.${s}` });
  const fixed: Record<string, string> = {
    'input_layernorm.weight': 'attn_norm.weight',
    'post_attention_layernorm.weight': 'ffn_norm.weight',
    'self_attn.q_proj.weight': 'attn_q.weight',
    'self_attn.k_proj.weight': 'attn_k.weight',
    'self_attn.v_proj.weight': 'attn_v.weight',
    'self_attn.o_proj.weight': 'attn_output.weight',
    'self_attn.q_proj.bias': 'attn_q.bias',
    'self_attn.k_proj.bias': 'attn_k.bias',
    'self_attn.v_proj.bias': 'attn_v.bias',
    'self_attn.o_proj.bias': 'attn_output.bias',
    'self_attn.q_norm.weight': 'attn_q_norm.weight',
    'self_attn.k_norm.weight': 'attn_k_norm.weight',
    'mlp.gate_proj.weight': 'ffn_gate.weight',
    'mlp.up_proj.weight': 'ffn_up.weight',
    'mlp.down_proj.weight': 'ffn_down.weight',
    'mlp.gate.weight': 'ffn_gate_inp.weight',
    'block_sparse_moe.gate.weight': 'ffn_gate_inp.weight',
    'mlp.shared_expert.gate_proj.weight': 'ffn_gate_shexp.weight',
    'mlp.shared_expert.up_proj.weight': 'ffn_up_shexp.weight',
    'mlp.shared_expert.down_proj.weight': 'ffn_down_shexp.weight',
    'mlp.shared_expert_gate.weight': 'ffn_gate_inp_shexp.weight',
  };
  if (fixed[rest]) return blk(fixed[rest]);
  const e = /^(?:mlp|block_sparse_moe)\.experts\.(\d+)\.(gate_proj|up_proj|down_proj|w1|w2|w3)\.weight$/.exec(rest);
  if (e) {
    const which = { gate_proj: 'gate', w1: 'gate', up_proj: 'up', w3: 'up', down_proj: 'down', w2: 'down' }[e[2]!]!;
    return { name: `blk.${l}.ffn_${which}_exps.weight`, expert: Number(e[1]) };
  }
  return null;
}

/** llama.cpp's interleaved rotary for `llama`: rows of each head reordered (x0, x_{d/2}, x1, ...), as its converter does. */
function permuteRows(data: Float32Array, rows: number, cols: number, heads: number): Float32Array {
  const hd = rows / heads;
  const half = hd / 2;
  const out = new Float32Array(data.length);
  for (let h = 0; h < heads; h++) {
    for (let j = 0; j < 2; j++) {
      for (let i = 0; i < half; i++) {
        const from = h * hd + j * half + i;
        const to = h * hd + 2 * i + j;
        out.set(data.subarray(from * cols, (from + 1) * cols), to * cols);
      }
    }
  }
  return out;
}

interface TokenizerMeta {
  tokens: string[];
  types: number[];
  merges: string[];
  eos: number | null;
  bos: number | null;
  pad: number | null;
  template: string | null;
}

function tokenizerMeta(dir: string, vocabSize: number, eosIds: number[]): TokenizerMeta {
  const path = join(dir, 'tokenizer.json');
  if (!existsSync(path)) throw new GgufExportError(`${path} is missing: GGUF carries the tokenizer`);
  const json = JSON.parse(readFileSync(path, 'utf8')) as {
    model: { type?: string; vocab: Record<string, number>; merges?: (string | [string, string])[] };
    added_tokens?: { id: number; content: string; special?: boolean }[];
  };
  if (json.model.type !== 'BPE')
    throw new GgufExportError(
      `${path}: model.type ${JSON.stringify(json.model.type)}; the GGUF export writes BPE vocabularies`,
    );
  const tokens = new Array<string>(vocabSize).fill('');
  const types = new Array<number>(vocabSize).fill(0);
  const put = (id: number, content: string, type: number) => {
    if (id >= vocabSize)
      throw new GgufExportError(
        `${path}: token ${JSON.stringify(content)} has id ${id}, outside config.json vocab_size ${vocabSize}`,
      );
    tokens[id] = content;
    types[id] = type;
  };
  for (const [content, id] of Object.entries(json.model.vocab)) put(id, content, 1);
  for (const t of json.added_tokens ?? []) put(t.id, t.content, t.special ? 3 : 4);
  // Rows past the tokenizer (vocab padded for the matmul): unused, as llama.cpp's converter names them.
  for (let i = 0; i < vocabSize; i++) if (types[i] === 0) put(i, `[PAD${i}]`, 5);
  const merges = (json.model.merges ?? []).map((m) => (Array.isArray(m) ? m.join(' ') : m));
  let config: Record<string, unknown> = {};
  const configPath = join(dir, 'tokenizer_config.json');
  if (existsSync(configPath)) config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
  const idOf = (ref: unknown): number | null => {
    const content = typeof ref === 'string' ? ref : (ref as { content?: string } | null)?.content;
    if (!content) return null;
    const i = tokens.indexOf(content);
    return i >= 0 ? i : null;
  };
  const jinja = join(dir, 'chat_template.jinja');
  const template = existsSync(jinja)
    ? readFileSync(jinja, 'utf8')
    : typeof config.chat_template === 'string'
      ? config.chat_template
      : null;
  return {
    tokens,
    types,
    merges,
    eos: eosIds[0] ?? idOf(config.eos_token),
    bos: idOf(config.bos_token),
    pad: idOf(config.pad_token),
    template,
  };
}

/** Every published tensor, float32 (shard by shard). */
function readPublished(dir: string): Map<string, Published> {
  const { files } = weightFiles(dir);
  const out = new Map<string, Published>();
  for (const f of files) {
    const file = openSafetensors(join(dir, f));
    try {
      for (const t of file.tensors) {
        if (out.has(t.name) || /\.rotary_emb\.inv_freq$/.test(t.name)) continue;
        const raw = file.read(t.name);
        out.set(t.name, { shape: [...t.shape], data: toFloat32(raw.dtype, raw.data) });
      }
    } finally {
      file.close();
    }
  }
  return out;
}

export interface ExportGgufOptions {
  dtype: 'f32' | 'f16';
  name?: string;
}

export function exportGgufFromHf(
  dirArg: string,
  outPath: string,
  options: ExportGgufOptions,
): { bytes: number; tensors: number; architecture: string } {
  const dir = resolve(dirArg);
  const { family, config: c, raw } = readHfModel(dir);
  const arch = GGUF_ARCH[family];
  refuseWhatLlamaCppComputesOtherwise(dir, family, c);
  const tok = tokenizerMeta(dir, c.vocab_size, generationEosIds(dir));
  const meta = new Map<string, GgufValue>();
  meta.set('general.architecture', { type: 'string', value: arch });
  meta.set('general.name', { type: 'string', value: options.name ?? String(raw._name_or_path ?? family) });
  meta.set('general.file_type', { type: 'u32', value: options.dtype === 'f32' ? 0 : 1 });
  setModelMetadata(meta, family, c);
  setTokenizerMetadata(meta, family, tok);
  const ordered = ggufTensors(dir, c, arch, options.dtype);
  const written = writeGguf(outPath, meta, ordered);
  return { bytes: written.bytes, tensors: ordered.length, architecture: arch };
}

/** What llama.cpp's architecture would compute differently from the checkpoint is refused, naming the key. */
function refuseWhatLlamaCppComputesOtherwise(dir: string, family: HfFamily, c: ModelConfig): void {
  const arch = GGUF_ARCH[family];
  const refuse = (what: string) => {
    throw new GgufExportError(
      `${join(dir, 'config.json')}: ${what}; llama.cpp's ${arch} would compute something else, so no GGUF is written`,
    );
  };
  const denseLayers = Array.from({ length: c.num_hidden_layers }, (_, l) => l).filter(
    (l) => c.num_experts > 0 && !isMoeLayer(c, l),
  );
  if (denseLayers.length) refuse(`"mlp_only_layers"/"decoder_sparse_step" make layers ${denseLayers.join(', ')} dense`);
  const norm = LLAMA_CPP_NORM_TOPK[family];
  if (norm !== undefined && (c.norm_topk_prob ?? true) !== norm)
    refuse(`"norm_topk_prob": ${c.norm_topk_prob} (llama.cpp's ${arch} uses ${norm})`);
  if (c.rope_scaling && c.rope_scaling.rope_type !== 'default' && c.rope_scaling.rope_type !== 'linear')
    refuse(`"rope_scaling" ${c.rope_scaling.rope_type} is not written by this export`);
  if (c.attention_out_bias && family !== 'llama') refuse('"attention_bias" (an output-projection bias)');
}

/** generation_config.json's eos_token_id as a list (empty without the file or the key). */
function generationEosIds(dir: string): number[] {
  const p = join(dir, 'generation_config.json');
  if (!existsSync(p)) return [];
  const e = (JSON.parse(readFileSync(p, 'utf8')) as { eos_token_id?: number | number[] }).eos_token_id;
  return e === undefined ? [] : Array.isArray(e) ? e : [e];
}

/** The architecture's hyperparameters as `<arch>.*` keys, as llama.cpp's converter writes them. */
function setModelMetadata(meta: Map<string, GgufValue>, family: HfFamily, c: ModelConfig): void {
  const arch = GGUF_ARCH[family];
  const u32 = (k: string, v: number) => meta.set(k, { type: 'u32', value: v });
  const f32 = (k: string, v: number) => meta.set(k, { type: 'f32', value: v });
  u32(`${arch}.context_length`, c.max_position_embeddings);
  u32(`${arch}.embedding_length`, c.hidden_size);
  u32(`${arch}.block_count`, c.num_hidden_layers);
  u32(
    `${arch}.feed_forward_length`,
    c.num_experts > 0 && (family === 'mixtral' || family === 'olmoe')
      ? c.moe_intermediate_size
      : (c.intermediate_size ?? c.moe_intermediate_size),
  );
  u32(`${arch}.attention.head_count`, c.num_attention_heads);
  u32(`${arch}.attention.head_count_kv`, c.num_key_value_heads);
  u32(`${arch}.attention.key_length`, c.head_dim);
  u32(`${arch}.attention.value_length`, c.head_dim);
  u32(`${arch}.rope.dimension_count`, c.head_dim);
  f32(`${arch}.rope.freq_base`, c.rope_theta);
  f32(`${arch}.attention.layer_norm_rms_epsilon`, c.rms_norm_eps);
  u32(`${arch}.vocab_size`, c.vocab_size);
  if (c.rope_scaling?.rope_type === 'linear') {
    meta.set(`${arch}.rope.scaling.type`, { type: 'string', value: 'linear' });
    f32(`${arch}.rope.scaling.factor`, c.rope_scaling.factor ?? 1);
  }
  if (c.num_experts > 0) {
    u32(`${arch}.expert_count`, c.num_experts);
    u32(`${arch}.expert_used_count`, c.num_experts_per_tok);
    if (family === 'qwen3_moe' || family === 'qwen2_moe')
      u32(`${arch}.expert_feed_forward_length`, c.moe_intermediate_size);
    if (c.shared_expert_intermediate_size)
      u32(`${arch}.expert_shared_feed_forward_length`, c.shared_expert_intermediate_size);
  }
}

/** The tokenizer as `tokenizer.ggml.*` keys (and its chat template). */
function setTokenizerMetadata(meta: Map<string, GgufValue>, family: HfFamily, tok: TokenizerMeta): void {
  const u32 = (k: string, v: number) => meta.set(k, { type: 'u32', value: v });
  meta.set('tokenizer.ggml.model', { type: 'string', value: 'gpt2' });
  meta.set('tokenizer.ggml.pre', { type: 'string', value: GGUF_PRE[family] });
  meta.set('tokenizer.ggml.tokens', { type: 'string[]', value: tok.tokens });
  meta.set('tokenizer.ggml.token_type', { type: 'i32[]', value: tok.types });
  meta.set('tokenizer.ggml.merges', { type: 'string[]', value: tok.merges });
  if (tok.eos !== null) u32('tokenizer.ggml.eos_token_id', tok.eos);
  if (tok.bos !== null) u32('tokenizer.ggml.bos_token_id', tok.bos);
  if (tok.pad !== null) u32('tokenizer.ggml.padding_token_id', tok.pad);
  meta.set('tokenizer.ggml.add_bos_token', { type: 'bool', value: false });
  if (tok.template) meta.set('tokenizer.chat_template', { type: 'string', value: tok.template });
}

/** Every published tensor under its GGUF name, experts stacked, in llama.cpp's order (embedding, then block by block). */
function ggufTensors(dir: string, c: ModelConfig, arch: string, dtype: ExportGgufOptions['dtype']): GgufTensor[] {
  const dtypeOf = (name: string, rank: number): 'f32' | 'f16' =>
    dtype === 'f16' && rank >= 2 && !name.endsWith('ffn_gate_inp.weight') ? 'f16' : 'f32';
  const { tensors, stacked } = renamedTensors(dir, c, arch, dtypeOf);
  for (const [name, s] of stacked) tensors.set(name, stackExperts(dir, name, s, c.num_experts, dtypeOf));
  return [...tensors.values()].sort((a, b) => order(a.name) - order(b.name) || a.name.localeCompare(b.name));
}

type DtypeOf = (name: string, rank: number) => 'f32' | 'f16';

/** The published tensors renamed (Llama's q/k rows permuted), and the expert slots of each stacked tensor. */
function renamedTensors(
  dir: string,
  c: ModelConfig,
  arch: string,
  dtypeOf: DtypeOf,
): { tensors: Map<string, GgufTensor>; stacked: Map<string, { slots: (Published | undefined)[] }> } {
  const tensors = new Map<string, GgufTensor>();
  const stacked = new Map<string, { slots: (Published | undefined)[] }>();
  for (const [name, t] of readPublished(dir)) {
    if (name === 'lm_head.weight' && c.tie_word_embeddings) continue;
    const target = ggufName(name);
    if (!target) throw new HfCheckpointError(`${dir}: tensor "${name}" has no GGUF name in the ${arch} layout`);
    if (target.expert !== undefined) {
      const s = stacked.get(target.name) ?? { slots: new Array<Published | undefined>(c.num_experts) };
      s.slots[target.expert] = t;
      stacked.set(target.name, s);
      continue;
    }
    let data = t.data;
    let shape = t.shape;
    if (arch === 'llama' && /\.attn_[qk]\.(weight|bias)$/.test(target.name)) {
      const heads = target.name.includes('attn_q') ? c.num_attention_heads : c.num_key_value_heads;
      data = permuteRows(data, shape[0]!, shape.length === 2 ? shape[1]! : 1, heads);
    }
    if (target.name.endsWith('ffn_gate_inp_shexp.weight')) shape = [shape.reduce((a, b) => a * b, 1)];
    tensors.set(target.name, { name: target.name, shape, data, dtype: dtypeOf(target.name, shape.length) });
  }
  return { tensors, stacked };
}

/** One `ffn_*_exps` tensor: every expert's matrix, in expert order, as one [experts, ...] tensor. */
function stackExperts(
  dir: string,
  name: string,
  s: { slots: (Published | undefined)[] },
  experts: number,
  dtypeOf: DtypeOf,
): GgufTensor {
  const first = s.slots.find(Boolean);
  const missing = s.slots.findIndex((x) => !x);
  if (!first || missing >= 0)
    throw new HfCheckpointError(`${dir}: expert ${Math.max(missing, 0)} of ${name} is missing`);
  const slot = first.data.length;
  const data = new Float32Array(slot * experts);
  s.slots.forEach((t, e) => data.set(t!.data, e * slot));
  return { name, shape: [experts, ...first.shape], data, dtype: dtypeOf(name, 3) };
}

function order(name: string): number {
  if (name === 'token_embd.weight') return -1;
  const m = /^blk\.(\d+)\./.exec(name);
  return m ? Number(m[1]) : 1e9;
}
