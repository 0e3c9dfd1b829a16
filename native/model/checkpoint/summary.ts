/**
 * What the Models page and `t1lab model info` show of a checkpoint, as plain data (schema first). Reading
 * it touches only manifest.json, config.json and the safetensors headers (and the tokenizer and the
 * file hashes when asked), never the weights.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { ModelConfigFields } from '../config';
import { Dtype } from '../safetensors/index';
import { CHECKPOINT_ERROR_CODES } from './errors';
import { CheckpointKind, MODEL_FILE, OPTIMIZER_FILE, TOKENIZER_FILE, WeightsDtype, hashFile } from './manifest';
import { checkFilesPresent, checkHashes, loadCheckpointTokenizer, openTensorFile } from './load';
import { readConfig, readManifest } from './read-manifest';
import { checkOptimizerState, checkParameters } from './tensors';

export const CheckpointFileInfo = z.object({
  name: z.string(),
  bytes: z.number().int(),
  /** From the manifest (null for external checkpoints, which have none). */
  sha256: z.string().nullable(),
  /** True when the hash was checked and matched; null when not checked. */
  verified: z.boolean().nullable(),
});

export const CheckpointSummary = z.object({
  path: z.string(),
  name: z.string(),
  /** 't1': our MoE checkpoint (manifest, config, safetensors); 'external-onnx': an ONNX LLM export with its tokenizer.json. */
  /** 'hf': a published Hugging Face folder (config.json with architectures, safetensors shards), loaded into the lab's architecture. */
  format: z.enum(['t1', 'external-onnx', 'hf']),
  status: z.enum(['ok', 'invalid']),
  error: z.object({ code: z.enum(CHECKPOINT_ERROR_CODES), message: z.string() }).nullable(),
  id: z.string().nullable(),
  kind: CheckpointKind.nullable(),
  createdAt: z.string().nullable(),
  labVersion: z.string().nullable(),
  parent: z.object({ id: z.string(), path: z.string().nullable() }).nullable(),
  parameters: z.number().int().nullable(),
  weightsDtype: WeightsDtype.nullable(),
  totalBytes: z.number().int(),
  files: z.array(CheckpointFileInfo),
  config: ModelConfigFields.nullable(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  /** When inspected with the tokenizer: its size, byte-level flag and well-known ids. */
  tokenizer: z
    .object({
      vocabSize: z.number().int(),
      byteLevel: z.boolean(),
      roundTrip: z.string(),
      special: z.record(z.string(), z.number().int()),
    })
    .nullable(),
  /** When inspected with tensors: model.safetensors as its header lists it. */
  tensors: z.array(z.object({ name: z.string(), dtype: Dtype, shape: z.array(z.number().int()) })).nullable(),
});
export type CheckpointSummary = z.infer<typeof CheckpointSummary>;

export interface InspectOptions {
  /** Check every file's sha256 (default false). */
  verify?: boolean;
  /** Load tokenizer.json for its size and ids (default true). */
  tokenizer?: boolean;
  /** List model.safetensors' tensors (default true). */
  tensors?: boolean;
}

/** Everything about a t1 checkpoint short of its weights; throws a CheckpointError when it is not sound. */
export function inspectCheckpoint(dir: string, options: InspectOptions = {}): CheckpointSummary {
  const root = resolve(dir);
  const manifest = readManifest(root);
  checkFilesPresent(root, manifest);
  const config = readConfig(root);
  const tokenizer = (options.tokenizer ?? true) ? loadCheckpointTokenizer(root, config) : null;
  const model = openTensorFile(join(root, MODEL_FILE));
  let tensors: CheckpointSummary['tensors'];
  try {
    checkParameters(config, model.tensors, model.path);
    tensors =
      (options.tensors ?? true) ? model.tensors.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape })) : null;
  } finally {
    model.close();
  }
  if (manifest.kind === 'training') {
    const optimizer = openTensorFile(join(root, OPTIMIZER_FILE));
    try {
      checkOptimizerState(config, optimizer.tensors, optimizer.path);
    } finally {
      optimizer.close();
    }
  }
  if (options.verify) checkHashes(root, manifest);
  const files = Object.entries(manifest.files).map(([name, f]) => ({
    name,
    bytes: f.bytes,
    sha256: f.sha256,
    verified: options.verify ? true : null,
  }));
  return {
    path: root,
    name: basename(root),
    format: 't1',
    status: 'ok',
    error: null,
    id: manifest.id,
    kind: manifest.kind,
    createdAt: manifest.created_at,
    labVersion: manifest.lab_version,
    parent: manifest.parent,
    parameters: manifest.parameters,
    weightsDtype: manifest.weights_dtype,
    totalBytes: files.reduce((n, f) => n + f.bytes, 0),
    files,
    config,
    metadata: manifest.metadata,
    tokenizer: tokenizer
      ? {
          vocabSize: tokenizer.vocabSize,
          byteLevel: tokenizer.byteLevel,
          roundTrip: tokenizer.roundTrip,
          special: { ...tokenizer.special } as Record<string, number>,
        }
      : null,
    tensors,
  };
}

/** The plain files of a checkpoint folder without a manifest, sorted, hashed when `verify` (nothing to check them against). */
export function listFolderFiles(root: string, verify: boolean): CheckpointSummary['files'] {
  return readdirSync(root)
    .filter((name) => statSync(join(root, name)).isFile())
    .sort()
    .map((name) => {
      const path = join(root, name);
      return verify
        ? { name, ...hashFile(path), verified: null }
        : { name, bytes: statSync(path).size, sha256: null, verified: null };
    });
}

/** An external ONNX LLM export (model.onnx + tokenizer.json, no manifest): listed with its files, not validated further. */
export function summarizeExternal(dir: string, options: { verify?: boolean } = {}): CheckpointSummary {
  const root = resolve(dir);
  const files = listFolderFiles(root, options.verify === true);
  const tokenizerMissing = !existsSync(join(root, TOKENIZER_FILE));
  return {
    ...unreadSummary(root, 'external-onnx'),
    status: tokenizerMissing ? 'invalid' : 'ok',
    error: tokenizerMissing
      ? { code: 'MISSING_FILE', message: `${join(root, TOKENIZER_FILE)}: missing (a checkpoint needs its tokenizer)` }
      : null,
    totalBytes: files.reduce((n, f) => n + f.bytes, 0),
    files,
  };
}

/** A summary of a folder whose manifest was not (or could not be) read: every manifest field null. */
export function unreadSummary(
  dir: string,
  format: CheckpointSummary['format'],
  error: CheckpointSummary['error'] = null,
): CheckpointSummary {
  return {
    path: dir,
    name: basename(dir),
    format,
    status: error ? 'invalid' : 'ok',
    error,
    id: null,
    kind: null,
    createdAt: null,
    labVersion: null,
    parent: null,
    parameters: null,
    weightsDtype: null,
    totalBytes: 0,
    files: [],
    config: null,
    metadata: {},
    tokenizer: null,
    tensors: null,
  };
}
