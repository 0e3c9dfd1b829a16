/**
 * Opening a checkpoint folder for the policy: ours (config.json with model_type t1-moe, model.safetensors,
 * tokenizer.json, manifest.json: loaded and validated by native/model/checkpoint) or an external ONNX LLM
 * export (model.onnx in the common layout, its config.json and tokenizer.json).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, loadCheckpoint } from './checkpoint';
import { MODEL_TYPE, countParameters, parseModelConfig, type ModelConfig } from './config';
import { MemoryFitError, checkMemoryFit, type MemoryUse } from './memory-fit';
import type { ExternalConfig } from './policy-model';
import { loadTokenizerFile, type Tokenizer } from './tokenizer';
import { HfCheckpointError, isHfCheckpoint, loadHfCheckpoint, readHfModel } from './hf/hf-checkpoint';
import type { HfArchitecture, HfFamily } from './hf/hf-config';

/** Where an imported checkpoint came from (a published Hugging Face folder). */
export interface HfOrigin {
  family: HfFamily;
  architecture: HfArchitecture;
  dtype: string;
  eosTokenIds: number[];
}

export const CONFIG_JSON = 'config.json';
export const TOKENIZER_JSON = 'tokenizer.json';
export const EXTERNAL_MODEL_FILES = ['model.onnx', 'onnx/model.onnx'];

export class PolicyCheckpointError extends Error {
  override readonly name = 'PolicyCheckpointError';
}

export type OpenedCheckpoint =
  | {
      kind: 't1-moe';
      dir: string;
      config: ModelConfig;
      weights: Map<string, Float32Array>;
      tokenizer: Tokenizer | null;
      hf?: HfOrigin;
    }
  /** An external export is opened from its path (onnxruntime finds external data beside model.onnx). */
  | { kind: 'external-onnx'; dir: string; modelPath: string; hfConfig: ExternalConfig; tokenizer: Tokenizer | null };

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

/**
 * The model config of a folder the lab computes itself: a t1-moe checkpoint, or a published Hugging Face
 * folder read into the lab's architecture (config.json only, no weights); null for anything else.
 */
export function readModelConfig(dir: string): ModelConfig | null {
  const own = readT1Config(dir);
  if (own) return own;
  if (!isHfCheckpoint(dir)) return null;
  try {
    return readHfModel(dir).config;
  } catch (error) {
    throw new PolicyCheckpointError((error as Error).message);
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

export interface OpenCheckpointOptions {
  requireTokenizer?: boolean;
  verifyHashes?: boolean;
  /** What the weights are loaded for (default sampling): a model that cannot fit is refused before any is read. */
  memory?: readonly MemoryUse[];
}

export function openCheckpoint(dir: string, options: OpenCheckpointOptions = {}): OpenedCheckpoint {
  if (!existsSync(dir)) throw new PolicyCheckpointError(`${dir}: no such checkpoint folder`);
  const config = readModelConfig(dir);
  if (config) {
    try {
      checkMemoryFit(dir, countParameters(config), options.memory ?? ['sampling']);
    } catch (error) {
      if (error instanceof MemoryFitError) throw new PolicyCheckpointError(error.message);
      throw error;
    }
  }
  if (readT1Config(dir)) {
    // The checkpoint module validates everything (manifest, sizes, shapes against config.json, tokenizer,
    // hashes) before reading the weights.
    try {
      const loaded = loadCheckpoint(dir, { verifyHashes: options.verifyHashes ?? true });
      return {
        kind: 't1-moe',
        dir: loaded.dir,
        config: loaded.config,
        weights: loaded.parameters,
        tokenizer: loaded.tokenizer,
      };
    } catch (error) {
      if (error instanceof CheckpointError) throw new PolicyCheckpointError(error.message);
      throw error;
    }
  }
  if (isHfCheckpoint(dir)) {
    // A published folder: read into the lab's own architecture (config.ts options), so it samples,
    // replays routing and trains on the same paths as the lab's checkpoints.
    try {
      const c = loadHfCheckpoint(dir, { requireTokenizer: options.requireTokenizer ?? true });
      return {
        kind: 't1-moe',
        dir: c.dir,
        config: c.config,
        weights: c.weights,
        tokenizer: c.tokenizer,
        hf: { family: c.family, architecture: c.architecture, dtype: c.dtype, eosTokenIds: c.eosTokenIds },
      };
    } catch (error) {
      if (error instanceof HfCheckpointError) throw new PolicyCheckpointError(error.message);
      throw error;
    }
  }
  const modelPath = EXTERNAL_MODEL_FILES.map((f) => join(dir, f)).find((p) => existsSync(p));
  if (!modelPath) throw new PolicyCheckpointError(`${dir}: neither a t1-moe config.json nor a model.onnx`);
  const hfConfig = existsSync(join(dir, CONFIG_JSON)) ? (readJson(join(dir, CONFIG_JSON)) as ExternalConfig) : {};
  return {
    kind: 'external-onnx',
    dir,
    modelPath,
    hfConfig,
    tokenizer: readTokenizer(dir, options.requireTokenizer ?? true),
  };
}
