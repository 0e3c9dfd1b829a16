import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LabError } from '../../../electron/ipc/common/errors';
import { prepareWorkspace, runOracle, runVerifier, verifyReport } from '../../../electron/lab/tasks';
import { leftoverSandboxes } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';
import { META, taskFrom } from './helpers';

let tmp: { path: string; remove(): void };
beforeEach(() => (tmp = makeTempDir('t1lab-verifier-')));
afterEach(() => {
  tmp.remove();
  expect(leftoverSandboxes()).toEqual([]);
});

function workspace(files: Record<string, string> = {}): string {
  const dir = join(tmp.path, `ws-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  for (const [p, c] of Object.entries(files)) writeFileSync(join(dir, p), c);
  return dir;
}

describe('per-assertion results', () => {
  it('takes the CTRF report of tests/test.sh, appends inline assertions, keeps reward.txt as the task verdict', async () => {
    const task = await taskFrom(join(tmp.path, 'ctrf'), {
      'instruction.md': 'x',
      'task.toml': `${META}[verifier]\ntimeout_sec = 60\n[[verifier.assertions]]\nname = "inline ok"\nrun = "test -f a"\n[[verifier.assertions]]\nname = "inline fails"\nrun = "echo nope >&2; exit 3"\n`,
      'tests/test.sh': [
        '#!/bin/bash',
        'a=failed; [ -f /app/a ] && a=passed',
        'printf \'{"results":{"tests":[{"name":"has a","status":"%s"},{"name":"never","status":"failed","message":"by design"}]}}\' "$a" > /logs/verifier/ctrf.json',
        'echo 0.5 > /logs/verifier/reward.txt',
        'exit 1',
      ].join('\n'),
    });
    const result = await runVerifier(task, workspace({ a: '' }));
    expect(result.status).toBe('ok');
    expect(result.source).toBe('ctrf');
    expect(result.assertions).toEqual([
      { name: 'has a', status: 'passed', message: '' },
      { name: 'never', status: 'failed', message: 'by design' },
      { name: 'inline ok', status: 'passed', message: '' },
      { name: 'inline fails', status: 'failed', message: 'exit 3: nope' },
    ]);
    expect(result.reward).toEqual({ dense: 2, fraction: 0.5, binary: 0 });
    expect(result.taskReward).toEqual({ source: 'reward.txt', value: 0.5, values: { reward: 0.5 } });
    expect(verifyReport(result)).toEqual({
      task: 'ctrf',
      assertions: result.assertions,
      passed: 2,
      total: 4,
      reward: result.reward,
      durationMs: result.durationMs,
    });
  });

  it('runs tests/test_outputs.py with the system pytest and reads its JUnit XML', async () => {
    const task = await taskFrom(join(tmp.path, 'junit'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test_outputs.py':
        'from pathlib import Path\n\ndef test_a():\n    assert Path("/app/a").read_text() == "1"\n\ndef test_b():\n    assert Path("/app/b").exists()\n',
    });
    const keep = join(tmp.path, 'logs');
    const result = await runVerifier(task, workspace({ a: '1' }), { keepLogsDir: keep });
    expect(result.source).toBe('junit');
    expect(result.assertions.map((a) => [a.name, a.status])).toEqual([
      ['test_a', 'passed'],
      ['test_b', 'failed'],
    ]);
    expect(result.assertions[1]?.message).toMatch(/assert False/);
    expect(readFileSync(join(keep, 'junit.xml'), 'utf8')).toContain('test_b');
    expect(readFileSync(join(keep, 'steps.log'), 'utf8')).toMatch(/## pytest \(exit 1/);
  });

  it('judges a test script without reports by its reward file, else by its exit code', async () => {
    const byReward = await taskFrom(join(tmp.path, 'reward'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test.sh': '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\nexit 7\n',
    });
    expect((await runVerifier(byReward, workspace())).assertions).toEqual([
      { name: 'tests/test.sh', status: 'passed', message: '' },
    ]);
    const byExit = await taskFrom(join(tmp.path, 'exit'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test.sh': '#!/bin/bash\necho "missing file" >&2\nexit 4\n',
    });
    const r = await runVerifier(byExit, workspace());
    expect(r.status).toBe('ok');
    expect(r.assertions).toEqual([
      { name: 'tests/test.sh', status: 'failed', message: expect.stringMatching(/^exit 4: missing file/) },
    ]);
  });
});

describe('a verifier that fails is an error, never a silent zero', () => {
  it('times out with status error and keeps its output', async () => {
    const task = await taskFrom(join(tmp.path, 'slow'), {
      'instruction.md': 'x',
      'task.toml': `${META}[verifier]\ntimeout_sec = 2\n`,
      'tests/test.sh': '#!/bin/bash\necho "started checking"\nsleep 30\n',
    });
    const result = await runVerifier(task, workspace());
    expect(result.status).toBe('error');
    expect(result.error).toMatch(/tests\/test.sh timed out/);
    expect(result.error).toContain('started checking');
    expect(result.assertions.at(-1)).toMatchObject({
      name: '(verifier)',
      status: 'error',
      message: expect.stringContaining('started checking'),
    });
  });

  it('reports a test file that does not import, and a malformed CTRF report', async () => {
    const broken = await taskFrom(join(tmp.path, 'syntax'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test_outputs.py': 'def test_a(:\n    pass\n',
    });
    const r1 = await runVerifier(broken, workspace());
    expect(r1.status).toBe('error');
    expect(r1.error).toMatch(/pytest exited with 2/);
    const badCtrf = await taskFrom(join(tmp.path, 'badctrf'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test.sh': '#!/bin/bash\necho "{not json" > /logs/verifier/ctrf.json\n',
    });
    const r2 = await runVerifier(badCtrf, workspace());
    expect(r2.status).toBe('error');
    expect(r2.error).toMatch(/ctrf.json is not valid JSON/);
  });

  it('fails an inline assertion that overruns its own deadline without failing the verifier', async () => {
    const task = await taskFrom(join(tmp.path, 'own-timeout'), {
      'instruction.md': 'x',
      'task.toml': `${META}[verifier]\ntimeout_sec = 60\n[[verifier.assertions]]\nname = "fast enough"\nrun = "sleep 20"\ntimeout_sec = 1\n[[verifier.assertions]]\nname = "after"\nrun = "true"\n`,
    });
    const r = await runVerifier(task, workspace());
    expect(r.status).toBe('ok');
    expect(r.assertions).toEqual([
      { name: 'fast enough', status: 'failed', message: 'did not finish within its 1 s' },
      { name: 'after', status: 'passed', message: '' },
    ]);
  });

  it('reads reports without following symlinks planted by a test script', async () => {
    const task = await taskFrom(join(tmp.path, 'linked'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/fake.json': '{"results":{"tests":[{"name":"x","status":"passed"}]}}',
      'tests/test.sh': '#!/bin/bash\nln -s /tests/fake.json /logs/verifier/ctrf.json\nexit 1\n',
    });
    const r = await runVerifier(task, workspace());
    expect(r.notes).toContainEqual(expect.stringMatching(/report refused: ctrf.json is a symlink/));
    expect(r.assertions).toEqual([
      { name: 'tests/test.sh', status: 'failed', message: expect.stringMatching(/^exit 1/) },
    ]);
  });
});

describe('workspaces', () => {
  it('prepares environment/files and runs setup.sh in the sandbox with /environment readable', async () => {
    const task = await taskFrom(join(tmp.path, 'prep'), {
      'instruction.md': 'x',
      'task.toml': `${META}[environment]\nenv = { GREETING = "hi" }\n[[verifier.assertions]]\nname = "made"\nrun = "test -f made.txt"\n`,
      'environment/files/data/input.txt': 'input\n',
      'environment/files/run.sh': '#!/bin/sh\necho run\n',
      'environment/extra.txt': 'from the environment folder\n',
      'environment/setup.sh':
        '#!/bin/bash\nset -e\ncp /environment/extra.txt . && echo "$GREETING $(pwd)" > setup-ran.txt\n',
      'solution/solve.sh': '#!/bin/bash\ntouch made.txt\n',
    });
    const ws = join(tmp.path, 'prepared');
    const { setup } = await prepareWorkspace(task, ws);
    expect(setup?.exitCode).toBe(0);
    expect(readFileSync(join(ws, 'data/input.txt'), 'utf8')).toBe('input\n');
    expect(statSync(join(ws, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(ws, 'extra.txt'), 'utf8')).toBe('from the environment folder\n');
    expect(readFileSync(join(ws, 'setup-ran.txt'), 'utf8')).toBe('hi /app\n');
    await expect(prepareWorkspace(task, ws)).rejects.toMatchObject({ code: 'CONFLICT' });

    expect((await runVerifier(task, ws)).passed).toBe(0);
    const oracle = await runOracle(task, ws);
    expect(oracle.exitCode).toBe(0);
    expect((await runVerifier(task, ws)).passed).toBe(1);
  });

  it('fails set-up with its output; verifying never changes the agent workspace', async () => {
    const failing = await taskFrom(join(tmp.path, 'setup-fails'), {
      'instruction.md': 'x',
      'task.toml': `${META}[[verifier.assertions]]\nname = "a"\nrun = "true"\n`,
      'environment/setup.sh': '#!/bin/bash\necho "no data set" >&2\nexit 3\n',
    });
    const error = await prepareWorkspace(failing, join(tmp.path, 'w1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LabError);
    expect((error as LabError).message).toMatch(/setup.sh of 'setup-fails' failed \(exit 3\):\nno data set/);

    const writer = await taskFrom(join(tmp.path, 'writer'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test.sh': '#!/bin/bash\necho x > /app/verifier-was-here\nrm -f /app/keep\n',
    });
    const ws = workspace({ keep: 'agent output' });
    await runVerifier(writer, ws);
    expect(existsSync(join(ws, 'verifier-was-here'))).toBe(false);
    expect(readFileSync(join(ws, 'keep'), 'utf8')).toBe('agent output');
  });

  it('refuses container tasks, missing commands and missing workspaces with the reason', async () => {
    const container = await taskFrom(join(tmp.path, 'container'), {
      'instruction.md': 'x',
      'task.toml': `${META}[environment]\ndocker_image = "x/y:1"\n[[verifier.assertions]]\nname = "a"\nrun = "true"\n`,
    });
    await expect(runVerifier(container, workspace())).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/needs a container: it uses the prebuilt image 'x\/y:1'/),
    });
    const needs = await taskFrom(join(tmp.path, 'needs'), {
      'instruction.md': 'x',
      'task.toml': `${META}[environment]\nrequires = ["bash", "no-such-tool-t1lab"]\n[[verifier.assertions]]\nname = "a"\nrun = "true"\n`,
    });
    await expect(prepareWorkspace(needs, join(tmp.path, 'w2'))).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/'no-such-tool-t1lab'/),
    });
    const ok = await taskFrom(join(tmp.path, 'ok'), {
      'instruction.md': 'x',
      'task.toml': `${META}[[verifier.assertions]]\nname = "a"\nrun = "true"\n`,
    });
    await expect(runVerifier(ok, join(tmp.path, 'nope'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
