import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { differences, pytestTests, removeTree, snapshotWorkspace } from '../../../electron/lab/tasks';
import { makeTempDir } from '../../helpers/tmp';

let tmp: { path: string; remove(): void };
beforeEach(() => (tmp = makeTempDir('t1lab-snapshot-')));
afterEach(() => removeTree(tmp.path));

describe('the verifier snapshot of a workspace', () => {
  it('copies files, folders, modes and internal symlinks; leaves out links into the verifier and special files', async () => {
    const ws = join(tmp.path, 'ws');
    mkdirSync(join(ws, 'sub/deeper'), { recursive: true });
    writeFileSync(join(ws, 'out.txt'), 'result\n');
    writeFileSync(join(ws, 'sub/deeper/run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    chmodSync(join(ws, 'sub'), 0o2755);
    symlinkSync('out.txt', join(ws, 'alias.txt'));
    symlinkSync('/app/sub/deeper/run.sh', join(ws, 'abs-inside'));
    symlinkSync('/usr/bin/python3', join(ws, 'python'));
    symlinkSync('/tests/expected.txt', join(ws, 'answer.txt'));
    symlinkSync('/', join(ws, 'root'));
    symlinkSync('../../logs/verifier', join(ws, 'sub/logs'));
    symlinkSync('/logs', join(ws, 'logs-parent'));
    symlinkSync('/proc/self/root/tests/expected.txt', join(ws, 'via-proc'));
    // A chain: hop -> sub/up -> .. of the workspace -> / : each link is judged where it finally lands.
    symlinkSync('../..', join(ws, 'sub/up'));
    symlinkSync('sub/up/tests', join(ws, 'hop'));
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    mkdirSync(join(ws, 'locked'));
    writeFileSync(join(ws, 'locked/inside.txt'), 'x');
    chmodSync(join(ws, 'locked'), 0o000);

    const dest = join(tmp.path, 'snap');
    const report = await snapshotWorkspace(ws, dest, '/app');

    expect(readlinkSync(join(dest, 'alias.txt'))).toBe('out.txt');
    expect(readlinkSync(join(dest, 'abs-inside'))).toBe('/app/sub/deeper/run.sh');
    expect(readlinkSync(join(dest, 'python'))).toBe('/usr/bin/python3');
    expect(statSync(join(dest, 'sub/deeper/run.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dest, 'sub')).mode & 0o7777).toBe(0o2755);
    expect(existsSync(join(dest, 'locked/inside.txt'))).toBe(true);
    for (const gone of ['answer.txt', 'root', 'sub/logs', 'logs-parent', 'via-proc', 'sub/up', 'hop', 'pipe']) {
      expect(() => lstatSync(join(dest, gone)), gone).toThrow();
    }
    expect(report.notes.join('\n')).toMatch(
      /left out symlink \/app\/answer.txt -> \/tests\/expected.txt: it reaches \/tests\/expected.txt/,
    );
    expect(report.notes.join('\n')).toMatch(/left out \/app\/pipe: not a regular file/);
    expect(report.files).toBe(3);
  });
});

describe('views of a task', () => {
  it('lists pytest tests with their source, classes included', () => {
    const tests = pytestTests(
      [
        'import os',
        '',
        'def helper():',
        '    pass',
        '',
        'def test_a():',
        '    assert 1',
        '',
        'class TestB:',
        '    def test_c(self):',
        '        assert 2',
        '',
        'def test_d(x):',
        '    pass',
      ].join('\n'),
    );
    expect(tests.map((t) => t.name)).toEqual(['test_a', 'TestB::test_c', 'test_d']);
    expect(tests[0]?.body).toBe('def test_a():\n    assert 1');
  });

  it('finds what changed between two runs', () => {
    const run = (...s: ('passed' | 'failed')[]) => s.map((status, i) => ({ name: `a${i}`, status, message: '' }));
    expect(differences(run('passed', 'passed'), run('passed', 'passed'))).toEqual([]);
    expect(differences(run('passed', 'passed'), run('passed', 'failed'))).toEqual(['a1']);
    expect(differences(run('passed'), run('passed', 'passed'))).toEqual(['a1']);
  });
});
