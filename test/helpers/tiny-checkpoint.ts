/** A complete checkpoint folder small enough for training tests: a 300-token BPE and a two-layer MoE. */
import { saveCheckpoint } from '../../native/model/checkpoint';
import { parseModelConfig, PRESETS, type ModelConfig } from '../../native/model/config';
import { initParameters } from '../../native/model/init';
import { trainBpe } from '../../native/model/tokenizer';

export const TINY_TEXT = Array.from(
  { length: 60 },
  (_, i) => `$ ls -la /app\nfile_${i % 7}.txt data.csv README.md\n$ cat data.csv | wc -l\n${i * 3}\n`,
).join('');

export function tinyTrainConfig(overrides: Partial<ModelConfig> = {}): ModelConfig {
  return parseModelConfig({
    ...PRESETS.nano,
    vocab_size: 320,
    hidden_size: 16,
    num_hidden_layers: 2,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    head_dim: 8,
    num_experts: 4,
    num_experts_per_tok: 2,
    moe_intermediate_size: 16,
    max_position_embeddings: 256,
    initializer_range: 0.1,
    ...overrides,
  });
}

export function writeTinyCheckpoint(dir: string, seed = 1, overrides: Partial<ModelConfig> = {}): string {
  const config = tinyTrainConfig(overrides);
  const trained = trainBpe({
    corpus: [TINY_TEXT, '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n'],
    vocabSize: config.vocab_size,
  });
  saveCheckpoint(dir, {
    config,
    tokenizer: trained.json,
    tokenizerConfig: trained.config,
    parameters: initParameters(config, seed),
    labVersion: 'test',
  });
  return dir;
}
