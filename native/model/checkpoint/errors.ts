/** Why a checkpoint could not be saved or loaded, as data: a code for the caller, a message naming the file, field or tensor. */

export const CHECKPOINT_ERROR_CODES = [
  /** The folder or a required file (config.json, tokenizer.json, model.safetensors, manifest.json) is missing. */
  'MISSING_FILE',
  /** manifest.json is unreadable or does not follow the schema. */
  'BAD_MANIFEST',
  /** A file's size or sha256 differs from the manifest (truncated, edited or corrupt). */
  'HASH_MISMATCH',
  /** config.json does not follow the model config schema. */
  'BAD_CONFIG',
  /** tokenizer.json cannot be loaded, or does not fit the config's vocabulary. */
  'BAD_TOKENIZER',
  /** A safetensors file is malformed (header, offsets, sizes). */
  'BAD_SAFETENSORS',
  /** Tensors disagree with config.json: missing, unexpected, wrong shape or dtype. */
  'SHAPE_MISMATCH',
  /** Saving would replace an existing folder and `overwrite` was not set. */
  'EXISTS',
] as const;
export type CheckpointErrorCode = (typeof CHECKPOINT_ERROR_CODES)[number];

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    readonly code: CheckpointErrorCode,
    message: string,
    /** The file at fault, when there is one (a path). */
    readonly file?: string,
  ) {
    super(message);
  }
}
