/**
 * Opening a checkpoint folder for the policy: ours (config.json with model_type t1-moe, model.safetensors,
 * tokenizer.json) or an external ONNX LLM export (model.onnx in the common layout, its config.json and
 * tokenizer.json). Shapes are checked against config.json from the safetensors header, before any tensor
 * is read. The checkpoint format itself (manifest, hashes, writing) is native/model/checkpoint's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODEL_TYPE, parameterSpecs, parseModelConfig, type ModelConfig } from './config';
import type { ExternalConfig } from './policy-model';
import { openSafetensors, readSafetensors, toFloat32 } from './safetensors';
import { loadTokenizerFile, type Tokenizer } from './tokenizer';

export const CONFIG_JSON = 'config.json';
export const WEIGHTS_FILE = 'model.safetensors';
export const TOKENIZER_JSON = 'tokenizer.json';
export const EXTERNAL_MODEL_FILES = ['model.onnx', 'onnx/model.onnx'];

export class PolicyCheckpointError extends Error {
  override readonly name = 'PolicyCheckpointError';
}

export type OpenedCheckpoint =
  | { kind: 't1-moe'; dir: string; config: ModelConfig; weights: Map<string, Float32Array>; tokenizer: Tokenizer | null }
  | { kind: 'external-onnx'; dir: string; modelPath: string; model: Uint8Array; hfConfig: ExternalConfig; tokenizer: Tokenizer | null };

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PolicyCheckpointError(`${path}: ${(error as Error).message}`);
  }
}

/** The model config of a t1-moe checkpoint, or null when the folder holds something else. */
export function readT1Config(dir: string): ModelConfig | null {
  const path = join(dir, CONFIG_JSON);
  if (!existsSync(path)) return null;
  const raw = readJson(path) as { model_type?: unknown };
  if (raw?.model_type !== MODEL_TYPE) return null;
  try {
    return parseModelConfig(raw, path);
  } catch (error) {
    throw new PolicyCheckpointError((error as Error).message);
  }
}

/** Check model.safetensors against the config (names, shapes, float dtypes) from its header alone. */
export function checkWeightsHeader(dir: string, config: ModelConfig): void {
  const path = join(dir, WEIGHTS_FILE);
  if (!existsSync(path)) throw new PolicyCheckpointError(`${path} is missing`);
  const file = openSafetensors(path);
  try {
    const infos = new Map(file.tensors.map((t) => [t.name, t]));
    for (const p of parameterSpecs(config)) {
      const t = infos.get(p.name);
      if (!t) throw new PolicyCheckpointError(`${path}: tensor '${p.name}' is missing (config.json expects [${p.shape.join(',')}])`);
      if (t.shape.join(',') !== p.shape.join(',')) throw new PolicyCheckpointError(`${path}: tensor '${p.name}' is [${t.shape.join(',')}], config.json expects [${p.shape.join(',')}]`);
      if (!['F32', 'F16', 'BF16', 'F64'].includes(t.dtype)) throw new PolicyCheckpointError(`${path}: tensor '${p.name}' has dtype ${t.dtype}; a float type is expected`);
    }
  } finally {
    file.close();
  }
}

function readTokenizer(dir: string, required: boolean): Tokenizer | null {
  const path = join(dir, TOKENIZER_JSON);
  if (!existsSync(path)) {
    if (required) throw new PolicyCheckpointError(`${path} is missing: a checkpoint needs its tokenizer`);
    return null;
  }
  return loadTokenizerFile(path);
}

export function openCheckpoint(dir: string, options: { requireTokenizer?: boolean } = {}): OpenedCheckpoint {
  if (!existsSync(dir)) throw new PolicyCheckpointError(`${dir}: no such checkpoint folder`);
  const config = readT1Config(dir);
  if (config) {
    checkWeightsHeader(dir, config);
    const { tensors } = readSafetensors(join(dir, WEIGHTS_FILE));
    const weights = new Map<string, Float32Array>();
    for (const p of parameterSpecs(config)) {
      const t = tensors.get(p.name)!;
      weights.set(p.name, toFloat32(t.dtype, t.data));
    }
    const tokenizer = readTokenizer(dir, options.requireTokenizer ?? true);
    if (tokenizer && tokenizer.vocabSize > config.vocab_size) {
      throw new PolicyCheckpointError(`${join(dir, TOKENIZER_JSON)}: ${tokenizer.vocabSize} tokens, more than config.json's vocab_size ${config.vocab_size}`);
    }
    return { kind: 't1-moe', dir, config, weights, tokenizer };
  }
  const modelPath = EXTERNAL_MODEL_FILES.map((f) => join(dir, f)).find((p) => existsSync(p));
  if (!modelPath) throw new PolicyCheckpointError(`${dir}: neither a t1-moe config.json nor a model.onnx`);
  const hfConfig = existsSync(join(dir, CONFIG_JSON)) ? (readJson(join(dir, CONFIG_JSON)) as ExternalConfig) : {};
  return { kind: 'external-onnx', dir, modelPath, model: readFileSync(modelPath), hfConfig, tokenizer: readTokenizer(dir, options.requireTokenizer ?? true) };
}
