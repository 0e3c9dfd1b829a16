/**
 * manifest.json: what a checkpoint folder holds, with a sha256 and size for every file, when and by which
 * lab version it was made, and its parent. Written last when saving, so its presence marks a complete folder.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';

export const CHECKPOINT_FORMAT = 't1-checkpoint';
export const CHECKPOINT_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';
export const CONFIG_FILE = 'config.json';
export const TOKENIZER_FILE = 'tokenizer.json';
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const MODEL_FILE = 'model.safetensors';
export const OPTIMIZER_FILE = 'optimizer.safetensors';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in lowercase hex');

export const ManifestFile = z.strictObject({ bytes: z.number().int().nonnegative(), sha256: Sha256 });
export type ManifestFile = z.infer<typeof ManifestFile>;

export const CheckpointKind = z.enum(['model', 'training']);
export type CheckpointKind = z.infer<typeof CheckpointKind>;

export const WeightsDtype = z.enum(['F32', 'F16', 'BF16']);
export type WeightsDtype = z.infer<typeof WeightsDtype>;

export const Manifest = z.strictObject({
  format: z.literal(CHECKPOINT_FORMAT),
  format_version: z.literal(CHECKPOINT_FORMAT_VERSION),
  /** Content id: sha256 over the sorted "name<TAB>sha256<LF>" lines of `files`. Same files, same id. */
  id: Sha256,
  /** 'training' checkpoints also hold optimizer.safetensors. */
  kind: CheckpointKind,
  created_at: z.iso.datetime(),
  lab_version: z.string().min(1),
  /** The checkpoint this one was trained from (its id, and its folder relative to this one when known). */
  parent: z.strictObject({ id: Sha256, path: z.string().nullable() }).nullable(),
  /** Number of model parameters (elements of model.safetensors). */
  parameters: z.number().int().nonnegative(),
  weights_dtype: WeightsDtype,
  /** Free-form facts from whoever saved it (training step, run id ...). */
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  files: z.record(z.string(), ManifestFile),
});
export type Manifest = z.infer<typeof Manifest>;

/** The content id of a set of files. */
export function contentId(files: Readonly<Record<string, ManifestFile>>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) hash.update(`${name}\t${files[name]!.sha256}\n`);
  return hash.digest('hex');
}

const CHUNK = 1 << 20;

/** sha256 and size of a file, read in 1 MiB chunks (never the whole file in memory). */
export function hashFile(path: string): ManifestFile {
  const fd = openSync(path, 'r');
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK);
    let bytes = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK, bytes);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
      bytes += n;
    }
    return { bytes, sha256: hash.digest('hex') };
  } finally {
    closeSync(fd);
  }
}

export function hashBytes(data: Uint8Array): ManifestFile {
  return { bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}
