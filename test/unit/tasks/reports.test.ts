import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeReward, parseCtrf, parseJunit } from '../../../electron/lab/tasks';
import { readTaskReward } from '../../../electron/lab/tasks/reports/reward-file';
import { readReport } from '../../../electron/lab/tasks/reports/safe-read';
import { makeTempDir } from '../../helpers/tmp';

let tmp: { path: string; remove(): void };
beforeEach(() => (tmp = makeTempDir('t1lab-reports-')));
afterEach(() => tmp.remove());

describe('CTRF', () => {
  it('maps statuses; anything but passed does not pass', () => {
    const report = {
      results: {
        tool: { name: 'pytest' },
        summary: { tests: 4, passed: 1, failed: 1 },
        tests: [
          { name: 'test_a', status: 'passed', duration: 1 },
          { name: 'test_b', status: 'failed', message: 'assert 1 == 2', trace: 'line 3' },
          { name: 'test_c', status: 'skipped' },
          { name: 'test_d', status: 'other' },
        ],
      },
    };
    const parsed = parseCtrf(JSON.stringify(report));
    expect(parsed).toEqual({
      ok: true,
      assertions: [
        { name: 'test_a', status: 'passed', message: '' },
        { name: 'test_b', status: 'failed', message: 'assert 1 == 2\nline 3' },
        { name: 'test_c', status: 'failed', message: 'skipped (not passed)' },
        { name: 'test_d', status: 'failed', message: 'other (not passed)' },
      ],
    });
  });

  it('refuses what is not a CTRF report', () => {
    expect(parseCtrf('{')).toMatchObject({ ok: false, reason: expect.stringMatching(/not valid JSON/) });
    expect(parseCtrf('{"results": {"tests": [{"status": "passed"}]}}')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/results\.tests\.0\.name/),
    });
  });
});

describe('JUnit XML', () => {
  it('reads what pytest --junitxml really writes', () => {
    const dir = join(tmp.path, 'py');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'test_x.py'),
      [
        'import pytest',
        'def test_ok(): assert True',
        'def test_fail(): assert 1 == 2, "one is not two & <never>"',
        '@pytest.mark.skip(reason="later")',
        'def test_skip(): pass',
        '@pytest.fixture',
        'def broken(): raise RuntimeError("fixture broke")',
        'def test_error(broken): pass',
        'class TestGroup:',
        '    def test_ok(self): pass',
        '@pytest.mark.parametrize("n", [1, 2])',
        'def test_param(n): assert n == 1',
      ].join('\n'),
    );
    try {
      execFileSync(
        '/usr/bin/python3',
        [
          '-I',
          '-m',
          'pytest',
          join(dir, 'test_x.py'),
          `--rootdir=${dir}`,
          '-p',
          'no:cacheprovider',
          `--junitxml=${join(dir, 'junit.xml')}`,
        ],
        { stdio: 'pipe' },
      );
    } catch {
      // pytest exits 1: some tests fail on purpose
    }
    const xml = execFileSync('cat', [join(dir, 'junit.xml')]).toString();
    const parsed = parseJunit(xml);
    if (!parsed.ok) throw new Error(parsed.reason);
    const byName = Object.fromEntries(parsed.assertions.map((a) => [a.name, a]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        'test_x.TestGroup::test_ok',
        'test_error',
        'test_fail',
        'test_param[1]',
        'test_param[2]',
        'test_skip',
        'test_x::test_ok',
      ].sort(),
    );
    expect(byName.test_fail?.status).toBe('failed');
    expect(byName.test_fail?.message).toContain('one is not two & <never>');
    expect(byName.test_error).toMatchObject({ status: 'error', message: expect.stringContaining('fixture broke') });
    expect(byName.test_skip).toMatchObject({ status: 'failed', message: expect.stringMatching(/^skipped/) });
    expect(byName['test_param[1]']?.status).toBe('passed');
    expect(byName['test_param[2]']?.status).toBe('failed');
  });

  it('refuses DOCTYPE/ENTITY declarations and non-JUnit documents', () => {
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><testsuites><testsuite><testcase name="&b;"/></testsuite></testsuites>';
    expect(parseJunit(bomb)).toMatchObject({ ok: false, reason: expect.stringMatching(/DOCTYPE/) });
    expect(parseJunit('<html></html>')).toMatchObject({ ok: false });
    expect(
      parseJunit('<testsuite><testcase name="a"/><testcase name="b"><failure message="no"/></testcase></testsuite>'),
    ).toEqual({
      ok: true,
      assertions: [
        { name: 'a', status: 'passed', message: '' },
        { name: 'b', status: 'failed', message: 'no' },
      ],
    });
  });
});

describe('reading reports safely', () => {
  it('never follows a symlink, never blocks on a FIFO, caps the size', async () => {
    writeFileSync(join(tmp.path, 'outside.json'), '{"results": {"tests": []}}');
    symlinkSync(join(tmp.path, 'outside.json'), join(tmp.path, 'ctrf.json'));
    execFileSync('mkfifo', [join(tmp.path, 'junit.xml')]);
    writeFileSync(join(tmp.path, 'big.txt'), 'x'.repeat(100));
    expect(await readReport(tmp.path, 'ctrf.json')).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/symlink/),
    });
    expect(await readReport(tmp.path, 'junit.xml')).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/not a regular file/),
    });
    expect(await readReport(tmp.path, 'big.txt', 10)).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/over the 10-byte limit/),
    });
    expect(await readReport(tmp.path, 'absent')).toEqual({ kind: 'missing' });
    expect(await readReport(tmp.path, 'outside.json')).toEqual({ kind: 'ok', text: '{"results": {"tests": []}}' });
  });

  it("keeps the task's own reward.json / reward.txt verdict", async () => {
    writeFileSync(join(tmp.path, 'reward.txt'), '0.5\n');
    expect((await readTaskReward(tmp.path)).reward).toEqual({
      source: 'reward.txt',
      value: 0.5,
      values: { reward: 0.5 },
    });
    writeFileSync(join(tmp.path, 'reward.json'), '{"reward": 0.75, "tests_passed": 3, "note": "x"}');
    expect((await readTaskReward(tmp.path)).reward).toEqual({
      source: 'reward.json',
      value: 0.75,
      values: { reward: 0.75, tests_passed: 3 },
    });
    writeFileSync(join(tmp.path, 'reward.json'), 'nope');
    const broken = await readTaskReward(tmp.path);
    expect(broken.reward?.source).toBe('reward.txt');
    expect(broken.notes[0]).toMatch(/reward.json is not valid JSON/);
  });
});

describe('rewards', () => {
  it('computes dense, fraction and binary together', () => {
    const a = (status: 'passed' | 'failed' | 'error') => ({ name: status, status, message: '' });
    expect(computeReward([a('passed'), a('failed'), a('passed'), a('error')])).toEqual({
      dense: 2,
      fraction: 0.5,
      binary: 0,
    });
    expect(computeReward([a('passed'), a('passed')])).toEqual({ dense: 2, fraction: 1, binary: 1 });
    expect(computeReward([])).toEqual({ dense: 0, fraction: 0, binary: 0 });
  });
});
