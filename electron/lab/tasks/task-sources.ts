/**
 * Every place the lab knows tasks from, in the order the Tasks page lists them: the built-in examples, the
 * committed suites (tasks/suites/*.jsonl), the user's $T1LAB_HOME/tasks (task folders, folders of tasks,
 * packs such as `t1lab tasks synth --out $T1LAB_HOME/tasks/NAME.jsonl` writes), the folders and packs added
 * with "add a source" (kept in the lab settings, `taskSources`), and the suites that evaluation runs of the
 * lab were given, when they still exist and are not listed already.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod';
import type { TaskSourceKind } from '../../domain/tasks';
import { LabError } from '../../ipc/common/errors';
import { appRoot } from '../app-paths';
import { runsDir } from '../runs/dirs';
import { readSettings, writeSetting } from '../settings/settings-file';

export interface LibrarySource {
  label: string;
  path: string;
  kind: TaskSourceKind;
}

export const EXAMPLES_LABEL = 'examples';
/** The settings key of the added sources (absolute real paths). */
const SETTINGS_KEY = 'taskSources';
const Added = z.array(z.string());

export function builtinExamplesDir(root = appRoot()): string {
  return join(root, 'tasks', 'examples');
}

export function builtinSuitesDir(root = appRoot()): string {
  return join(root, 'tasks', 'suites');
}

export function userTasksDir(dataDir: string): string {
  return join(dataDir, 'tasks');
}

/** `inner` is `outer` or below it. */
function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

export function addedTaskSources(dataDir: string): string[] {
  const parsed = Added.safeParse(readSettings(dataDir)[SETTINGS_KEY] ?? []);
  return parsed.success ? parsed.data : [];
}

/** The suites evaluation runs were given (run.json `config.suite`), newest run first, each once. */
function runSuites(dataDir: string): string[] {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return [];
  const seen = new Set<string>();
  for (const name of readdirSync(root).sort().reverse()) {
    try {
      const suite = (JSON.parse(readFileSync(join(root, name, 'run.json'), 'utf8')) as { config?: { suite?: unknown } })
        .config?.suite;
      if (typeof suite === 'string' && isAbsolute(suite)) seen.add(suite);
    } catch {
      // not a readable run: nothing to learn from it
    }
  }
  return [...seen];
}

export function listTaskSources(
  dataDir: string,
  examplesDir = builtinExamplesDir(),
  suitesDir = builtinSuitesDir(),
): LibrarySource[] {
  const out: LibrarySource[] = [{ label: EXAMPLES_LABEL, path: examplesDir, kind: 'examples' }];
  const labels = new Set([EXAMPLES_LABEL]);
  const unique = (label: string) => {
    let name = label;
    for (let i = 2; labels.has(name); i++) name = `${label} (${i})`;
    labels.add(name);
    return name;
  };
  const suites = existsSync(suitesDir)
    ? readdirSync(suitesDir)
        .filter((n) => n.endsWith('.jsonl'))
        .sort()
    : [];
  for (const name of suites)
    out.push({ label: unique(`suites/${name.replace(/\.jsonl$/, '')}`), path: join(suitesDir, name), kind: 'suite' });
  const user = userTasksDir(dataDir);
  const entries = existsSync(user)
    ? readdirSync(user, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
    : [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    if (e.isDirectory() || (e.isFile() && e.name.endsWith('.jsonl')))
      out.push({
        label: unique(e.name === EXAMPLES_LABEL ? `user/${e.name}` : e.name),
        path: join(user, e.name),
        kind: 'user',
      });
  }
  const covered = () => out.map((s) => real(s.path));
  for (const path of addedTaskSources(dataDir)) {
    if (covered().some((c) => isWithin(real(path), c))) continue;
    out.push({ label: unique(`added/${basename(path)}`), path, kind: 'added' });
  }
  for (const path of runSuites(dataDir)) {
    if (!existsSync(path) || covered().some((c) => isWithin(real(path), c))) continue;
    out.push({ label: unique(`runs/${basename(path)}`), path, kind: 'run' });
  }
  return out;
}

/** Check a path typed by the user (an absolute, existing folder or .jsonl pack); returns its real path. */
function checkSourcePath(path: string): string {
  const typed = path.trim();
  if (!typed)
    throw new LabError('INVALID_PARAMS', 'Type the path of a task folder, a folder of tasks, or a pack (.jsonl).', {
      field: 'path',
    });
  if (!isAbsolute(typed))
    throw new LabError('INVALID_PARAMS', `"${typed}" is a relative path: give the full path, starting with /.`, {
      field: 'path',
    });
  if (!existsSync(typed)) throw new LabError('NOT_FOUND', `There is nothing at ${typed}.`, { field: 'path' });
  const info = statSync(typed);
  if (info.isFile() && !typed.endsWith('.jsonl'))
    throw new LabError('INVALID_PARAMS', `${typed} is a file but not a pack (a pack's name ends in .jsonl).`, {
      field: 'path',
    });
  return realpathSync(typed);
}

/**
 * Add a source to the settings. `countTasks` loads it (the caller's loader) so that a path without a single
 * task is refused with the reason instead of listed empty.
 */
export async function addTaskSource(
  dataDir: string,
  path: string,
  countTasks: (path: string) => Promise<number>,
  examplesDir?: string,
  suitesDir?: string,
): Promise<string[]> {
  const path0 = checkSourcePath(path);
  const listed = listTaskSources(dataDir, examplesDir, suitesDir).filter((s) => s.kind !== 'run');
  const covering = listed.find((s) => isWithin(path0, real(s.path)));
  if (covering)
    throw new LabError(
      'CONFLICT',
      `${path} is already listed${real(covering.path) === path0 ? '' : ` (it is inside ${covering.path})`} as ${covering.label}.`,
      { field: 'path' },
    );
  const found = await countTasks(path0);
  if (found === 0)
    throw new LabError(
      'NOT_FOUND',
      `${path} holds no task (a folder with task.toml or instruction.md, or a pack of tasks).`,
      { field: 'path' },
    );
  const next = [...addedTaskSources(dataDir).filter((p) => !isWithin(p, path0)), path0];
  writeSetting(dataDir, SETTINGS_KEY, next);
  return next;
}

export function removeTaskSource(dataDir: string, path: string): string[] {
  const added = addedTaskSources(dataDir);
  const next = added.filter((p) => p !== path);
  if (next.length === added.length)
    throw new LabError('NOT_FOUND', `${path} is not an added task source.`, { field: 'path' });
  writeSetting(dataDir, SETTINGS_KEY, next);
  return next;
}
