import { describe, expect, it } from 'vitest';
import {
  configFromPreset,
  countActiveParameters,
  countParameters,
  parameterSpecs,
  parseModelConfig,
  PRESETS,
} from '../../../native/model/config';

describe('model config', () => {
  it('presets are valid and sized as the issue asks', () => {
    const nano = countParameters(PRESETS.nano);
    const micro = countParameters(PRESETS.micro);
    expect(nano).toBeGreaterThan(2e6);
    expect(nano).toBeLessThan(4e6);
    expect(micro).toBeGreaterThan(10e6);
    expect(micro).toBeLessThan(20e6);
    expect(countActiveParameters(PRESETS.nano)).toBeLessThan(nano);
    for (const c of Object.values(PRESETS)) expect(parseModelConfig(c)).toEqual(c);
  });

  it('applies overrides and recomputes head_dim', () => {
    const c = configFromPreset('nano', { hidden_size: 192, num_attention_heads: 6, num_key_value_heads: 3 });
    expect(c.head_dim).toBe(32);
    expect(c.hidden_size).toBe(192);
  });

  it('names the field and value of a bad config', () => {
    expect(() => parseModelConfig({ ...PRESETS.nano, num_key_value_heads: 3 }, '/x/config.json')).toThrow(
      /\/x\/config.json: num_key_value_heads: num_key_value_heads \(3\) must divide num_attention_heads \(4\)/,
    );
    expect(() => parseModelConfig({ ...PRESETS.nano, num_experts_per_tok: 9 })).toThrow(
      /num_experts_per_tok \(9\) exceeds num_experts \(8\)/,
    );
    expect(() => configFromPreset('nano', { bogus: 1 } as never)).toThrow();
  });

  it('lists an lm_head only when untied', () => {
    expect(parameterSpecs(PRESETS.nano).some((p) => p.name === 'lm_head.weight')).toBe(false);
    expect(
      parameterSpecs({ ...PRESETS.nano, tie_word_embeddings: false }).find((p) => p.name === 'lm_head.weight')?.shape,
    ).toEqual([128, 4096]);
  });
});
