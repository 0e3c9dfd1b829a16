/**
 * Optimizer patterns over published names: a model imported from a Hugging Face folder answers to its
 * published tensor names as well as the lab's, and a pattern that names only some of the tensors the lab
 * holds in one (a layer's experts) is refused instead of freezing all of them or none.
 */
import { describe, expect, it } from 'vitest';
import { paramName, parameterSpecs } from '../../../native/model/config';
import { parseHfConfig } from '../../../native/model/hf/hf-config';
import { publishedNames } from '../../../native/model/hf/hf-names';
import { ParamGroupError, resolveParamGroups } from '../../../electron/rl/param-groups';

const raw = {
  architectures: ['Qwen3MoeForCausalLM'],
  model_type: 'qwen3_moe',
  vocab_size: 300,
  hidden_size: 32,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  head_dim: 16,
  max_position_embeddings: 64,
  rms_norm_eps: 1e-6,
  rope_theta: 10000,
  hidden_act: 'silu',
  tie_word_embeddings: false,
  num_experts: 4,
  num_experts_per_tok: 2,
  moe_intermediate_size: 16,
  intermediate_size: 64,
  norm_topk_prob: true,
  decoder_sparse_step: 1,
  mlp_only_layers: [],
};

describe('optimizer patterns over published names', () => {
  const { config, family } = parseHfConfig(raw, 'config.json');
  const names = parameterSpecs(config).map((p) => p.name);
  const aliases = publishedNames(config, family);

  it('freezes the lab tensors that hold the named published tensors', () => {
    const { settings, unmatched } = resolveParamGroups(names, {
      weightDecay: 0.1,
      freeze: [
        'model.embed_tokens.weight',
        'model.layers.1.self_attn.**',
        'model.layers.*.mlp.experts.*.down_proj.weight',
      ],
      aliases,
    });
    const frozen = names.filter((n) => settings.get(n)!.frozen).sort();
    expect(frozen).toEqual(
      [
        paramName.embed,
        paramName.wDown(0),
        paramName.wDown(1),
        paramName.kNorm(1),
        paramName.qNorm(1),
        paramName.wk(1),
        paramName.wo(1),
        paramName.wq(1),
        paramName.wv(1),
      ].sort(),
    );
    expect(unmatched).toEqual([]);
  });

  it('groups apply by published name too (lr scale of the routers)', () => {
    const { settings } = resolveParamGroups(names, {
      weightDecay: 0.1,
      groups: [{ pattern: 'model.layers.*.mlp.gate.weight', lrScale: 0.5 }],
      aliases,
    });
    expect(settings.get(paramName.router(0))!.lrScale).toBe(0.5);
    expect(settings.get(paramName.wGate(0))!.lrScale).toBe(1);
  });

  it('refuses a pattern naming only some experts of a layer, naming the pattern and both tensors', () => {
    expect(() =>
      resolveParamGroups(names, { weightDecay: 0.1, freeze: ['model.layers.0.mlp.experts.1.**'], aliases }),
    ).toThrow(ParamGroupError);
    expect(() =>
      resolveParamGroups(names, { weightDecay: 0.1, freeze: ['model.layers.0.mlp.experts.1.**'], aliases }),
    ).toThrow(
      /'model\.layers\.0\.mlp\.experts\.1\.\*\*' matches model\.layers\.0\.mlp\.experts\.1\.gate_proj\.weight but not model\.layers\.0\.mlp\.experts\.0\.gate_proj\.weight, which the lab holds in the same tensor layers\.0\.moe\.w_gate/,
    );
  });

  it('without aliases, published names match nothing (reported as unmatched)', () => {
    const { settings, unmatched } = resolveParamGroups(names, {
      weightDecay: 0.1,
      freeze: ['model.embed_tokens.weight'],
    });
    expect(settings.get(paramName.embed)!.frozen).toBe(false);
    expect(unmatched).toEqual(['model.embed_tokens.weight']);
  });
});
