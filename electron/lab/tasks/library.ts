/**
 * The app's task library: the built-in examples (tasks/examples in the app) and whatever the user puts
 * in $T1LAB_HOME/tasks (task folders, folders of tasks, packs), each top-level entry a source of its own.
 * Loaded on demand and cached until refreshed.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import { appRoot } from '../app-paths';
import type { Task } from './model';
import { loadTaskSource, type TaskSource } from './source';

export interface LibrarySource {
  label: string;
  path: string;
}

export const EXAMPLES_LABEL = 'examples';

export function builtinExamplesDir(root = appRoot()): string {
  return join(root, 'tasks', 'examples');
}

export function userTasksDir(dataDir: string): string {
  return join(dataDir, 'tasks');
}

export class TaskLibrary {
  private loaded: Promise<Map<string, { source: LibrarySource; tasks: TaskSource }>> | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly examplesDir: string = builtinExamplesDir(),
  ) {}

  async sources(): Promise<LibrarySource[]> {
    const out: LibrarySource[] = [{ label: EXAMPLES_LABEL, path: this.examplesDir }];
    const user = userTasksDir(this.dataDir);
    const entries = await readdir(user, { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory() || (e.isFile() && e.name.endsWith('.jsonl'))) out.push({ label: e.name === EXAMPLES_LABEL ? `user/${e.name}` : e.name, path: join(user, e.name) });
    }
    return out;
  }

  /** Every source, loaded (from cache unless `refresh`). A source that fails to load is listed with its error. */
  load(refresh = false): Promise<Map<string, { source: LibrarySource; tasks: TaskSource }>> {
    if (!this.loaded || refresh) {
      this.loaded = (async () => {
        const map = new Map<string, { source: LibrarySource; tasks: TaskSource }>();
        for (const source of await this.sources()) {
          try {
            map.set(source.label, { source, tasks: await loadTaskSource(source.path) });
          } catch (error) {
            const problem = { file: source.path, field: null, reason: (error as Error).message, severity: 'error' as const };
            map.set(source.label, { source, tasks: { path: source.path, kind: 'folder', tasks: [], invalid: [{ id: source.label, origin: { kind: 'folder', path: source.path }, problems: [problem] }] } });
          }
        }
        return map;
      })();
      this.loaded.catch(() => (this.loaded = null));
    }
    return this.loaded;
  }

  async find(source: string, id: string): Promise<Task> {
    const entry = (await this.load()).get(source);
    const task = entry?.tasks.tasks.find((t) => t.id === id);
    if (task) return task;
    if (entry?.tasks.invalid.some((t) => t.id === id)) throw new LabError('CONFLICT', `task '${id}' in ${source} is invalid; see its problems in the list`);
    throw new LabError('NOT_FOUND', `no task '${id}' in source '${source}'`);
  }
}
