/**
 * Published Hugging Face folders: what each family's config.json becomes in the lab's architecture, the
 * layout conversion (values land where the published names say), and bad input failing with the file and
 * the tensor or key named.
 */
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paramName } from '../../../native/model/config';
import { listCheckpoints } from '../../../native/model/checkpoint';
import { loadHfCheckpoint } from '../../../native/model/hf/hf-checkpoint';
import { parseHfConfig } from '../../../native/model/hf/hf-config';
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import { ropeFrequencies } from '../../../native/model/rope';
import { writeHfTestCheckpoint, writeWeights } from '../../helpers/hf-checkpoint';

const root = mkdtempSync(join(tmpdir(), 't1-hf-unit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `ck${n++}`);

describe('config.json of the published families', () => {
  it('maps each computation-changing key onto the lab architecture', () => {
    const cases = [
      ['qwen3_moe', { qk_norm: 'head', norm_topk_prob: true, num_experts: 4 }],
      ['qwen2_moe', { attention_qkv_bias: true, shared_expert_intermediate_size: 48, norm_topk_prob: false }],
      ['olmoe', { qk_norm: 'projection', norm_topk_prob: false, moe_intermediate_size: 32 }],
      ['mixtral', { norm_topk_prob: true, num_experts: 4 }],
      ['qwen3', { qk_norm: 'head', num_experts: 0, intermediate_size: 96, head_dim: 24 }],
      ['qwen2', { attention_qkv_bias: true, num_experts: 0, tie_word_embeddings: true }],
      ['llama', { num_experts: 0, intermediate_size: 96 }],
    ] as const;
    for (const [family, expected] of cases) {
      const { config } = writeHfTestCheckpoint(fresh(), family);
      expect(parseHfConfig(config).config, family).toMatchObject(expected);
    }
  });

  it('decoder_sparse_step and mlp_only_layers make dense layers; the routes then read mlp.*_proj', () => {
    const dir = fresh();
    const { config } = writeHfTestCheckpoint(dir, 'qwen3_moe', { config: { mlp_only_layers: [1] } });
    expect(parseHfConfig(config).config.mlp_only_layers).toEqual([1]);
    expect(parseHfConfig({ ...config, mlp_only_layers: [], decoder_sparse_step: 2 }).config.mlp_only_layers).toEqual([
      0,
    ]);
  });

  it('refuses an unknown architecture, an unknown key and unsupported values by name', () => {
    const { config } = writeHfTestCheckpoint(fresh(), 'llama');
    expect(() => parseHfConfig({ ...config, architectures: ['GPTNeoXForCausalLM'] }, 'x/config.json')).toThrow(
      /x\/config\.json: "architectures": \["GPTNeoXForCausalLM"\] is not supported/,
    );
    expect(() => parseHfConfig({ ...config, attn_logit_softcapping: 50 })).toThrow(
      /key "attn_logit_softcapping".*not understood/,
    );
    expect(() => parseHfConfig({ ...config, hidden_act: 'gelu' })).toThrow(/"hidden_act": "gelu" is not supported/);
    expect(() => parseHfConfig({ ...config, rope_scaling: { rope_type: 'dynamic', factor: 2 } })).toThrow(
      /rope_scaling.rope_type": "dynamic"/,
    );
    expect(() => parseHfConfig({ ...config, mlp_bias: true })).toThrow(/"mlp_bias"/);
  });

  it('rope_scaling: linear divides every frequency; llama3 keeps the high ones and divides the low ones; yarn scales cos/sin', () => {
    const base = ropeFrequencies(64, 500000).inv;
    const linear = ropeFrequencies(64, 500000, { rope_type: 'linear', factor: 4 }).inv;
    expect(linear[5]).toBeCloseTo(base[5]! / 4, 12);
    const l3 = ropeFrequencies(64, 500000, {
      rope_type: 'llama3',
      factor: 8,
      low_freq_factor: 1,
      high_freq_factor: 4,
      original_max_position_embeddings: 8192,
    }).inv;
    expect(l3[0]).toBe(base[0]);
    expect(l3[31]).toBeCloseTo(base[31]! / 8, 15);
    const yarn = ropeFrequencies(64, 1e6, { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 32768 });
    expect(yarn.attentionFactor).toBeCloseTo(0.1 * Math.log(4) + 1, 12);
  });
});

describe('loading a published folder', () => {
  it('places each published tensor in the lab layout (transposed, experts stacked)', () => {
    const dir = fresh();
    const written = writeHfTestCheckpoint(dir, 'mixtral', { shards: 3 });
    const c = loadHfCheckpoint(dir);
    const w1 = written.tensors.get('model.layers.1.block_sparse_moe.experts.2.w1.weight')!; // [I, H], gate
    const gate = c.weights.get(paramName.wGate(1))!; // [E, H, I]
    const H = 64;
    const I = 32;
    expect(gate[2 * H * I + 5 * I + 7]).toBe(w1.data[7 * H + 5]);
    const w3 = written.tensors.get('model.layers.0.block_sparse_moe.experts.3.w3.weight')!;
    expect(c.weights.get(paramName.wUp(0))![3 * H * I + 1 * I + 2]).toBe(w3.data[2 * H + 1]);
    expect(c.weights.get(paramName.valueHead)!.every((x) => x === 0)).toBe(true);
  });

  it('BF16 and F16 shards read as float32; generation_config eos ids become stop ids', () => {
    for (const dtype of ['BF16', 'F16'] as const) {
      const dir = fresh();
      const written = writeHfTestCheckpoint(dir, 'qwen2_moe', { dtype, shards: 2 });
      const opened = openCheckpoint(dir);
      if (opened.kind !== 't1-moe') throw new Error('kind');
      expect(opened.hf?.dtype).toBe(dtype);
      const emb = written.tensors.get('model.embed_tokens.weight')!.data;
      expect(Math.abs(opened.weights.get(paramName.embed)![10]! - emb[10]!)).toBeLessThan(
        dtype === 'BF16' ? 1e-2 : 1e-3,
      );
      const eos = (JSON.parse(readFileSync(join(dir, 'generation_config.json'), 'utf8')) as { eos_token_id: number[] })
        .eos_token_id;
      for (const id of eos) expect(opened.tokenizer!.stopTokenIds).toContain(id);
    }
  });

  it('a missing shard names the shard and a tensor it holds', () => {
    const dir = fresh();
    writeHfTestCheckpoint(dir, 'qwen3_moe', { shards: 3 });
    unlinkSync(join(dir, 'model-00002-of-00003.safetensors'));
    expect(() => loadHfCheckpoint(dir)).toThrow(
      /shard model-00002-of-00003\.safetensors is missing \(it holds "model\.layers\.\d+\..+"/,
    );
  });

  it('a shape that disagrees with config.json names the file, the tensor and both shapes', () => {
    const dir = fresh();
    const w = writeHfTestCheckpoint(dir, 'qwen3', { shards: 1 });
    w.tensors.set('model.layers.0.self_attn.k_proj.weight', { shape: [40, 64], data: new Float32Array(40 * 64) });
    writeWeights(dir, w.tensors, 'F32', 1);
    expect(() => loadHfCheckpoint(dir)).toThrow(
      /model\.safetensors: tensor "model\.layers\.0\.self_attn\.k_proj\.weight" has shape \[40, 64\] but config\.json calls for \[48, 64\]/,
    );
  });

  it('an index naming a tensor that no shard holds is an error naming the tensor and file', () => {
    const dir = fresh();
    writeHfTestCheckpoint(dir, 'olmoe', { shards: 2 });
    const indexPath = join(dir, 'model.safetensors.index.json');
    const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { weight_map: Record<string, string> };
    index.weight_map['model.layers.0.mlp.experts.9.up_proj.weight'] = 'model-00001-of-00002.safetensors';
    writeFileSync(indexPath, JSON.stringify(index));
    expect(() => loadHfCheckpoint(dir)).toThrow(
      /weight_map names "model\.layers\.0\.mlp\.experts\.9\.up_proj\.weight" in model-00001-of-00002\.safetensors, which does not hold it/,
    );
  });

  it('a tensor config.json calls for that no file holds, and a dtype the engine cannot compute in, are named', () => {
    const dir = fresh();
    const w = writeHfTestCheckpoint(dir, 'llama', { shards: 1 });
    w.tensors.delete('model.layers.1.mlp.up_proj.weight');
    writeWeights(dir, w.tensors, 'F32', 1);
    expect(() => loadHfCheckpoint(dir)).toThrow(
      /tensor "model\.layers\.1\.mlp\.up_proj\.weight" \[96, 64\] is in no weight file/,
    );

    const dir2 = fresh();
    writeHfTestCheckpoint(dir2, 'llama', { shards: 1 });
    const bytes = readFileSync(join(dir2, 'model.safetensors'));
    const headerLength = Number(bytes.readBigUInt64LE(0));
    const header = bytes
      .subarray(8, 8 + headerLength)
      .toString('utf8')
      .replace('"F32"', '"I32"');
    writeFileSync(
      join(dir2, 'model.safetensors'),
      Buffer.concat([bytes.subarray(0, 8), Buffer.from(header), bytes.subarray(8 + headerLength)]),
    );
    expect(() => loadHfCheckpoint(dir2)).toThrow(
      /model\.safetensors: tensor ".+" is I32; the engine computes from F32, F16 or BF16 weights/,
    );
  });

  it('the Models page listing shows a published folder as hf, and an invalid one with its error', () => {
    const parent = fresh();
    writeHfTestCheckpoint(join(parent, 'good'), 'mixtral', { shards: 2 });
    writeHfTestCheckpoint(join(parent, 'bad'), 'qwen3_moe', { shards: 2 });
    unlinkSync(join(parent, 'bad', 'model-00001-of-00002.safetensors'));
    const listed = listCheckpoints(parent).checkpoints;
    expect(listed.find((c) => c.name === 'good')).toMatchObject({
      format: 'hf',
      status: 'ok',
      metadata: { architecture: 'MixtralForCausalLM' },
    });
    expect(listed.find((c) => c.name === 'bad')).toMatchObject({
      format: 'hf',
      status: 'invalid',
      error: { message: expect.stringMatching(/shard model-00001-of-00002\.safetensors is missing/) },
    });
  });

  it('refuses to load weights that need more memory than allowed, before reading them', () => {
    const dir = fresh();
    writeHfTestCheckpoint(dir, 'qwen3_moe');
    expect(() => loadHfCheckpoint(dir, { memoryLimitBytes: 1000 })).toThrow(
      /config\.json: the weights need .* GiB as float32 and .* GiB are available; not loading/,
    );
  });
});
