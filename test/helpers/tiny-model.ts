/** A model small enough for float64 finite differences and quick CI runs. */
import { parameterSpecs, parseModelConfig, PRESETS, type ModelConfig } from '../../native/model/config';
import { initParameters } from '../../native/model/init';
import type { HostTensor } from '../../native/onnx/runtime';

export function tinyConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return parseModelConfig({
    ...PRESETS.nano,
    vocab_size: 13,
    hidden_size: 8,
    num_hidden_layers: 2,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    head_dim: 4,
    num_experts: 4,
    num_experts_per_tok: 2,
    moe_intermediate_size: 6,
    max_position_embeddings: 64,
    initializer_range: 0.5,
    ...overrides,
  });
}

/** Seeded weights with norm gains and value head perturbed too (so every gradient is non-trivial). */
export function tinyWeights(config: ModelConfig, seed = 1): Map<string, Float32Array> {
  const w = initParameters(config, seed);
  let s = seed;
  const jitter = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.4;
  for (const p of parameterSpecs(config))
    if (p.init === 'ones' || p.init === 'zeros')
      w.set(
        p.name,
        w.get(p.name)!.map((v) => v + jitter()),
      );
  return w;
}

export function weightFeeds(
  config: ModelConfig,
  weights: Map<string, Float32Array>,
  dtype: 'float32' | 'float64',
): Record<string, HostTensor> {
  const feeds: Record<string, HostTensor> = {};
  for (const p of parameterSpecs(config)) {
    const data = weights.get(p.name)!;
    feeds[p.name] = { dtype, dims: p.shape, data: dtype === 'float64' ? Float64Array.from(data) : data };
  }
  return feeds;
}
