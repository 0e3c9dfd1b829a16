/**
 * Loading a checkpoint with every check before any large allocation, in this order: manifest.json; the
 * required files present with the sizes the manifest records (a truncated file fails here); config.json
 * against the schema; tokenizer.json loadable and within vocab_size; the safetensors headers valid and
 * their tensors matching config.json; every file's sha256 (streamed); and only then the tensor data.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ModelConfig } from '../config';
import { SafetensorsError, openSafetensors, toFloat32, type SafetensorsFile } from '../safetensors/index';
import { loadTokenizerFile, type Tokenizer } from '../tokenizer/index';
import { CheckpointError } from './errors';
import {
  MODEL_FILE,
  OPTIMIZER_FILE,
  CONFIG_FILE,
  TOKENIZER_FILE,
  MANIFEST_FILE,
  hashFile,
  type Manifest,
} from './manifest';
import { HfCheckpointError, isHfCheckpoint, loadHfCheckpoint } from '../hf/hf-checkpoint';
import { publishedManifest, readConfig, readManifest } from './read-manifest';
import { checkOptimizerState, checkParameters, expectedParameters } from './tensors';

export interface LoadCheckpointOptions {
  /** Check every file's sha256 against the manifest (default true; streamed, ~0.1 s per 50 MB here). */
  verifyHashes?: boolean;
  /** Also read optimizer.safetensors when the checkpoint has one (default false: only the trainer needs it). */
  optimizer?: boolean;
}

export interface LoadedCheckpoint {
  dir: string;
  manifest: Manifest;
  config: ModelConfig;
  tokenizer: Tokenizer;
  /** Parameter name -> float32 values (converted from F16/BF16 when stored so). */
  parameters: Map<string, Float32Array>;
  optimizer: { state: Map<string, Float32Array>; metadata: Record<string, string> } | null;
}

/** Required files of a checkpoint of this kind. */
export function requiredFiles(kind: Manifest['kind']): string[] {
  return kind === 'training'
    ? [CONFIG_FILE, TOKENIZER_FILE, MODEL_FILE, OPTIMIZER_FILE]
    : [CONFIG_FILE, TOKENIZER_FILE, MODEL_FILE];
}

/** Each file of the manifest exists with its recorded size; required files are listed. */
export function checkFilesPresent(dir: string, manifest: Manifest): void {
  for (const name of requiredFiles(manifest.kind)) {
    if (!manifest.files[name])
      throw new CheckpointError(
        'BAD_MANIFEST',
        `${join(dir, 'manifest.json')}: does not list ${name}, which a ${manifest.kind} checkpoint needs`,
        join(dir, 'manifest.json'),
      );
  }
  for (const [name, entry] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) {
      const what = name === TOKENIZER_FILE ? ' (a checkpoint needs its tokenizer)' : '';
      throw new CheckpointError('MISSING_FILE', `${path}: missing${what}`, path);
    }
    const size = statSync(path).size;
    if (size !== entry.bytes) {
      throw new CheckpointError(
        'HASH_MISMATCH',
        `${path}: ${size} bytes but the manifest records ${entry.bytes}: ${size < entry.bytes ? 'truncated' : 'changed'} since it was saved`,
        path,
      );
    }
  }
}

/** Every file's sha256 against the manifest (streamed). */
export function checkHashes(dir: string, manifest: Manifest): void {
  for (const [name, entry] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    const actual = hashFile(path);
    if (actual.sha256 !== entry.sha256)
      throw new CheckpointError(
        'HASH_MISMATCH',
        `${path}: sha256 ${actual.sha256} differs from the manifest's ${entry.sha256}: the file changed or is corrupt`,
        path,
      );
  }
}

export function openTensorFile(path: string): SafetensorsFile {
  try {
    return openSafetensors(path);
  } catch (error) {
    if (error instanceof SafetensorsError) throw new CheckpointError('BAD_SAFETENSORS', error.message, path);
    throw error;
  }
}

export function loadCheckpointTokenizer(dir: string, config: ModelConfig): Tokenizer {
  const path = join(dir, TOKENIZER_FILE);
  let tokenizer: Tokenizer;
  try {
    tokenizer = loadTokenizerFile(path);
  } catch (error) {
    throw new CheckpointError('BAD_TOKENIZER', (error as Error).message, path);
  }
  if (tokenizer.vocabSize > config.vocab_size) {
    throw new CheckpointError(
      'BAD_TOKENIZER',
      `${path}: the tokenizer has ${tokenizer.vocabSize} tokens but config.json vocab_size is ${config.vocab_size}: ids above it would have no embedding row`,
      path,
    );
  }
  return tokenizer;
}

export function loadCheckpoint(dir: string, options: LoadCheckpointOptions = {}): LoadedCheckpoint {
  const root = resolve(dir);
  // A published Hugging Face folder (no manifest): training starts from it as from one of ours.
  if (!existsSync(join(root, MANIFEST_FILE)) && isHfCheckpoint(root)) return loadPublished(root);
  const manifest = readManifest(root);
  checkFilesPresent(root, manifest);
  const config = readConfig(root);
  const tokenizer = loadCheckpointTokenizer(root, config);
  const modelPath = join(root, MODEL_FILE);
  const model = openTensorFile(modelPath);
  let optimizerFile: SafetensorsFile | null = null;
  try {
    checkParameters(config, model.tensors, modelPath);
    if (options.optimizer && manifest.kind === 'training') {
      const optimizerPath = join(root, OPTIMIZER_FILE);
      optimizerFile = openTensorFile(optimizerPath);
      checkOptimizerState(config, optimizerFile.tensors, optimizerPath);
    }
    if (options.verifyHashes ?? true) checkHashes(root, manifest);
    const parameters = new Map<string, Float32Array>();
    for (const name of expectedParameters(config).keys()) {
      const tensor = model.read(name); // the engine's parameter order
      parameters.set(name, toFloat32(tensor.dtype, tensor.data));
    }
    let optimizer: LoadedCheckpoint['optimizer'] = null;
    if (optimizerFile) {
      const state = new Map<string, Float32Array>();
      for (const t of optimizerFile.tensors) state.set(t.name, optimizerFile.read(t.name).data as Float32Array);
      optimizer = { state, metadata: optimizerFile.metadata };
    }
    return { dir: root, manifest, config, tokenizer, parameters, optimizer };
  } finally {
    model.close();
    optimizerFile?.close();
  }
}

/** A published folder as a loaded checkpoint: its weights in the lab's layout and the manifest made from its headers. */
function loadPublished(root: string): LoadedCheckpoint {
  const manifest = publishedManifest(root);
  let c: ReturnType<typeof loadHfCheckpoint>;
  try {
    c = loadHfCheckpoint(root);
  } catch (error) {
    if (error instanceof HfCheckpointError) throw new CheckpointError('BAD_CONFIG', error.message, error.file);
    throw error;
  }
  if (!c.tokenizer)
    throw new CheckpointError(
      'MISSING_FILE',
      `${join(root, TOKENIZER_FILE)}: missing (a checkpoint needs its tokenizer)`,
      join(root, TOKENIZER_FILE),
    );
  return { dir: root, manifest, config: c.config, tokenizer: c.tokenizer, parameters: c.weights, optimizer: null };
}
