/**
 * A model-only copy of a checkpoint, stored in another dtype: how the lab ships small checkpoints with the
 * project (F16 halves the file; loading converts back to float32, so the graphs are unchanged). A training
 * checkpoint's optimizer state is left out: the copy is for evaluation and sampling.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckpoint, saveCheckpoint, TOKENIZER_CONFIG_FILE } from '../../../native/model/checkpoint';
import type { WeightsDtype } from '../../../native/model/checkpoint/manifest';
import { LabError } from '../../ipc/common/errors';
import { appVersion } from '../app-paths';

export interface ConvertResult {
  path: string;
  from: string;
  dtype: WeightsDtype;
  bytes: number;
}

export function convertCheckpoint(from: string, to: string, dtype: WeightsDtype): ConvertResult {
  let loaded;
  try {
    loaded = loadCheckpoint(from);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `${from}: ${(error as Error).message}`);
  }
  const saved = saveCheckpoint(to, {
    config: loaded.config,
    tokenizer: loaded.tokenizer,
    // eos and pad names live here: without it the copy would stop on <|endoftext|>, not <|im_end|>.
    ...(existsSync(join(from, TOKENIZER_CONFIG_FILE))
      ? {
          tokenizerConfig: JSON.parse(readFileSync(join(from, TOKENIZER_CONFIG_FILE), 'utf8')) as Record<
            string,
            unknown
          >,
        }
      : {}),
    parameters: loaded.parameters,
    weightsDtype: dtype,
    parent: from,
    labVersion: appVersion(),
    metadata: { ...loaded.manifest.metadata, convertedFrom: from, dtype },
  });
  const bytes = Object.values(saved.manifest.files).reduce((n, f) => n + f.bytes, 0);
  return { path: saved.dir, from, dtype, bytes };
}
