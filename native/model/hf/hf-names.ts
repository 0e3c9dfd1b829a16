/**
 * Where each published tensor goes in the lab's parameters, per family (REFERENCE.md "Published MoE
 * layouts"). Published matrices are [out, in]; the lab's are [in, out] with experts stacked on the first
 * axis, so a route says which lab tensor a published one fills, whether it is transposed, and which expert
 * slot it is. The same routes run backwards for export (export-hf, export-gguf).
 */
import { isMoeLayer, paramName, type ModelConfig } from '../config';
import type { HfFamily } from './hf-config';

export interface TensorRoute {
  /** The published name. */
  hf: string;
  /** Its shape as config.json calls for it ([out, in] for matrices). */
  shape: number[];
  /** The lab parameter it fills. */
  lab: string;
  /** A matrix stored [out, in] in the published file and [in, out] in the lab. */
  transpose: boolean;
  /** The expert slot of a stacked lab tensor [E, in, out]. */
  expert?: number;
}

/** The expert and router names of a family's MoE block. */
function moeNames(family: HfFamily, l: number) {
  if (family === 'mixtral') {
    const p = `model.layers.${l}.block_sparse_moe`;
    return {
      router: `${p}.gate.weight`,
      expert: (e: number, w: 'gate' | 'up' | 'down') =>
        `${p}.experts.${e}.${{ gate: 'w1', up: 'w3', down: 'w2' }[w]}.weight`,
    };
  }
  const p = `model.layers.${l}.mlp`;
  return {
    router: `${p}.gate.weight`,
    expert: (e: number, w: 'gate' | 'up' | 'down') => `${p}.experts.${e}.${w}_proj.weight`,
  };
}

/** Every published tensor of a checkpoint of this family and config, in a fixed order. */
export function tensorRoutes(c: ModelConfig, family: HfFamily): TensorRoute[] {
  const H = c.hidden_size;
  const q = c.num_attention_heads * c.head_dim;
  const kv = c.num_key_value_heads * c.head_dim;
  const routes: TensorRoute[] = [
    { hf: 'model.embed_tokens.weight', shape: [c.vocab_size, H], lab: paramName.embed, transpose: false },
  ];
  const matrix = (hf: string, out: number, inp: number, lab: string, expert?: number): TensorRoute => ({
    hf,
    shape: [out, inp],
    lab,
    transpose: true,
    ...(expert === undefined ? {} : { expert }),
  });
  const vector = (hf: string, size: number, lab: string): TensorRoute => ({ hf, shape: [size], lab, transpose: false });
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const a = `model.layers.${l}.self_attn`;
    routes.push(vector(`model.layers.${l}.input_layernorm.weight`, H, paramName.attnNorm(l)));
    routes.push(
      matrix(`${a}.q_proj.weight`, q, H, paramName.wq(l)),
      matrix(`${a}.k_proj.weight`, kv, H, paramName.wk(l)),
      matrix(`${a}.v_proj.weight`, kv, H, paramName.wv(l)),
    );
    if (c.attention_qkv_bias)
      routes.push(
        vector(`${a}.q_proj.bias`, q, paramName.bq(l)),
        vector(`${a}.k_proj.bias`, kv, paramName.bk(l)),
        vector(`${a}.v_proj.bias`, kv, paramName.bv(l)),
      );
    routes.push(matrix(`${a}.o_proj.weight`, H, q, paramName.wo(l)));
    if (c.attention_out_bias) routes.push(vector(`${a}.o_proj.bias`, H, paramName.bo(l)));
    if (c.qk_norm) {
      const [qs, ks] = c.qk_norm === 'head' ? [c.head_dim, c.head_dim] : [q, kv];
      routes.push(
        vector(`${a}.q_norm.weight`, qs, paramName.qNorm(l)),
        vector(`${a}.k_norm.weight`, ks, paramName.kNorm(l)),
      );
    }
    routes.push(vector(`model.layers.${l}.post_attention_layernorm.weight`, H, paramName.ffnNorm(l)));
    if (!isMoeLayer(c, l)) {
      const D = c.intermediate_size!;
      const m = `model.layers.${l}.mlp`;
      routes.push(
        matrix(`${m}.gate_proj.weight`, D, H, paramName.mlpGate(l)),
        matrix(`${m}.up_proj.weight`, D, H, paramName.mlpUp(l)),
        matrix(`${m}.down_proj.weight`, H, D, paramName.mlpDown(l)),
      );
      continue;
    }
    const names = moeNames(family, l);
    const I = c.moe_intermediate_size;
    routes.push(matrix(names.router, c.num_experts, H, paramName.router(l)));
    for (let e = 0; e < c.num_experts; e++) {
      routes.push(
        matrix(names.expert(e, 'gate'), I, H, paramName.wGate(l), e),
        matrix(names.expert(e, 'up'), I, H, paramName.wUp(l), e),
        matrix(names.expert(e, 'down'), H, I, paramName.wDown(l), e),
      );
    }
    const S = c.shared_expert_intermediate_size ?? 0;
    if (S > 0) {
      const m = `model.layers.${l}.mlp`;
      routes.push(
        matrix(`${m}.shared_expert.gate_proj.weight`, S, H, paramName.sharedGate(l)),
        matrix(`${m}.shared_expert.up_proj.weight`, S, H, paramName.sharedUp(l)),
        matrix(`${m}.shared_expert.down_proj.weight`, H, S, paramName.sharedDown(l)),
        matrix(`${m}.shared_expert_gate.weight`, 1, H, paramName.sharedExpertGate(l)),
      );
    }
  }
  routes.push(vector('model.norm.weight', H, paramName.finalNorm));
  if (!c.tie_word_embeddings) routes.push(matrix('lm_head.weight', c.vocab_size, H, paramName.lmHead));
  return routes;
}

/** Tensors a published file may hold that carry nothing the model computes from (old rotary caches). */
export function isIgnorableTensor(name: string, c: ModelConfig): boolean {
  return /\.rotary_emb\.inv_freq$/.test(name) || (c.tie_word_embeddings && name === 'lm_head.weight');
}

/** Copy a published [rows, cols] matrix transposed into `into` at `offset` ([cols, rows] there). */
export function transposeInto(src: Float32Array, rows: number, cols: number, into: Float32Array, offset: number): void {
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let j = 0; j < cols; j++) into[offset + j * rows + r] = src[base + j]!;
  }
}

/** A published tensor's values from the lab's parameters (the inverse route; export). */
export function publishedTensor(route: TensorRoute, lab: Float32Array): Float32Array {
  if (!route.transpose) return lab;
  const [out, inp] = route.shape as [number, number];
  const slot = out * inp;
  const offset = route.expert === undefined ? 0 : route.expert * slot;
  const result = new Float32Array(slot);
  // lab [in, out] -> published [out, in]
  transposeInto(lab.subarray(offset, offset + slot), inp, out, result, 0);
  return result;
}

/**
 * Each lab parameter's published names in the family `family` (several for stacked experts), so that
 * settings written against Hugging Face names (optimizer.freeze, optimizer.groups) reach the lab's tensors.
 */
export function publishedNames(c: ModelConfig, family: HfFamily): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of tensorRoutes(c, family)) out.set(r.lab, [...(out.get(r.lab) ?? []), r.hf]);
  return out;
}
