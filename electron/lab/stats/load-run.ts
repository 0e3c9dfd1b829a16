/** A run named on the command line or by the UI: a run folder path, or a run id under the lab's runs/. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import { readRun, runPath } from '../runs/library';
import type { RunOutcomes } from './compare';

export function resolveRunDir(dataDir: string, ref: string): string {
  const asPath = resolve(ref);
  if (existsSync(join(asPath, 'run.json'))) return asPath;
  if (/^[A-Za-z0-9._-]{1,128}$/.test(ref)) return runPath(dataDir, ref);
  throw new LabError('NOT_FOUND', `'${ref}' is neither a run folder (no run.json there) nor a run id`);
}

export function loadRunOutcomes(dataDir: string, ref: string): RunOutcomes & { dir: string } {
  const dir = resolveRunDir(dataDir, ref);
  const { manifest, episodes } = readRun(dir);
  return { run: manifest.id, dir, episodes };
}
