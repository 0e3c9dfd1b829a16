/**
 * Checkpoint folders: config.json (native/model/config.ts), tokenizer.json (Hugging Face), model.safetensors,
 * optimizer.safetensors for training checkpoints, manifest.json with a sha256 per file. Saved atomically,
 * loaded with every check before the weights are read, listed by a registry.
 */
export { CheckpointError, CHECKPOINT_ERROR_CODES, type CheckpointErrorCode } from './errors';
export {
  Manifest,
  ManifestFile,
  CheckpointKind,
  WeightsDtype,
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_VERSION,
  MANIFEST_FILE,
  CONFIG_FILE,
  TOKENIZER_FILE,
  TOKENIZER_CONFIG_FILE,
  MODEL_FILE,
  OPTIMIZER_FILE,
  contentId,
  hashFile,
} from './manifest';
export { saveCheckpoint, type SaveCheckpointOptions, type SavedCheckpoint, type OptimizerState } from './save';
export { loadCheckpoint, checkHashes, type LoadCheckpointOptions, type LoadedCheckpoint } from './load';
export { readManifest, readConfig } from './read-manifest';
export { inspectCheckpoint, CheckpointSummary, CheckpointFileInfo, type InspectOptions } from './summary';
export {
  listCheckpoints,
  recoverPartialSaves,
  type CheckpointListing,
  type ListOptions,
  type PartialSave,
} from './registry';
