/**
 * `loadTaskSource(PATH)`: PATH is a task folder, a folder of tasks (searched a few levels deep, packs
 * included), or a pack file. Every task found is either loaded or listed with its problems; one bad task
 * never stops the others.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { TaskProblem } from '../../domain/tasks';
import { buildTask } from './build-task';
import { DEFAULT_SIZE_LIMITS, MAX_DISCOVERY_DEPTH, type SizeLimits } from './limits';
import type { Task, TaskOrigin } from './model';
import { readPack } from './pack';
import { taskIdProblem } from './paths';
import { readTaskFolder } from './read-folder';

export interface InvalidTask {
  id: string;
  origin: TaskOrigin;
  problems: TaskProblem[];
}

export interface TaskSource {
  /** The path as given, resolved. */
  path: string;
  kind: 'task' | 'folder' | 'pack';
  tasks: Task[];
  invalid: InvalidTask[];
}

export interface LoadOptions {
  limits?: SizeLimits;
}

const TASK_MARKERS = ['task.toml', 'task.yaml', 'instruction.md'];

export async function isTaskFolder(dir: string): Promise<boolean> {
  const names = new Set(await readdir(dir).catch(() => [] as string[]));
  return TASK_MARKERS.some((m) => names.has(m));
}

/** Load one task folder (its id is the folder name). */
export async function loadTaskFolder(
  dir: string,
  options: LoadOptions = {},
): Promise<{ task: Task | null; problems: TaskProblem[]; id: string }> {
  const path = resolve(dir);
  const id = basename(path);
  const origin: TaskOrigin = { kind: 'folder', path };
  const read = await readTaskFolder(path, options.limits ?? DEFAULT_SIZE_LIMITS);
  const idProblem = taskIdProblem(id);
  const inherited: TaskProblem[] = idProblem
    ? [...read.problems, { file: '.', field: null, reason: `folder name: ${idProblem}`, severity: 'error' }]
    : read.problems;
  const built = buildTask(id, read.files, origin, inherited);
  return { task: built.task, problems: built.problems, id };
}

export async function loadTaskSource(path: string, options: LoadOptions = {}): Promise<TaskSource> {
  const root = resolve(path);
  const info = await stat(root).catch(() => null);
  if (!info) throw new LabError('NOT_FOUND', `${path}: no such file or folder`);
  const source: TaskSource = { path: root, kind: 'folder', tasks: [], invalid: [] };
  const seen = new Map<string, string>();

  const add = (task: Task | null, id: string, origin: TaskOrigin, problems: TaskProblem[]) => {
    const where = origin.kind === 'pack' ? `${origin.path}:${origin.line}` : origin.path;
    const first = seen.get(id);
    if (task && first !== undefined) {
      source.invalid.push({
        id,
        origin,
        problems: [
          { file: where, field: 'id', reason: `duplicate task id '${id}' (also at ${first})`, severity: 'error' },
        ],
      });
      return;
    }
    if (task) {
      seen.set(id, where);
      source.tasks.push(task);
    } else source.invalid.push({ id, origin, problems });
  };

  const addPack = async (file: string) => {
    for await (const entry of readPack(file, options.limits))
      add(entry.task, entry.id, { kind: 'pack', path: file, line: entry.line }, entry.problems);
  };

  const addFolder = async (dir: string) => {
    const loaded = await loadTaskFolder(dir, options);
    add(loaded.task, loaded.id, { kind: 'folder', path: dir }, loaded.problems);
  };

  if (info.isFile()) {
    if (!root.endsWith('.jsonl'))
      throw new LabError('INVALID_PARAMS', `${path}: a task source is a folder or a .jsonl pack`);
    source.kind = 'pack';
    await addPack(root);
    return source;
  }
  if (await isTaskFolder(root)) {
    source.kind = 'task';
    await addFolder(root);
    return source;
  }

  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const child = join(dir, entry.name);
      if (entry.isFile() && entry.name.endsWith('.jsonl')) await addPack(child);
      else if (entry.isDirectory()) {
        if (await isTaskFolder(child)) await addFolder(child);
        else if (depth < MAX_DISCOVERY_DEPTH) await walk(child, depth + 1);
      }
    }
  };
  await walk(root, 1);
  return source;
}

/** Find one task by id in a source; NOT_FOUND names what exists. */
export function findTask(source: TaskSource, id: string): Task {
  const task = source.tasks.find((t) => t.id === id);
  if (task) return task;
  const bad = source.invalid.find((t) => t.id === id);
  if (bad)
    throw new LabError(
      'CONFLICT',
      `task '${id}' is invalid: ${bad.problems.map((p) => `${p.file}${p.field ? `: ${p.field}` : ''}: ${p.reason}`).join('; ')}`,
    );
  throw new LabError('NOT_FOUND', `no task '${id}' in ${source.path}`);
}
