/**
 * Reads a task folder into memory, refusing what could make the lab read outside it or run out of memory:
 * symlinks that point out of the task (or dangle, or name a folder), special files, oversize files, too
 * many files, names that are not portable task paths. Each refusal is a problem with its file and reason.
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { TaskProblem } from '../../domain/tasks';
import { DEFAULT_SIZE_LIMITS, type SizeLimits } from './limits';
import type { TaskFile } from './model';
import { taskPathProblem } from './paths';
import { Problems } from './problems';

/** Folders that are tooling state, never part of a task. */
const SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache']);

export interface FolderRead {
  files: TaskFile[];
  problems: TaskProblem[];
}

export async function readTaskFolder(dir: string, limits: SizeLimits = DEFAULT_SIZE_LIMITS): Promise<FolderRead> {
  const problems = new Problems();
  const files: TaskFile[] = [];
  let total = 0;
  let stopped = false;
  const root = await realpath(dir);

  const fail = (rel: string, reason: string) => problems.error(rel, null, reason);

  async function addFile(rel: string, abs: string): Promise<void> {
    const info = await stat(abs);
    if (info.size > limits.maxFileBytes)
      return fail(rel, `is ${mb(info.size)}, over the ${mb(limits.maxFileBytes)} limit for one file`);
    if (files.length >= limits.maxFiles) {
      stopped = true;
      return fail('.', `has more than ${limits.maxFiles} files`);
    }
    if (total + info.size > limits.maxTaskBytes) {
      stopped = true;
      return fail(rel, `brings the task over its ${mb(limits.maxTaskBytes)} size limit`);
    }
    const data = await readFile(abs);
    total += data.byteLength;
    files.push({
      path: rel,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      executable: (info.mode & 0o111) !== 0,
    });
  }

  async function walk(abs: string, rel: string): Promise<void> {
    const entries = await readdir(abs, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (stopped) return;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const childAbs = join(abs, entry.name);
      const pathProblem = taskPathProblem(childRel);
      if (pathProblem) {
        fail(childRel, pathProblem);
        continue;
      }
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(childAbs, childRel);
      } else if (entry.isFile()) {
        await addFile(childRel, childAbs);
      } else if (entry.isSymbolicLink()) {
        await addSymlink(childRel, childAbs);
      } else {
        fail(childRel, 'is not a regular file (a FIFO, socket or device); tasks hold plain files only');
      }
    }
  }

  /** A symlink is accepted only when it names a regular file inside the task; its content is read as a file. */
  async function addSymlink(rel: string, abs: string): Promise<void> {
    let target: string;
    try {
      target = await realpath(abs);
    } catch {
      return fail(rel, 'is a symlink that points nowhere (dangling)');
    }
    const inside = relative(root, target);
    if (inside === '' || inside.startsWith('..') || inside.startsWith(sep) || inside.split(sep).includes('..')) {
      return fail(rel, `is a symlink pointing outside the task (to ${target})`);
    }
    const info = await lstat(target);
    if (!info.isFile())
      return fail(rel, 'is a symlink to a folder or special file; only symlinks to files inside the task are allowed');
    await addFile(rel, target);
  }

  await walk(root, '');
  return { files, problems: problems.list };
}

function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}
