/**
 * The app's task library: every source task-sources.ts lists (the built-in examples, the committed suites,
 * $T1LAB_HOME/tasks, added folders and packs, the suites of the lab's runs), each a source of its own.
 * Loaded on demand and cached until refreshed.
 */
import { LabError } from '../../ipc/common/errors';
import type { Task } from './model';
import { loadTaskSource, type TaskSource } from './source';
import { builtinExamplesDir, builtinSuitesDir, listTaskSources, type LibrarySource } from './task-sources';

export { builtinExamplesDir, builtinSuitesDir, userTasksDir, EXAMPLES_LABEL, type LibrarySource } from './task-sources';

export class TaskLibrary {
  private loaded: Promise<Map<string, { source: LibrarySource; tasks: TaskSource }>> | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly examplesDir: string = builtinExamplesDir(),
    private readonly suitesDir: string = builtinSuitesDir(),
  ) {}

  async sources(): Promise<LibrarySource[]> {
    return listTaskSources(this.dataDir, this.examplesDir, this.suitesDir);
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
            const problem = {
              file: source.path,
              field: null,
              reason: (error as Error).message,
              severity: 'error' as const,
            };
            map.set(source.label, {
              source,
              tasks: {
                path: source.path,
                kind: 'folder',
                tasks: [],
                invalid: [{ id: source.label, origin: { kind: 'folder', path: source.path }, problems: [problem] }],
              },
            });
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
    if (entry?.tasks.invalid.some((t) => t.id === id))
      throw new LabError('CONFLICT', `task '${id}' in ${source} is invalid; see its problems in the list`);
    throw new LabError('NOT_FOUND', `no task '${id}' in source '${source}'`);
  }
}
