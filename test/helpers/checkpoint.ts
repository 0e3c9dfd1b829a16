/** Small real checkpoints for tests: a tiny MoE config, seeded weights, a trained byte-level tokenizer. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentId, hashFile, type Manifest } from '../../native/model/checkpoint/index';
import { configFromPreset, type ModelConfig } from '../../native/model/config';
import { initParameters } from '../../native/model/init';
import { trainBpe } from '../../native/model/tokenizer/index';
import { terminalCorpus } from './corpus';

export const TEST_LAB_VERSION = '0.0.0-test';

let cachedTokenizer: { json: string; config: Record<string, unknown> } | null = null;

/** A 512-token byte-level BPE trained on synthetic transcripts (trained once per process). */
export function testTokenizer(): { json: string; config: Record<string, unknown> } {
  cachedTokenizer ??= trainBpe({ corpus: terminalCorpus(60_000, 2), vocabSize: 512 });
  return cachedTokenizer;
}

/** A MoE config small enough to save and load in milliseconds; `overrides` may grow it. */
export function tinyConfig(overrides: Parameters<typeof configFromPreset>[1] = {}): ModelConfig {
  return configFromPreset('nano', {
    vocab_size: 512,
    hidden_size: 32,
    num_hidden_layers: 2,
    num_attention_heads: 2,
    num_key_value_heads: 1,
    num_experts: 4,
    moe_intermediate_size: 16,
    ...overrides,
  });
}

export function tinyWeights(config: ModelConfig, seed = 1): Map<string, Float32Array> {
  return initParameters(config, seed);
}

/** Recompute manifest.json's hashes, sizes and id after a test edited files on purpose (a consistent but wrong checkpoint). */
export function rehash(dir: string): void {
  const path = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  for (const name of Object.keys(manifest.files)) manifest.files[name] = hashFile(join(dir, name));
  manifest.id = contentId(manifest.files);
  writeFileSync(path, JSON.stringify(manifest, null, 2));
}
