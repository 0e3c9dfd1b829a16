/**
 * The warm verifier (issue 16) gives the cold verifier's results: the same assertions, messages, reward,
 * notes and errors, for an honest agent, an idle one, one that tampers with python, pytest and the reports,
 * a test file that does not import, a test that overruns the deadline and a workspace above its cap.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  defaultSandbox,
  phaseSpec,
  prepareWorkspace,
  runOracle,
  runVerifier,
  type Task,
} from '../../../electron/lab/tasks';
import type { VerifierResult } from '../../../electron/lab/tasks/results';
import { prestartVerifier } from '../../../electron/lab/tasks/warm-verifier';
import { leftoverSandboxes } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';
import { FIXTURES, META, taskFrom } from './helpers';

let tmp: { path: string; remove(): void };
let tamperTarget: Task;
let n = 0;

beforeAll(async () => {
  tmp = makeTempDir('t1lab-warm-');
  tamperTarget = await taskFrom(join(FIXTURES, 'tamper-target'));
});
afterAll(() => {
  tmp.remove();
  expect(leftoverSandboxes()).toEqual([]);
});

async function agentWorkspace(task: Task, script: string): Promise<string> {
  const ws = join(tmp.path, `ws-${++n}`);
  await prepareWorkspace(task, ws);
  const run = await defaultSandbox().run(phaseSpec(task, ws, 30), ['bash', '-c', script]);
  expect(run.exitCode, run.stderr).toBe(0);
  return ws;
}

/** What must not differ between a cold and a warm run (durations and pytest's own timing lines aside). */
function comparable(r: VerifierResult) {
  const untimed = (text: string | null) => text?.replace(/in \d+\.\d+s/g, 'in Ns') ?? null;
  return {
    status: r.status,
    error: untimed(r.error),
    assertions: r.assertions.map((a) => ({ ...a, message: untimed(a.message) })),
    reward: r.reward,
    taskReward: r.taskReward,
    source: r.source,
    notes: r.notes,
    steps: r.steps.map((s) => ({
      name: s.name,
      argv: s.argv,
      exitCode: s.exitCode,
      signal: s.signal,
      timedOut: s.timedOut,
      limit: s.limit,
    })),
  };
}

/** The cold result, and the warm one with proof that its started sandboxes ran the steps. */
async function coldAndWarm(task: Task, ws: string): Promise<{ cold: VerifierResult; warm: VerifierResult }> {
  const cold = await runVerifier(task, ws);
  const started = await prestartVerifier(task, { sandbox: defaultSandbox() });
  expect(started).not.toBeNull();
  const steps = [started!.pytest, ...started!.assertions].filter((s) => s !== null);
  const spies = steps.map((s) => vi.spyOn(s, 'go'));
  const warm = await runVerifier(task, ws, { warm: started });
  for (const spy of spies) {
    expect(spy).toHaveBeenCalledTimes(1);
    expect(await spy.mock.results[0]!.value).not.toBeNull();
  }
  return { cold, warm };
}

describe('warm verifier', () => {
  it('gives the cold results for an honest, an idle and a tampering agent', async () => {
    const honest = join(tmp.path, 'honest');
    await prepareWorkspace(tamperTarget, honest);
    await runOracle(tamperTarget, honest);
    const good = await coldAndWarm(tamperTarget, honest);
    expect(good.warm.reward).toEqual({ dense: 3, fraction: 1, binary: 1 });
    expect(comparable(good.warm)).toEqual(comparable(good.cold));

    const idle = await coldAndWarm(tamperTarget, await agentWorkspace(tamperTarget, 'true'));
    expect(idle.warm.reward.dense).toBe(0);
    expect(comparable(idle.warm)).toEqual(comparable(idle.cold));

    const hijack = await agentWorkspace(
      tamperTarget,
      `mkdir -p bin _pytest logs/verifier
      echo 'raise SystemExit(0)' > pytest.py
      echo 'raise SystemExit(0)' > _pytest/__init__.py
      echo 'import os; os._exit(0)' > sitecustomize.py
      printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    out = yield\\n    out.get_result().outcome = "passed"\\n' > conftest.py
      printf '[pytest]\\naddopts = -p no:junitxml -k nothing\\n' > pytest.ini
      echo 1 > logs/verifier/reward.txt
      ln -s /tests/expected.txt answer.txt`,
    );
    const tampered = await coldAndWarm(tamperTarget, hijack);
    expect(tampered.warm.reward.dense).toBe(0);
    expect(comparable(tampered.warm)).toEqual(comparable(tampered.cold));
  });

  it('runs pytest as python -m pytest does (argv, sys.path, isolation)', async () => {
    const task = await taskFrom(join(tmp.path, 'argv'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test_outputs.py': [
        'import sys',
        'def test_argv():',
        '    assert sys.argv[0].endswith("/pytest/__main__.py"), sys.argv',
        '    assert sys.argv[1:3] == ["/tests/test_outputs.py", "--rootdir=/tests"], sys.argv',
        'def test_path():',
        '    assert "" not in sys.path and "/app" not in sys.path, sys.path',
        'def test_flags():',
        '    assert sys.flags.isolated == 1',
        '',
      ].join('\n'),
    });
    const { cold, warm } = await coldAndWarm(task, join(tmp.path, 'argv'));
    expect(warm.reward).toEqual({ dense: 3, fraction: 1, binary: 1 });
    expect(comparable(warm)).toEqual(comparable(cold));
  });

  it('gives the cold errors for a test file that does not import and a test past the deadline', async () => {
    const broken = await taskFrom(join(tmp.path, 'syntax'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test_outputs.py': 'def test_a(:\n    pass\n',
    });
    const b = await coldAndWarm(broken, join(tmp.path, 'syntax'));
    expect(b.warm.error).toMatch(/pytest exited with 2/);
    expect(comparable(b.warm)).toEqual(comparable(b.cold));

    const slow = await taskFrom(join(tmp.path, 'slow'), {
      'instruction.md': 'x',
      'task.toml': `${META}[verifier]\ntimeout_sec = 2\n`,
      'tests/test_outputs.py':
        'import time\ndef test_slow():\n    print("started checking", flush=True)\n    time.sleep(30)\n',
    });
    const s = await coldAndWarm(slow, join(tmp.path, 'slow'));
    expect(s.warm.status).toBe('error');
    expect(s.warm.steps[0]).toMatchObject({ timedOut: true, limit: 'wallSeconds' });
    expect(comparable(s.warm)).toEqual(comparable(s.cold));
  });

  it('gives the cold results for inline assertions: passed, failed with output, over their own deadline, over the CPU limit', async () => {
    const task = await taskFrom(join(tmp.path, 'inline'), {
      'instruction.md': 'x',
      'task.toml': [
        `${META}[verifier]\ntimeout_sec = 20\n`,
        '[[verifier.assertions]]\nname = "passes"\nrun = "test -f instruction.md && echo fine"\n',
        '[[verifier.assertions]]\nname = "fails with output"\nrun = "echo why >&2; exit 3"\n',
        '[[verifier.assertions]]\nname = "over its deadline"\nrun = "sleep 5"\ntimeout_sec = 1\n',
        '[[verifier.assertions]]\nname = "stdin is empty"\nrun = "test -z \\"$(cat)\\""\n',
        // The CPU rlimit it runs under, after the steps before it used more than a second of the deadline: the
        // warm sandbox started with the whole verifier's and lowers it to the cold step's.
        '[[verifier.assertions]]\nname = "cpu limit"\nrun = "echo cpu $(ulimit -St) $(ulimit -Ht); exit 1"\n',
      ].join('\n'),
    });
    const { cold, warm } = await coldAndWarm(task, join(tmp.path, 'inline'));
    expect(warm.assertions.map((a) => a.status)).toEqual(['passed', 'failed', 'failed', 'passed', 'failed']);
    expect(warm.assertions[2]!.message).toMatch(/did not finish within its 1 s/);
    // The CPU rlimit the assertion sees is the cold step's: what is left of the deadline x cpus + 5 s soft, a
    // second more hard, so below the whole verifier's (the warm sandbox started with that one and lowers it).
    // What is left is read when each assertion starts, so on a loaded machine warm and cold may differ by the
    // seconds between them; the formula is what must hold, the rest of the results must be equal.
    const whole = 20 * Math.max(1, task.environment.cpus) + 5;
    for (const r of [warm, cold]) {
      const m = /^exit 1: cpu (\d+) (\d+)$/.exec(r.assertions[4]!.message ?? '');
      expect(m, r.assertions[4]!.message ?? '').not.toBeNull();
      const [soft, hard] = [Number(m![1]), Number(m![2])];
      expect(hard).toBe(soft + 1);
      expect(soft).toBeLessThan(whole);
      expect(soft).toBeGreaterThan(5);
    }
    const cpuAside = (r: VerifierResult) => {
      const c = comparable(r);
      c.assertions[4] = { ...c.assertions[4]!, message: 'exit 1: cpu SOFT HARD' };
      return c;
    };
    expect(cpuAside(warm)).toEqual(cpuAside(cold));
  });

  it('gives the cold results where a test script runs first and inline assertions follow warm', async () => {
    const task = await taskFrom(join(tmp.path, 'offline'), {
      'instruction.md': 'x',
      'task.toml': `${META}[verifier]\ntimeout_sec = 30\nuse_test_sh = false\n\n[[verifier.assertions]]\nname = "what /tests holds"\nrun = "stat -c '%a %n' /tests/* /tests/.t1lab-offline-test.sh; exit 1"\n`,
      'tests/test.sh':
        '#!/bin/bash\napt-get install -y curl\ncurl -LsSf https://astral.sh/uv/install.sh | sh\nuvx -w pytest==8.4.1 pytest /tests/test_outputs.py -rA\n',
      'tests/test_outputs.py': 'def test_ok():\n    assert True\n',
    });
    const { cold, warm } = await coldAndWarm(task, join(tmp.path, 'offline'));
    expect(warm.mode).toBe('offline-script');
    expect(warm.assertions.at(-1)!.message).toMatch(/555 \/tests\/.t1lab-offline-test.sh/);
    expect(comparable(warm)).toEqual(comparable(cold));
  });

  it('measures the workspace allowance when the gate opens (a workspace above its cap stays allowed)', async () => {
    const task = await taskFrom(join(tmp.path, 'big'), {
      'instruction.md': 'x',
      'task.toml': `${META}[environment]\nstorage_mb = 1\n`,
      'tests/test_outputs.py':
        'import os\ndef test_big():\n    assert os.path.getsize("/app/big.bin") == 3 * 1024 * 1024\n',
    });
    const ws = join(tmp.path, 'big-ws');
    await prepareWorkspace(task, ws);
    writeFileSync(join(ws, 'big.bin'), Buffer.alloc(3 * 1024 * 1024));
    const { cold, warm } = await coldAndWarm(task, ws);
    expect(warm.reward.binary).toBe(1);
    expect(warm.steps[0]!.limit).toBeNull();
    expect(comparable(warm)).toEqual(comparable(cold));
  });

  it('starts cold where a warm start does not apply (a test script runs first)', async () => {
    const scripted = await taskFrom(join(tmp.path, 'script'), {
      'instruction.md': 'x',
      'task.toml': META,
      'tests/test.sh': '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n',
    });
    expect(await prestartVerifier(scripted, { sandbox: defaultSandbox() })).toBeNull();
  });

  it('an unused warm verifier stops its sandbox and removes its folder', async () => {
    const started = await prestartVerifier(tamperTarget, { sandbox: defaultSandbox() });
    expect(started).not.toBeNull();
    await started!.dispose();
    expect(leftoverSandboxes()).toEqual([]);
    expect(() => readFileSync(join(started!.dirs.tests, 'test_outputs.py'))).toThrow();
    expect(await started!.pytest!.go(10)).toBeNull();
    expect(await started!.assertions[0]!.go(10)).toBeNull();
  });
});
