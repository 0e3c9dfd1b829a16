/** Reading manifest.json and config.json of a checkpoint folder, with errors that name the file and field. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseModelConfig, type ModelConfig } from '../config';
import { CheckpointError } from './errors';
import {
  CHECKPOINT_FORMAT,
  CHECKPOINT_FORMAT_VERSION,
  CONFIG_FILE,
  MANIFEST_FILE,
  MODEL_FILE,
  TOKENIZER_FILE,
  Manifest,
  contentId,
  hashFile,
} from './manifest';
import { countParameters } from '../config';
import { HF_INDEX_FILE, HfCheckpointError, checkHfHeaders, isHfCheckpoint, readHfModel } from '../hf/hf-checkpoint';
import { tensorRoutes } from '../hf/hf-names';

function readJson(path: string, code: 'BAD_MANIFEST' | 'BAD_CONFIG'): unknown {
  if (!existsSync(path)) throw new CheckpointError('MISSING_FILE', `${path}: missing`, path);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CheckpointError(code, `${path}: not valid JSON (${(error as Error).message})`, path);
  }
}

export function readManifest(dir: string): Manifest {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new CheckpointError('MISSING_FILE', `${dir}: no such checkpoint folder`, dir);
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path) && isHfCheckpoint(dir)) return publishedManifest(dir);
  if (!existsSync(path))
    throw new CheckpointError(
      'MISSING_FILE',
      `${path}: missing; not a T1 checkpoint folder (every saved checkpoint has one)`,
      path,
    );
  const parsed = Manifest.safeParse(readJson(path, 'BAD_MANIFEST'));
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new CheckpointError('BAD_MANIFEST', `${path}: ${where}`, path);
  }
  if (contentId(parsed.data.files) !== parsed.data.id)
    throw new CheckpointError('BAD_MANIFEST', `${path}: id does not match the files it lists (edited by hand?)`, path);
  return parsed.data;
}

export function readConfig(dir: string): ModelConfig {
  const path = join(dir, CONFIG_FILE);
  const raw = readJson(path, 'BAD_CONFIG');
  try {
    return parseModelConfig(raw, path);
  } catch (error) {
    throw new CheckpointError('BAD_CONFIG', (error as Error).message, path);
  }
}

/**
 * A published Hugging Face folder has no manifest.json: one is made on the spot from its headers (content
 * id over config.json, the index or single weight file and tokenizer.json; no parent), so a training run
 * records where it started. Nothing is written into the folder.
 */
export function publishedManifest(dir: string): Manifest {
  try {
    const m = readHfModel(dir);
    const headers = checkHfHeaders(dir, {
      architecture: m.architecture,
      config: m.config,
      routes: tensorRoutes(m.config, m.family),
    });
    for (const f of headers.opened) f.close();
    const files: Manifest['files'] = {};
    for (const name of [
      CONFIG_FILE,
      TOKENIZER_FILE,
      existsSync(join(dir, HF_INDEX_FILE)) ? HF_INDEX_FILE : MODEL_FILE,
    ]) {
      if (existsSync(join(dir, name))) files[name] = hashFile(join(dir, name));
    }
    const dtype = [...headers.dtypes][0];
    return {
      format: CHECKPOINT_FORMAT,
      format_version: CHECKPOINT_FORMAT_VERSION,
      id: contentId(files),
      kind: 'model',
      created_at: new Date(statSync(join(dir, CONFIG_FILE)).mtimeMs).toISOString(),
      lab_version: 'huggingface',
      parent: null,
      parameters: countParameters(m.config),
      weights_dtype: dtype === 'F16' || dtype === 'BF16' ? dtype : 'F32',
      metadata: { source: 'huggingface', architecture: m.architecture },
      files,
    };
  } catch (error) {
    if (error instanceof HfCheckpointError) throw new CheckpointError('BAD_CONFIG', error.message, error.file);
    throw error;
  }
}
