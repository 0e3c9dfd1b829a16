/** Writes a task's files out as a folder (unpack, import). Refuses to write into a non-empty folder. */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { TaskFile } from './model';
import { isWithin, taskPathProblem } from './paths';

export async function writeTaskFolder(dir: string, files: readonly TaskFile[]): Promise<void> {
  const root = resolve(dir);
  const existing = await readdir(root).catch(() => null);
  if (existing && existing.length > 0) throw new LabError('CONFLICT', `${dir} already exists and is not empty; refusing to overwrite it`);
  await mkdir(root, { recursive: true });
  for (const file of files) {
    // Paths were checked when the task loaded; check again because this is where a bad one would do harm.
    const problem = taskPathProblem(file.path);
    const target = join(root, file.path);
    if (problem || !isWithin(target, root)) throw new LabError('INVALID_PARAMS', `refusing to write '${file.path}': ${problem ?? 'outside the task folder'}`);
    await mkdir(dirname(target), { recursive: true });
    // 'wx': never follow or replace something already there.
    await writeFile(target, file.data, { mode: file.executable ? 0o755 : 0o644, flag: 'wx' });
  }
}
