/** Writes task files out as a folder (unpack, import, workspaces, the verifier's /tests). */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { TaskFile } from './model';
import { isWithin, taskPathProblem } from './paths';

/** Write `files` under `dir` (created if needed); never replaces or follows anything already there. */
export async function writeFiles(
  dir: string,
  files: readonly TaskFile[],
  options: { readOnly?: boolean } = {},
): Promise<void> {
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  for (const file of files) {
    // Paths were checked when the task loaded; check again because this is where a bad one would do harm.
    const problem = taskPathProblem(file.path);
    const target = join(root, file.path);
    if (problem || !isWithin(target, root))
      throw new LabError(
        'INVALID_PARAMS',
        `refusing to write '${file.path}': ${problem ?? 'outside the target folder'}`,
      );
    await mkdir(dirname(target), { recursive: true });
    const mode = (file.executable ? 0o755 : 0o644) & (options.readOnly ? 0o555 : 0o777);
    // 'wx': fail rather than follow or replace something already there.
    await writeFile(target, file.data, { mode, flag: 'wx' });
  }
}

/** Write a task as a new folder; refuses to write into a non-empty folder. */
export async function writeTaskFolder(dir: string, files: readonly TaskFile[]): Promise<void> {
  const existing = await readdir(resolve(dir)).catch(() => null);
  if (existing && existing.length > 0)
    throw new LabError('CONFLICT', `${dir} already exists and is not empty; refusing to overwrite it`);
  await writeFiles(dir, files);
}
