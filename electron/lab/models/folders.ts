/**
 * The folders the Models page lists checkpoints from, besides the lab's own: kept in the lab's settings
 * (`modelFolders`), checked when added (an absolute, existing folder that holds at least one checkpoint)
 * and compared by real path, so a folder added twice through a link or with a trailing slash is one.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { z } from 'zod';
import { LabError } from '../../ipc/common/errors';
import { listCheckpoints } from '../../../native/model/checkpoint/registry';
import { readSettings, writeSetting } from '../settings/settings-file';

const KEY = 'modelFolders';
const Folders = z.array(z.string());

export function modelFolders(dataDir: string): string[] {
  const parsed = Folders.safeParse(readSettings(dataDir)[KEY] ?? []);
  return parsed.success ? parsed.data : [];
}

/** `inner` is `outer` or below it. */
export function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Check a folder typed by the user; returns its real path. Errors say what is wrong in the user's words. */
export function checkFolder(path: string): string {
  const typed = path.trim();
  if (!typed)
    throw new LabError('INVALID_PARAMS', 'Type the path of a folder that holds checkpoints.', { field: 'path' });
  if (!isAbsolute(typed))
    throw new LabError('INVALID_PARAMS', `"${typed}" is a relative path: give the full path, starting with /.`, {
      field: 'path',
    });
  if (!existsSync(typed)) throw new LabError('NOT_FOUND', `There is no folder at ${typed}.`, { field: 'path' });
  if (!statSync(typed).isDirectory())
    throw new LabError('INVALID_PARAMS', `${typed} is a file, not a folder.`, { field: 'path' });
  return realpathSync(typed);
}

export function addModelFolder(
  dataDir: string,
  path: string,
  builtIn: string,
): { folders: string[]; checkpoints: number } {
  const real = checkFolder(path);
  const folders = modelFolders(dataDir);
  const realBuiltIn = existsSync(builtIn) ? realpathSync(builtIn) : builtIn;
  if (isWithin(real, realBuiltIn))
    throw new LabError(
      'CONFLICT',
      `${path} is inside the lab's own checkpoints folder (${builtIn}), which is always listed.`,
      { field: 'path' },
    );
  const covering = folders.find((f) => isWithin(real, f));
  if (covering)
    throw new LabError(
      'CONFLICT',
      `${path} is already listed${covering === real ? '' : ` (it is inside ${covering})`}.`,
      { field: 'path' },
    );
  const found = listCheckpoints(real).checkpoints.length;
  if (found === 0)
    throw new LabError(
      'NOT_FOUND',
      `${path} holds no checkpoint (a folder with manifest.json or model.onnx, up to 4 levels down).`,
      { field: 'path' },
    );
  // A parent replaces the folders below it: each checkpoint is listed once.
  const next = [...folders.filter((f) => !isWithin(f, real)), real];
  writeSetting(dataDir, KEY, next);
  return { folders: next, checkpoints: found };
}

export function removeModelFolder(dataDir: string, path: string): string[] {
  const folders = modelFolders(dataDir);
  const next = folders.filter((f) => f !== path);
  if (next.length === folders.length)
    throw new LabError('NOT_FOUND', `${path} is not in the list of checkpoint folders.`);
  writeSetting(dataDir, KEY, next);
  return next;
}
