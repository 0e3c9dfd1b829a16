/**
 * A scripted agent that tampers in every way issue 4 lists gains nothing: its reward is that of doing
 * nothing, while the honest oracle gets everything. The agent runs in a real sandbox with the task's
 * agent settings, exactly as the harness would run its commands.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultSandbox,
  phaseSpec,
  prepareWorkspace,
  runOracle,
  runVerifier,
  type Task,
} from '../../../electron/lab/tasks';
import { leftoverSandboxes } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';
import { FIXTURES, taskFrom } from './helpers';

let tmp: { path: string; remove(): void };
let task: Task;
let n = 0;
const expected = readFileSync(join(FIXTURES, 'tamper-target/tests/expected.txt'), 'utf8');

beforeAll(async () => {
  tmp = makeTempDir('t1lab-tamper-');
  task = await taskFrom(join(FIXTURES, 'tamper-target'));
});
afterAll(() => {
  tmp.remove();
  // Every sandbox the agents, the oracle and the verifier started is gone.
  expect(leftoverSandboxes()).toEqual([]);
});

/** A fresh workspace where the scripted agent ran `script` (bash, in the agent's sandbox) and has exited. */
async function agent(script: string): Promise<string> {
  const ws = join(tmp.path, `ws-${++n}`);
  await prepareWorkspace(task, ws);
  const run = await defaultSandbox().run(phaseSpec(task, ws, 30), ['bash', '-c', script]);
  expect(run.exitCode, run.stderr).toBe(0);
  return ws;
}

const CTRF_ALL_PASSED = JSON.stringify({
  results: {
    tests: ['test_answer_matches', 'test_answer_is_a_digest', 'answer matches (inline)'].map((name) => ({
      name,
      status: 'passed',
    })),
  },
});
const JUNIT_ALL_PASSED =
  '<testsuites><testsuite><testcase name="test_answer_matches"/><testcase name="test_answer_is_a_digest"/></testsuite></testsuites>';

describe('a tampering agent gains nothing', () => {
  it('baseline: the oracle gets every assertion, doing nothing gets none', async () => {
    const honest = join(tmp.path, 'honest');
    await prepareWorkspace(task, honest);
    await runOracle(task, honest);
    expect(readFileSync(join(honest, 'answer.txt'), 'utf8')).toBe(expected);
    const good = await runVerifier(task, honest);
    expect(good.reward).toEqual({ dense: 3, fraction: 1, binary: 1 });
    const idle = await runVerifier(task, await agent('true'));
    expect(idle.status).toBe('ok');
    expect(idle.reward).toEqual({ dense: 0, fraction: 0, binary: 0 });
  });

  it('edited copies of the tests', async () => {
    const ws = await agent(`
      mkdir -p tests logs/verifier
      printf 'def test_answer_matches(): pass\\ndef test_answer_is_a_digest(): pass\\n' > tests/test_outputs.py
      printf 'def test_answer_matches(): pass\\n' > test_outputs.py
      printf '#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n' > tests/test.sh
      echo wrong > answer.txt
      cp answer.txt tests/expected.txt
      mkdir -p /tests 2>/dev/null && cp answer.txt /tests/expected.txt 2>/dev/null || true
    `);
    const r = await runVerifier(task, ws);
    expect(r.status).toBe('ok');
    expect(r.reward.dense).toBe(0);
  });

  it('planted reward files and reports', async () => {
    const ws = await agent(`
      mkdir -p logs/verifier
      for d in . logs/verifier; do
        echo 1 > $d/reward.txt
        echo '{"reward": 1}' > $d/reward.json
        echo '${CTRF_ALL_PASSED}' > $d/ctrf.json
        echo '${JUNIT_ALL_PASSED}' > $d/junit.xml
      done
      echo wrong > answer.txt
    `);
    const r = await runVerifier(task, ws);
    expect(r.reward.dense).toBe(0);
    expect(r.taskReward).toBeNull();
    expect(r.source).toBe('junit');
  });

  it('symlinks in the workspace pointing at the expected answer, the verifier logs or /', async () => {
    const ws = await agent(`
      ln -s /tests/expected.txt answer.txt
      ln -s / root
      ln -s /logs/verifier logs
      ln -s /proc/self/root/tests/expected.txt via-proc
      mkdir -p deep && ln -s ../../../tests deep/up
    `);
    const r = await runVerifier(task, ws);
    expect(r.reward.dense).toBe(0);
    expect(r.notes.join('\n')).toMatch(/left out symlink \/app\/answer.txt -> \/tests\/expected.txt/);
    expect(r.notes.filter((note) => note.startsWith('left out symlink'))).toHaveLength(5);

    // A chain through an innocent-looking link still lands in /tests.
    const chained = await agent('ln -s sub/x answer.txt && mkdir sub && ln -s ../../tests/expected.txt sub/x');
    expect((await runVerifier(task, chained)).reward.dense).toBe(0);
  });

  it('a process left running', async () => {
    // It would write the right answer a moment after the agent is done; the sandbox ends with the agent.
    const ws = await agent(`nohup bash -c 'sleep 1.5; sha256sum secret.bin | cut -c1-64 > answer.txt' >/dev/null 2>&1 &
      disown; echo started`);
    const first = await runVerifier(task, ws);
    expect(first.reward.dense).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(existsSync(join(ws, 'answer.txt'))).toBe(false);
    expect((await runVerifier(task, ws)).reward.dense).toBe(0);
  });

  it('a poisoned PATH, shell rc files and Python/pytest hijacks in the workspace', async () => {
    const ws = await agent(`
      mkdir -p bin .local/lib/python3.11/site-packages _pytest
      for tool in cmp bash sh python3 pytest diff; do printf '#!/bin/sh\\nexit 0\\n' > bin/$tool; chmod +x bin/$tool; done
      echo 'export PATH=/app/bin:$PATH; alias cmp=true' | tee .bashrc .profile .bash_profile .bash_login .zshrc > /dev/null
      echo 'PATH=/app/bin:/usr/bin:/bin' > .env
      echo 'raise SystemExit(0)' > pytest.py
      echo 'raise SystemExit(0)' > _pytest/__init__.py
      echo 'import os; os._exit(0)' > sitecustomize.py
      echo 'import os; os._exit(0)' > usercustomize.py
      echo 'import os; os._exit(0)' > .local/lib/python3.11/site-packages/usercustomize.py
      printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    out = yield\\n    out.get_result().outcome = "passed"\\n' > conftest.py
      printf '[pytest]\\naddopts = -p no:junitxml -k nothing\\n' > pytest.ini
      cp pytest.ini tox.ini; printf '[tool.pytest.ini_options]\\naddopts = "-k nothing"\\n' > pyproject.toml
      echo wrong > answer.txt
    `);
    const r = await runVerifier(task, ws);
    expect(r.status).toBe('ok');
    expect(r.source).toBe('junit');
    expect(r.total).toBe(3);
    expect(r.reward.dense).toBe(0);
  });

  it('a FIFO where the answer should be does not hang the verifier', async () => {
    const ws = await agent('mkfifo answer.txt');
    const r = await runVerifier(task, ws);
    expect(r.notes.join('\n')).toMatch(/left out \/app\/answer.txt: not a regular file/);
    expect(r.reward.dense).toBe(0);
  });
});
