/**
 * A published Hugging Face folder as the Models page and `t1lab model info` show it: config.json read into
 * the lab's architecture, every safetensors header checked against it, the files with their sizes; never
 * the weights. Errors become an 'invalid' summary naming the file and tensor or key.
 */
import { join, resolve } from 'node:path';
import { countParameters, moeLayers } from '../config';
import { listFolderFiles, unreadSummary, type CheckpointSummary } from '../checkpoint/summary';
import { loadTokenizerFile } from '../tokenizer/index';
import { HfCheckpointError, checkHfHeaders, readHfModel } from './hf-checkpoint';
import { tensorRoutes } from './hf-names';

export function summarizeHf(dir: string, options: { verify?: boolean; tokenizer?: boolean } = {}): CheckpointSummary {
  const root = resolve(dir);
  const files = listFolderFiles(root, options.verify === true);
  const base = { ...unreadSummary(root, 'hf'), totalBytes: files.reduce((n, f) => n + f.bytes, 0), files };
  try {
    const model = readHfModel(root);
    const routes = tensorRoutes(model.config, model.family);
    const headers = checkHfHeaders(root, { architecture: model.architecture, config: model.config, routes });
    for (const f of headers.opened) f.close();
    const tokenizer = (options.tokenizer ?? true) ? loadTokenizerFile(join(root, 'tokenizer.json')) : null;
    return {
      ...base,
      // The critic's value head (hidden_size + 1) is the lab's own: not counted as the published model's.
      parameters: countParameters(model.config) - model.config.hidden_size - 1,
      weightsDtype: ([...headers.dtypes][0] ?? 'F32') as CheckpointSummary['weightsDtype'],
      config: model.config,
      metadata: {
        architecture: model.architecture,
        moe_layers: moeLayers(model.config).length,
        shards: headers.files.length,
      },
      tokenizer: tokenizer
        ? {
            vocabSize: tokenizer.vocabSize,
            byteLevel: tokenizer.byteLevel,
            roundTrip: tokenizer.roundTrip,
            special: { ...tokenizer.special } as Record<string, number>,
          }
        : null,
    };
  } catch (error) {
    const code =
      error instanceof HfCheckpointError && /shape|tensor/.test(error.message) ? 'SHAPE_MISMATCH' : 'BAD_CONFIG';
    return { ...base, status: 'invalid', error: { code, message: (error as Error).message } };
  }
}
