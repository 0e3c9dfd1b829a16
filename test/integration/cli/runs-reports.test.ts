/**
 * Saved reports from the shell: `t1lab runs report RUN... --save NAME` keeps a report under a name (the
 * Runs page lists the same files), `t1lab runs reports [list] | show | rename | rm` read and change them, and
 * `t1lab runs report --saved NAME --out FILE` writes one as HTML. An unknown or duplicate name and a
 * damaged report file each give an error naming the report or file, and change nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeRunFolder } from '../../helpers/runs';
import { makeTempDir } from '../../helpers/tmp';
import { writeTrainingRun } from '../../helpers/training-run';

const home = makeTempDir();
const data = join(home.path, 'data');
const env = { T1LAB_HOME: data };
const reports = join(data, 'reports');
const TRAINING = '20261201-100000-ppo-cli';

beforeAll(async () => {
  await writeRunFolder(join(data, 'runs'), 'eval-a', [{ task: 't0', resolved: [true] }]);
  await writeRunFolder(join(home.path, 'elsewhere'), 'outside', [{ task: 't0', resolved: [true] }]);
  writeTrainingRun(data, TRAINING, { steps: 4, seed: 1 });
});

afterAll(() => home.remove());

const t1lab = (...args: string[]) => runT1lab(args, { env });

describe('t1lab runs reports', () => {
  test('save a report by name, list it, show it, write it as HTML', async () => {
    const saved = await t1lab('runs', 'report', 'eval-a', TRAINING, '--save', 'Seeds', '--title', 'Seeds', '--json');
    expect(saved.code, saved.stderr).toBe(0);
    expect(parseJsonOutput(saved)).toMatchObject({
      file: null,
      saved: { id: 'seeds', name: 'Seeds', file: join(reports, 'seeds.json'), link: '#/runs/report/seeds' },
    });

    const list = await t1lab('runs', 'reports', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(parseJsonOutput(list)).toMatchObject({
      dir: reports,
      reports: [{ id: 'seeds', name: 'Seeds', evalRuns: ['eval-a'], trainingRuns: [TRAINING] }],
      problems: [],
    });
    const text = await t1lab('runs', 'reports', 'list');
    expect(text.stdout).toMatch(/^name\s+id\s+title/);
    expect(text.stdout).toMatch(/Seeds\s+seeds\s+Seeds\s+1\s+1/);

    const shown = await t1lab('runs', 'reports', 'show', 'seeds', '--json');
    expect(parseJsonOutput(shown)).toMatchObject({
      name: 'Seeds',
      title: 'Seeds',
      metrics: ['reward_dense', 'resolved'],
      link: '#/runs/report/seeds',
    });

    const out = join(home.path, 'seeds.html');
    const written = await t1lab('runs', 'report', '--saved', 'Seeds', '--out', out, '--json');
    expect(written.code, written.stderr).toBe(0);
    expect(parseJsonOutput(written)).toMatchObject({
      file: out,
      title: 'Seeds',
      evalRuns: [{ id: 'eval-a' }],
      trainingRuns: [TRAINING],
    });
    expect(readFileSync(out, 'utf8')).toContain('<h1>Seeds</h1>');
  });

  test('a duplicate name, an unknown name, a run outside the data folder: errors, nothing changed', async () => {
    const before = readFileSync(join(reports, 'seeds.json'), 'utf8');
    const dup = await t1lab('runs', 'report', 'eval-a', '--save', ' SEEDS ');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain(`a report named 'Seeds' exists (${join(reports, 'seeds.json')})`);
    const unknown = await t1lab('runs', 'reports', 'show', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`no report 'nope' in ${reports} (saved: Seeds)`);
    const outside = await t1lab('runs', 'report', join(home.path, 'elsewhere', 'outside'), '--save', 'Out');
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('is not a run of the data folder');
    expect(readFileSync(join(reports, 'seeds.json'), 'utf8')).toBe(before);
    expect(existsSync(join(reports, 'out.json'))).toBe(false);
  });

  test('a damaged file is listed by its path; rename and rm change only the named report', async () => {
    const broken = join(reports, 'broken.json');
    writeFileSync(broken, '{"schema":');
    const list = await t1lab('runs', 'reports');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('Seeds');
    expect(list.stderr).toContain(`cannot read a report: ${broken}: not JSON`);

    const renamed = await t1lab('runs', 'reports', 'rename', 'Seeds', 'Final', '--json');
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(parseJsonOutput(renamed)).toMatchObject({ id: 'seeds', name: 'Final', link: '#/runs/report/seeds' });
    const rmBroken = await t1lab('runs', 'reports', 'rm', 'broken');
    expect(rmBroken.code).toBe(1);
    expect(rmBroken.stderr).toContain(`${broken}: not JSON`);

    const removed = await t1lab('runs', 'reports', 'rm', 'Final', '--json');
    expect(parseJsonOutput(removed)).toEqual({
      id: 'seeds',
      name: 'Final',
      file: join(reports, 'seeds.json'),
      removed: true,
    });
    expect(existsSync(join(reports, 'seeds.json'))).toBe(false);
    expect(readFileSync(broken, 'utf8')).toBe('{"schema":');
  });
});
