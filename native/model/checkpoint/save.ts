/**
 * Saving a checkpoint atomically: everything is checked first (config, tokenizer, every tensor against
 * config.json), then written into a hidden sibling folder `.NAME.partial-PID-RANDOM` (same filesystem),
 * each file fsync'd, manifest.json last, the folder fsync'd, and only then renamed to NAME. A process killed
 * at any moment leaves either no NAME or a complete one (plus, at worst, a hidden partial folder that the
 * registry reports and `recoverPartialSaves` cleans up). Replacing an existing checkpoint (`overwrite`)
 * moves the old one aside to `.NAME.replaced-PID-RANDOM` first, so NAME is briefly absent but never
 * half-written; if the process dies in that moment, `recoverPartialSaves` puts the old one back.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseModelConfig, type ModelConfig } from '../config';
import { fromFloat32, writeSafetensors, type Tensor } from '../safetensors/index';
import { loadTokenizer, type Tokenizer } from '../tokenizer/index';
import { CheckpointError } from './errors';
import {
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_VERSION,
  CONFIG_FILE,
  MANIFEST_FILE,
  MODEL_FILE,
  OPTIMIZER_FILE,
  TOKENIZER_CONFIG_FILE,
  TOKENIZER_FILE,
  contentId,
  hashBytes,
  type Manifest,
  type ManifestFile,
  type WeightsDtype,
} from './manifest';
import { checkOptimizerState, checkParameters, expectedParameters } from './tensors';
import { readManifest } from './read-manifest';

export interface OptimizerState {
  /** `<parameter>.<slot>` -> F32 values with the parameter's shape (e.g. AdamW's exp_avg, exp_avg_sq). */
  state: ReadonlyMap<string, Float32Array>;
  /** Scalars (step count, betas ...) as strings, stored in the file's __metadata__. */
  metadata?: Record<string, string>;
}

export interface SaveCheckpointOptions {
  config: ModelConfig;
  /** The tokenizer.json text, or a loaded Tokenizer (its text is copied unchanged). */
  tokenizer: string | Tokenizer;
  /** Written as tokenizer_config.json when given (chat template, eos/pad names for other tools). */
  tokenizerConfig?: Record<string, unknown>;
  /** Parameter name -> float32 values, as the engine names them (`parameterSpecs`). */
  parameters: ReadonlyMap<string, Float32Array>;
  /** Stored dtype of the weights (default F32; F16/BF16 halve the file, loading converts back to float32). */
  weightsDtype?: WeightsDtype;
  /** Makes a training checkpoint (optimizer.safetensors). */
  optimizer?: OptimizerState;
  /** The checkpoint this one comes from: its folder, or its id (and path) when already known. */
  parent?: string | { id: string; path: string | null } | null;
  /** The lab's version (package.json), recorded in the manifest. */
  labVersion: string;
  metadata?: Manifest['metadata'];
  /** Replace an existing checkpoint at the destination (default: refuse). */
  overwrite?: boolean;
}

export interface SavedCheckpoint {
  dir: string;
  manifest: Manifest;
}

export function saveCheckpoint(dir: string, options: SaveCheckpointOptions): SavedCheckpoint {
  const target = resolve(dir);
  // 1. Check everything before writing anything.
  const config = checkedConfig(options.config);
  const tokenizerJson = checkedTokenizer(options.tokenizer, config);
  const weightsDtype = options.weightsDtype ?? 'F32';
  const expected = expectedParameters(config);
  const modelTensors = checkedModelTensors(options.parameters, config, expected, weightsDtype);
  const optimizerTensors = options.optimizer ? checkedOptimizerTensors(options.optimizer, config, expected) : null;
  const parent = resolveParent(options.parent, target);
  if (existsSync(target) && !options.overwrite) {
    throw new CheckpointError('EXISTS', `${target} already exists; pass overwrite to replace it`, target);
  }

  // 2. Write into a hidden sibling folder.
  const parentDir = dirname(target);
  mkdirSync(parentDir, { recursive: true });
  const partial = join(parentDir, `.${basename(target)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(partial);
  try {
    const files = writeCheckpointFiles(partial, {
      config,
      tokenizerJson,
      tokenizerConfig: options.tokenizerConfig,
      modelTensors,
      optimizerTensors,
      optimizerMetadata: options.optimizer?.metadata,
    });
    const manifest: Manifest = {
      format: CHECKPOINT_FORMAT,
      format_version: CHECKPOINT_FORMAT_VERSION,
      id: contentId(files),
      kind: optimizerTensors ? 'training' : 'model',
      created_at: new Date().toISOString(),
      lab_version: options.labVersion,
      parent,
      parameters: [...expected.values()].reduce((n, s) => n + s.reduce((a, b) => a * b, 1), 0),
      weights_dtype: weightsDtype,
      metadata: options.metadata ?? {},
      files,
    };
    writeFileSynced(join(partial, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    fsyncDir(partial);

    // 3. Publish: rename into place (moving an existing checkpoint aside first when replacing it).
    publish(partial, target);
    return { dir: target, manifest };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

function checkedConfig(raw: ModelConfig): ModelConfig {
  try {
    return parseModelConfig(raw, CONFIG_FILE);
  } catch (error) {
    throw new CheckpointError('BAD_CONFIG', (error as Error).message, CONFIG_FILE);
  }
}

/** The tokenizer.json text, once it loads and fits the config's vocabulary. */
function checkedTokenizer(given: SaveCheckpointOptions['tokenizer'], config: ModelConfig): string {
  const tokenizerJson = typeof given === 'string' ? given : given.json;
  let tokenizer: Tokenizer;
  try {
    tokenizer = typeof given === 'string' ? loadTokenizer(tokenizerJson, { source: TOKENIZER_FILE }) : given;
  } catch (error) {
    throw new CheckpointError('BAD_TOKENIZER', `${TOKENIZER_FILE}: ${(error as Error).message}`, TOKENIZER_FILE);
  }
  if (tokenizer.vocabSize > config.vocab_size) {
    throw new CheckpointError(
      'BAD_TOKENIZER',
      `${TOKENIZER_FILE}: the tokenizer has ${tokenizer.vocabSize} tokens but config.json vocab_size is ${config.vocab_size}: ids above it would have no embedding row`,
      TOKENIZER_FILE,
    );
  }
  return tokenizerJson;
}

/** The weights as model.safetensors' tensors (in the stored dtype): every parameter of the config, each of its shape, no other. */
function checkedModelTensors(
  parameters: ReadonlyMap<string, Float32Array>,
  config: ModelConfig,
  expected: ReadonlyMap<string, number[]>,
  weightsDtype: WeightsDtype,
): [string, Tensor][] {
  const modelTensors: [string, Tensor][] = [];
  for (const [name, shape] of expected) {
    const data = parameters.get(name);
    if (!data)
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${MODEL_FILE}: parameter "${name}" is missing from the weights to save`,
        MODEL_FILE,
      );
    const elements = shape.reduce((a, b) => a * b, 1);
    if (data.length !== elements) {
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${MODEL_FILE}: parameter "${name}" has ${data.length} values but config.json calls for [${shape.join(', ')}] = ${elements}`,
        MODEL_FILE,
      );
    }
    modelTensors.push([
      name,
      weightsDtype === 'F32'
        ? { dtype: 'F32', shape, data }
        : { dtype: weightsDtype, shape, data: fromFloat32(weightsDtype, data) },
    ]);
  }
  checkParameters(
    config,
    modelTensors.map(([name, t]) => ({ name, dtype: t.dtype, shape: t.shape })),
    MODEL_FILE,
  );
  for (const name of parameters.keys()) {
    if (!expected.has(name))
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${MODEL_FILE}: parameter "${name}" is not part of the model config.json describes`,
        MODEL_FILE,
      );
  }
  return modelTensors;
}

/** The optimizer state as optimizer.safetensors' tensors: a slot takes its parameter's shape when its size fits. */
function checkedOptimizerTensors(
  optimizer: OptimizerState,
  config: ModelConfig,
  expected: ReadonlyMap<string, number[]>,
): [string, Tensor][] {
  const optimizerTensors = [...optimizer.state].map(([name, data]): [string, Tensor] => {
    const param = expected.get(name.slice(0, Math.max(0, name.lastIndexOf('.'))));
    const shape = param && param.reduce((a, b) => a * b, 1) === data.length ? param : [data.length];
    return [name, { dtype: 'F32', shape, data }];
  });
  checkOptimizerState(
    config,
    optimizerTensors.map(([name, t]) => ({ name, dtype: t.dtype, shape: t.shape })),
    OPTIMIZER_FILE,
  );
  return optimizerTensors;
}

/** Every file but the manifest, each fsync'd, into the partial folder: what the manifest lists. */
function writeCheckpointFiles(
  partial: string,
  c: {
    config: ModelConfig;
    tokenizerJson: string;
    tokenizerConfig: Record<string, unknown> | undefined;
    modelTensors: [string, Tensor][];
    optimizerTensors: [string, Tensor][] | null;
    optimizerMetadata: Record<string, string> | undefined;
  },
): Record<string, ManifestFile> {
  const files: Record<string, ManifestFile> = {};
  files[CONFIG_FILE] = writeFileSynced(join(partial, CONFIG_FILE), JSON.stringify(c.config, null, 2) + '\n');
  files[TOKENIZER_FILE] = writeFileSynced(join(partial, TOKENIZER_FILE), c.tokenizerJson);
  if (c.tokenizerConfig)
    files[TOKENIZER_CONFIG_FILE] = writeFileSynced(
      join(partial, TOKENIZER_CONFIG_FILE),
      JSON.stringify(c.tokenizerConfig, null, 2) + '\n',
    );
  // "format": "pt" is what Hugging Face loaders look for in safetensors metadata.
  files[MODEL_FILE] = writeSafetensors(join(partial, MODEL_FILE), c.modelTensors, {
    metadata: { format: 'pt', model_type: c.config.model_type },
  });
  if (c.optimizerTensors)
    files[OPTIMIZER_FILE] = writeSafetensors(join(partial, OPTIMIZER_FILE), c.optimizerTensors, {
      metadata: c.optimizerMetadata,
    });
  return files;
}

/** The finished partial folder renamed to the target; an existing checkpoint there is moved aside first, then removed. */
function publish(partial: string, target: string): void {
  const parentDir = dirname(target);
  let aside: string | null = null;
  if (existsSync(target)) {
    aside = join(parentDir, `.${basename(target)}.replaced-${process.pid}-${randomBytes(4).toString('hex')}`);
    renameSync(target, aside);
  }
  renameSync(partial, target);
  fsyncDir(parentDir);
  if (aside) rmSync(aside, { recursive: true, force: true });
}

function resolveParent(parent: SaveCheckpointOptions['parent'], target: string): Manifest['parent'] {
  if (parent === undefined || parent === null) return null;
  if (typeof parent !== 'string') return parent;
  const dir = resolve(parent);
  const manifest = readManifest(dir);
  return { id: manifest.id, path: relative(target, dir) || '.' };
}

function writeFileSynced(path: string, content: string | Uint8Array): ManifestFile {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  const fd = openSync(path, 'w');
  try {
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return hashBytes(bytes);
}

function fsyncDir(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
