/**
 * `t1lab tasks sources|add-source|remove-source` against a fresh lab: every source the Tasks page lists
 * (examples, committed suites, $T1LAB_HOME/tasks, added folders, the suites of the lab's runs) with task
 * counts and per-task pass rates; adding refuses relative, missing, empty and already listed paths with the
 * reason; an added source is kept in settings.json and removed again (its files stay).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeRunFolder } from '../../helpers/runs';
import { QUICK_SUITE, writeSuite, writeTask } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

interface SourcesJson {
  sources: {
    label: string;
    kind: string;
    path: string;
    tasks: number;
    invalid: number;
    episodes: number;
    resolved: number;
  }[];
  passRates: { taskId: string; runs: number; episodes: number; resolved: number }[];
}

const tmp = makeTempDir();
const home = join(tmp.path, 'home');
const outside = writeSuite(join(tmp.path, 'elsewhere', 'my-suite'));
const env = { T1LAB_HOME: home };
const t1lab = (...args: string[]) => runT1lab(args, { env });
const sources = async () => {
  const result = await t1lab('tasks', 'sources', '--json');
  expect(result.code, result.stderr).toBe(0);
  return parseJsonOutput<SourcesJson>(result);
};
afterAll(() => tmp.remove());

describe('t1lab tasks sources', () => {
  test('a fresh lab lists the examples, every committed suite and $T1LAB_HOME/tasks', async () => {
    writeTask(join(home, 'tasks'), { id: 'mine', instruction: 'Do it.', assertions: { ok: 'true' } });
    const { sources: list, passRates } = await sources();
    expect(list[0]).toMatchObject({ label: 'examples', kind: 'examples', tasks: 18, invalid: 0 });
    const suites = readdirSync(join(process.cwd(), 'tasks', 'suites')).filter((n) => n.endsWith('.jsonl'));
    expect(suites.length).toBeGreaterThan(0);
    for (const name of suites) {
      const suite = list.find((s) => s.label === `suites/${name.replace(/\.jsonl$/, '')}`);
      expect(suite, name).toMatchObject({ kind: 'suite' });
      expect(suite!.tasks).toBeGreaterThan(0);
    }
    expect(list.find((s) => s.label === 'mine')).toMatchObject({
      kind: 'user',
      tasks: 1,
      path: join(home, 'tasks', 'mine'),
    });
    expect(passRates).toEqual([]);
    const text = await t1lab('tasks', 'sources');
    expect(text.stdout).toMatch(/^source\s+kind\s+tasks\s+invalid\s+resolved\s+path/m);
    expect(text.stdout).toContain(`${list.length} source(s), ${list.reduce((n, s) => n + s.tasks, 0)} task(s)`);
  }, 120_000);

  test('add-source refuses what is not a new source of tasks, and says why', async () => {
    const relative = await t1lab('tasks', 'add-source', 'elsewhere/my-suite');
    expect(relative.code).not.toBe(0);
    expect(relative.stderr).toContain('is a relative path');
    const missing = await t1lab('tasks', 'add-source', join(tmp.path, 'nope'));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('There is nothing at');
    const empty = join(tmp.path, 'empty');
    mkdirSync(empty);
    const none = await t1lab('tasks', 'add-source', empty);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('holds no task');
    const listed = await t1lab('tasks', 'add-source', join(home, 'tasks', 'mine'));
    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toContain('is already listed');
    expect(
      existsSync(join(home, 'settings.json')) &&
        JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).taskSources?.length,
    ).toBeFalsy();
  }, 120_000);

  test('an added folder is listed with its tasks and pass rates from the lab runs, then removed (its files stay)', async () => {
    const added = await t1lab('tasks', 'add-source', outside);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`added ${outside} (${QUICK_SUITE.length} task(s)); 1 added source(s)`);
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).taskSources).toEqual([outside]);
    const again = await t1lab('tasks', 'add-source', outside);
    expect(again.stderr).toContain('is already listed');

    // A run of the lab on two of its tasks: 3 of 4 episodes resolved.
    await writeRunFolder(
      join(home, 'runs'),
      '20261201-100000-eval-mine',
      [
        { task: 'make-hello', resolved: [true, true] },
        { task: 'sum-numbers', resolved: [true, false] },
      ],
      { suite: outside },
    );
    const { sources: list, passRates } = await sources();
    const source = list.find((s) => s.kind === 'added');
    expect(source).toMatchObject({
      label: 'added/my-suite',
      path: outside,
      tasks: QUICK_SUITE.length,
      episodes: 4,
      resolved: 3,
    });
    // The run's suite is the added folder: listed once, not again under runs/.
    expect(list.filter((s) => s.path === outside)).toHaveLength(1);
    expect(passRates.find((r) => r.taskId === 'make-hello')).toMatchObject({ runs: 1, episodes: 2, resolved: 2 });
    expect(passRates.find((r) => r.taskId === 'sum-numbers')).toMatchObject({ runs: 1, episodes: 2, resolved: 1 });

    const removed = await t1lab('tasks', 'remove-source', outside);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed ${outside}; 0 added source(s)`);
    const after = (await sources()).sources;
    expect(after.find((s) => s.kind === 'added')).toBeUndefined();
    // Still known through the run that was given it.
    expect(after.find((s) => s.path === outside)).toMatchObject({ label: 'runs/my-suite', kind: 'run' });
    expect(existsSync(join(outside, 'make-hello', 'task.toml'))).toBe(true);
    const twice = await t1lab('tasks', 'remove-source', outside);
    expect(twice.code).not.toBe(0);
    expect(twice.stderr).toContain('is not an added task source');
  }, 120_000);
});
