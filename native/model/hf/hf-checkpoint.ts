/**
 * Loading a Hugging Face checkpoint folder as it is published: config.json, model.safetensors or shards
 * named by model.safetensors.index.json (F32, F16 or BF16), tokenizer.json (+ tokenizer_config.json or
 * chat_template.jinja) and generation_config.json. Every header is checked against config.json before a
 * byte of tensor data is read; then the shards are read one at a time, each tensor converted to float32
 * and placed in the lab's layout (hf-names.ts), so at most one published tensor is held beside the result.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { moeLayers, type ModelConfig } from '../config';
import { SafetensorsError, openSafetensors, toFloat32, type Dtype, type SafetensorsFile } from '../safetensors/index';
import { loadTokenizerFile, type Tokenizer } from '../tokenizer/index';
import { HfConfigError, parseHfConfig, type HfArchitecture, type HfFamily } from './hf-config';
import { isIgnorableTensor, tensorRoutes, transposeInto, type TensorRoute } from './hf-names';

export const HF_INDEX_FILE = 'model.safetensors.index.json';
export const HF_SINGLE_FILE = 'model.safetensors';
const COMPUTABLE: readonly Dtype[] = ['F32', 'F16', 'BF16'];

export class HfCheckpointError extends Error {
  override readonly name = 'HfCheckpointError';
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(message);
  }
}

export interface HfCheckpoint {
  dir: string;
  family: HfFamily;
  architecture: HfArchitecture;
  config: ModelConfig;
  raw: Record<string, unknown>;
  /** Lab parameters (config.ts names and layouts), float32; the critic's value head starts at zero. */
  weights: Map<string, Float32Array>;
  tokenizer: Tokenizer | null;
  /** generation_config.json's eos ids (a list or one), also added to the tokenizer's stop ids. */
  eosTokenIds: number[];
  /** The dtype the weights were published in (one per checkpoint here). */
  dtype: Dtype;
  /** The safetensors files read, in order. */
  files: string[];
}

/** A folder that holds a published checkpoint (config.json with `architectures`, safetensors weights). */
export function isHfCheckpoint(dir: string): boolean {
  const configPath = join(dir, 'config.json');
  if (!existsSync(configPath) || !(existsSync(join(dir, HF_INDEX_FILE)) || existsSync(join(dir, HF_SINGLE_FILE))))
    return false;
  try {
    const raw = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
    return Array.isArray(raw.architectures) && raw.model_type !== 't1-moe';
  } catch {
    return false;
  }
}

function readJson(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HfCheckpointError(
      `${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      path,
    );
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (error) {
    throw new HfCheckpointError(`${path}: not valid JSON (${(error as Error).message})`, path);
  }
}

/** The model config of a published folder, without reading weights (for `model info` and memory checks). */
export function readHfModel(dir: string): ReturnType<typeof parseHfConfig> {
  const path = join(resolve(dir), 'config.json');
  try {
    return parseHfConfig(readJson(path), path);
  } catch (error) {
    if (error instanceof HfConfigError) throw new HfCheckpointError(error.message, path);
    throw error;
  }
}

/** The weight files and, for each tensor, the file that holds it (the index's weight_map, or one file). */
export function weightFiles(dir: string): { files: string[]; owner: Map<string, string> | null } {
  const indexPath = join(dir, HF_INDEX_FILE);
  if (!existsSync(indexPath)) return { files: [HF_SINGLE_FILE], owner: null };
  const index = readJson(indexPath);
  const map = index.weight_map;
  if (typeof map !== 'object' || map === null || Array.isArray(map))
    throw new HfCheckpointError(`${indexPath}: "weight_map" must be an object of tensor name -> file`, indexPath);
  const owner = new Map<string, string>();
  for (const [tensor, file] of Object.entries(map as Record<string, unknown>)) {
    if (typeof file !== 'string' || file.includes('/') || file.includes('\\'))
      throw new HfCheckpointError(
        `${indexPath}: weight_map["${tensor}"] must be a file name in the folder (found ${JSON.stringify(file)})`,
        indexPath,
      );
    owner.set(tensor, file);
  }
  const files = [...new Set(owner.values())];
  for (const f of files) {
    const path = join(dir, f);
    if (!existsSync(path)) {
      const first = [...owner].find(([, file]) => file === f)![0];
      throw new HfCheckpointError(
        `${indexPath}: shard ${f} is missing (it holds "${first}" and others); expected at ${path}`,
        path,
      );
    }
  }
  return { files, owner };
}

const fmt = (shape: readonly number[]) => `[${shape.join(', ')}]`;

export interface LoadHfOptions {
  /** Fail before reading weights when they would need more bytes than this (float32 in memory). */
  memoryLimitBytes?: number;
  /** A tokenizer is required (default true). */
  requireTokenizer?: boolean;
}

/** Bytes the lab holds for these parameters (float32). */
export function parameterBytes(routes: readonly TensorRoute[]): number {
  return routes.reduce((n, r) => n + 4 * r.shape.reduce((a, b) => a * b, 1), 0);
}

/**
 * Pass 1 of a load, also `model info`: every safetensors header against config.json and the index, before
 * any tensor data. Returns the files open (the caller closes them) and, per published tensor, its file.
 */
export function checkHfHeaders(
  dir: string,
  m: { architecture: HfArchitecture; config: ModelConfig; routes: readonly TensorRoute[] },
): { opened: SafetensorsFile[]; found: Map<string, string>; dtypes: Set<Dtype>; files: string[] } {
  const { architecture, config, routes } = m;
  const byName = new Map(routes.map((r) => [r.hf, r]));
  const { files, owner } = weightFiles(dir);
  const opened: SafetensorsFile[] = [];
  try {
    const found = new Map<string, string>();
    const dtypes = new Set<Dtype>();
    for (const f of files) {
      const path = join(dir, f);
      let file: SafetensorsFile;
      try {
        file = openSafetensors(path);
      } catch (error) {
        if (error instanceof SafetensorsError) throw new HfCheckpointError(error.message, path);
        throw error;
      }
      opened.push(file);
      for (const t of file.tensors) {
        if (owner && owner.get(t.name) !== f) {
          if (!owner.has(t.name))
            throw new HfCheckpointError(`${path}: tensor "${t.name}" is not in ${HF_INDEX_FILE}'s weight_map`, path);
          continue; // the index says another file holds it; that copy is the one read
        }
        const route = byName.get(t.name);
        if (!route) {
          if (isIgnorableTensor(t.name, config)) continue;
          throw new HfCheckpointError(
            `${path}: tensor "${t.name}" is not a parameter of the ${architecture} that config.json describes`,
            path,
          );
        }
        if (!COMPUTABLE.includes(t.dtype))
          throw new HfCheckpointError(
            `${path}: tensor "${t.name}" is ${t.dtype}; the engine computes from F32, F16 or BF16 weights`,
            path,
          );
        const same = t.shape.length === route.shape.length && t.shape.every((d, i) => d === route.shape[i]);
        if (!same)
          throw new HfCheckpointError(
            `${path}: tensor "${t.name}" has shape ${fmt(t.shape)} but config.json calls for ${fmt(route.shape)}`,
            path,
          );
        found.set(t.name, f);
        dtypes.add(t.dtype);
      }
    }
    if (owner) {
      for (const [tensor, f] of owner) {
        if (!found.has(tensor) && !opened.find((o) => o.path === join(dir, f))?.info(tensor)) {
          throw new HfCheckpointError(
            `${join(dir, HF_INDEX_FILE)}: weight_map names "${tensor}" in ${f}, which does not hold it`,
            join(dir, f),
          );
        }
      }
    }
    for (const r of routes) {
      if (!found.has(r.hf))
        throw new HfCheckpointError(
          `${dir}: tensor "${r.hf}" ${fmt(r.shape)} is in no weight file (${files.join(', ')}); config.json (${architecture}) calls for it`,
          join(dir, files[0]!),
        );
    }

    return { opened, found, dtypes, files };
  } catch (error) {
    for (const f of opened) f.close();
    throw error;
  }
}

export function loadHfCheckpoint(dirArg: string, options: LoadHfOptions = {}): HfCheckpoint {
  const dir = resolve(dirArg);
  const { family, architecture, config, raw } = readHfModel(dir);
  const routes = tensorRoutes(config, family);
  const byName = new Map(routes.map((r) => [r.hf, r]));
  if (options.memoryLimitBytes !== undefined) {
    const need = parameterBytes(routes);
    if (need > options.memoryLimitBytes) {
      throw new HfCheckpointError(
        `${join(dir, 'config.json')}: the weights need ${(need / 2 ** 30).toFixed(2)} GiB as float32 and ${(options.memoryLimitBytes / 2 ** 30).toFixed(2)} GiB are available; not loading`,
        join(dir, 'config.json'),
      );
    }
  }
  const headers = checkHfHeaders(dir, { architecture, config, routes });
  const { opened, found, dtypes, files } = headers;
  try {
    // Pass 2: data, one file and one tensor at a time, into the lab's layout.
    const weights = new Map<string, Float32Array>();
    const labSize = new Map<string, number>();
    for (const r of routes) {
      const slot = r.shape.reduce((a, b) => a * b, 1);
      labSize.set(r.lab, r.expert === undefined ? slot : slot * config.num_experts);
    }
    for (const file of opened) {
      for (const t of file.tensors) {
        const route = byName.get(t.name);
        if (!route || found.get(t.name) !== file.path.slice(dir.length + 1)) continue;
        const raw16 = file.read(t.name);
        const values = toFloat32(raw16.dtype, raw16.data);
        let into = weights.get(route.lab);
        if (!into) {
          into = new Float32Array(labSize.get(route.lab)!);
          weights.set(route.lab, into);
        }
        const slot = values.length;
        const offset = route.expert === undefined ? 0 : route.expert * slot;
        if (route.transpose) transposeInto(values, route.shape[0]!, route.shape[1]!, into, offset);
        else into.set(values, offset);
      }
    }
    // The critic is the lab's own head: it starts at zero (PPO's critic warm-up trains it).
    weights.set('value_head.weight', new Float32Array(config.hidden_size));
    weights.set('value_head.bias', new Float32Array(1));

    const eosTokenIds = generationEos(dir);
    const tokenizer = readTokenizer(dir, config, eosTokenIds, options.requireTokenizer ?? true);
    return {
      dir,
      family,
      architecture,
      config,
      raw,
      weights,
      tokenizer,
      eosTokenIds,
      dtype: [...dtypes][0] ?? 'F32',
      files,
    };
  } finally {
    for (const f of opened) f.close();
  }
}

function generationEos(dir: string): number[] {
  const path = join(dir, 'generation_config.json');
  if (!existsSync(path)) return [];
  const eos = readJson(path).eos_token_id;
  if (eos === undefined || eos === null) return [];
  const list = Array.isArray(eos) ? eos : [eos];
  if (!list.every((x) => Number.isInteger(x) && (x as number) >= 0))
    throw new HfCheckpointError(
      `${path}: "eos_token_id" must be a token id or a list of them (found ${JSON.stringify(eos)})`,
      path,
    );
  return list as number[];
}

function readTokenizer(dir: string, config: ModelConfig, eos: number[], required: boolean): Tokenizer | null {
  const path = join(dir, 'tokenizer.json');
  if (!existsSync(path)) {
    if (required) throw new HfCheckpointError(`${path} is missing: the checkpoint needs its tokenizer`, path);
    return null;
  }
  let tokenizer: Tokenizer;
  try {
    tokenizer = loadTokenizerFile(path, eos);
  } catch (error) {
    throw new HfCheckpointError((error as Error).message, path);
  }
  if (tokenizer.vocabSize > config.vocab_size)
    throw new HfCheckpointError(
      `${path}: the tokenizer has ${tokenizer.vocabSize} tokens but config.json vocab_size is ${config.vocab_size}`,
      path,
    );
  for (const id of eos)
    if (id >= config.vocab_size)
      throw new HfCheckpointError(
        `${join(dir, 'generation_config.json')}: eos_token_id ${id} is outside vocab_size ${config.vocab_size}`,
        join(dir, 'generation_config.json'),
      );
  return tokenizer;
}

/** A short description for `model info`. */
export function describeHf(c: HfCheckpoint | { architecture: string; config: ModelConfig }): string {
  const cfg = c.config;
  return `${c.architecture}: ${cfg.num_hidden_layers} layers (${moeLayers(cfg).length} MoE), hidden ${cfg.hidden_size}, ${cfg.num_attention_heads}/${cfg.num_key_value_heads} heads of ${cfg.head_dim}`;
}

export function fileBytes(dir: string, files: readonly string[]): number {
  return files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}
