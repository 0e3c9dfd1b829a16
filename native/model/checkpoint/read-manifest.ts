/** Reading manifest.json and config.json of a checkpoint folder, with errors that name the file and field. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseModelConfig, type ModelConfig } from '../config';
import { CheckpointError } from './errors';
import { CONFIG_FILE, MANIFEST_FILE, Manifest, contentId } from './manifest';

function readJson(path: string, code: 'BAD_MANIFEST' | 'BAD_CONFIG'): unknown {
  if (!existsSync(path)) throw new CheckpointError('MISSING_FILE', `${path}: missing`, path);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CheckpointError(code, `${path}: not valid JSON (${(error as Error).message})`, path);
  }
}

export function readManifest(dir: string): Manifest {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CheckpointError('MISSING_FILE', `${dir}: no such checkpoint folder`, dir);
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) throw new CheckpointError('MISSING_FILE', `${path}: missing; not a T1 checkpoint folder (every saved checkpoint has one)`, path);
  const parsed = Manifest.safeParse(readJson(path, 'BAD_MANIFEST'));
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new CheckpointError('BAD_MANIFEST', `${path}: ${where}`, path);
  }
  if (contentId(parsed.data.files) !== parsed.data.id) throw new CheckpointError('BAD_MANIFEST', `${path}: id does not match the files it lists (edited by hand?)`, path);
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
