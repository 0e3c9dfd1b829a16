/**
 * The verifier run (issue 4). After the agent is done and its processes are dead, in a fresh sandbox:
 * workdir = a snapshot of the agent's final workspace, /tests = a pristine read-only copy of the task's
 * tests, /logs/verifier = a fresh folder. Per-assertion results come, in order, from a CTRF report, the
 * JUnit XML of the lab's own pytest run, and inline assertions (each its own sandbox, judged by its exit
 * code as the host sees it); reward.json / reward.txt is kept as the task's own verdict. Nothing the
 * agent left in its workspace is read by the lab; reports are read without following symlinks.
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { AssertionResult } from '../../domain/tasks';
import { fileText, type Task } from './model';
import { clip, parseCtrf } from './reports/ctrf';
import { parseJunit } from './reports/junit';
import { readTaskReward } from './reports/reward-file';
import { readReport } from './reports/safe-read';
import { outputTail, stepCrashed, stepResult, type StepResult, type VerifierResult } from './results';
import { computeReward, countPassed } from './reward';
import { assertRunnable, phaseRun, VERIFIER_LOGS_DIR, VERIFIER_TESTS_DIR } from './sandbox-spec';
import { LAB_PYTEST_FUNCTION, offlineTestScript, withPytestFunction } from './import/offline-tests';
import { unreachableHost } from '../containers/reachable';
import { removeTree, snapshotWorkspace } from './snapshot';
import { DEFAULT_STEP_OUTPUT_CHARS, type PhaseOptions } from './workspace';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';
import {
  inSandboxTests,
  labPytestArgs,
  makeReadOnly,
  sandboxMode,
  SYSTEM_PYTHON,
  VERIFIER_BASH,
  verifierDirs,
  verifierEnv,
  verifierMounts,
  writeVerifierInputs,
  type ContainerMode,
} from './verifier-setup';
import type { WarmStep, WarmVerifier } from './warm-verifier';

export { SYSTEM_PYTHON } from './verifier-setup';

const BASH = VERIFIER_BASH;
/** pytest exits 0 (all passed) or 1 (some failed) when it ran normally; other codes mean it did not. */
const PYTEST_EXIT_MEANING: Record<number, string> = {
  2: 'interrupted (often a collection error: the test file failed to import)',
  3: 'an internal error',
  4: 'a usage error',
  5: 'no tests collected',
};

export interface VerifyOptions extends PhaseOptions {
  /** Copy the verifier's logs (reports, reward files) and each step's output here. */
  keepLogsDir?: string;
  /** Called as each step starts, for progress displays. */
  onStep?: (name: string) => void;
  /**
   * The verifier's sandbox started ahead (warm-verifier.ts; sandbox runs only): its folder is used and its
   * pytest runs the pytest step. runVerifier disposes of it.
   */
  warm?: WarmVerifier | null;
}

/** The converted test script's name inside the container's /tests (its own copy: the task's test.sh is kept). */
const OFFLINE_SCRIPT = '.t1lab-offline-test.sh';
/** Interpreters tried, in order, for the lab's pytest run in a container (the image's python first). */
const CONTAINER_PYTHONS = ['python3', 'python', '/usr/local/bin/python3', '/usr/bin/python3'];

/**
 * How the verifier runs in a container: tests/test.sh as written when the network allows it (it usually
 * installs uv and pytest); otherwise the script with its install steps dropped and the lab's pytest in
 * place of uvx's; otherwise the lab runs tests/test_outputs.py itself.
 */
async function containerMode(task: Task, network: boolean): Promise<ContainerMode> {
  const script = task.verifier.testScript;
  const text = script ? fileText(task, script) : null;
  const missing = network && text !== null ? await unreachableHost(text) : null;
  if (script && network && !missing)
    return { kind: 'test-sh', why: `${script} as written: the network is on and what it fetches answers` };
  if (script) {
    const offline = text === null ? null : offlineTestScript(text);
    if (offline?.ok) {
      return {
        kind: 'offline-script',
        script: withPytestFunction(offline.script, CONTAINER_PYTHONS, `${VERIFIER_LOGS_DIR}/junit.xml`),
        why: `${missing ? `network on but ${missing} does not answer` : 'network off'}: ${script} without its ${offline.dropped.length} install step(s), pytest run by the lab`,
      };
    }
    if (task.verifier.pytest)
      return {
        kind: 'pytest',
        why: `network off and ${script} cannot run offline (${offline?.reason ?? 'not text'}): the lab runs ${task.verifier.pytest}`,
      };
    return { kind: 'test-sh', why: `${script} as written (network off; it has no pytest run to replace)` };
  }
  return { kind: 'pytest', why: `no test script: the lab runs ${task.verifier.pytest ?? 'the inline assertions'}` };
}

/** One verification in progress: its task, folders and mode, the steps run, and what they said. */
interface Verification {
  task: Task;
  options: VerifyOptions;
  /** The agent's workspace as it was left. */
  source: string;
  container: NonNullable<NonNullable<VerifyOptions['runtime']>['container']> | null;
  dirs: ReturnType<typeof verifierDirs>;
  warm: WarmVerifier | null;
  mode: ContainerMode | ReturnType<typeof sandboxMode>;
  deadline: number;
  steps: StepResult[];
  notes: string[];
  errors: string[];
}

export async function runVerifier(
  task: Task,
  workspaceDir: string,
  options: VerifyOptions = {},
): Promise<VerifierResult> {
  await assertRunnable(task, options.runtime);
  const source = resolve(workspaceDir);
  const info = await stat(source).catch(() => null);
  if (!info?.isDirectory()) throw new LabError('NOT_FOUND', `workspace ${workspaceDir} is not a folder`);
  const container = options.runtime?.container ?? null;
  const started = performance.now();
  const warm = container ? null : (options.warm ?? null);
  if (options.warm && !warm) await options.warm.dispose();
  const dirs = warm?.dirs ?? verifierDirs(await makeOwnedTempDir('verify', options.tmpDir));
  const v: Verification = {
    task,
    options,
    source,
    container,
    dirs,
    warm,
    mode: null,
    deadline: started + task.verifier.timeoutSec * 1000,
    steps: [],
    notes: [],
    errors: [],
  };
  try {
    await prepare(v);
    const setupMs = performance.now() - started;
    const scriptStep = await runTestScript(v);
    const pytestStep = await runPytest(v);
    const reportsStarted = performance.now();
    let { assertions, source: sourceKind } = await readReports(v, pytestStep);
    const { reward: taskReward, notes: rewardNotes } = await readTaskReward(dirs.logs);
    v.notes.push(...rewardNotes);
    const reportsMs = performance.now() - reportsStarted;
    // A test script without per-test reports is one assertion: its reward file if it wrote one, else its exit code.
    if (
      sourceKind === 'none' &&
      scriptStep &&
      !stepCrashed(scriptStep) &&
      !pytestStep &&
      v.mode?.kind !== 'offline-script'
    ) {
      sourceKind = 'test-script';
      assertions = [scriptAssertion(task.verifier.testScript as string, scriptStep, taskReward)];
    }
    if (task.verifier.assertions.length) {
      assertions.push(...(await runInlineAssertions(v)));
      if (sourceKind === 'none') sourceKind = 'inline';
    }

    if (assertions.length === 0 && v.errors.length === 0) v.errors.push('the verifier reported no assertions');
    const error = v.errors.length ? v.errors.join('\n\n') : null;
    // Never a silent zero: a crashed verifier shows up as an assertion in error with its output.
    if (error) assertions.push({ name: '(verifier)', status: 'error', message: clip(error, 4000) });

    const keepStarted = performance.now();
    if (options.keepLogsDir) await keepLogs(dirs.logs, v.steps, options.keepLogsDir);
    const keepLogsMs = performance.now() - keepStarted;
    const { passed, total } = countPassed(assertions);
    return {
      task: task.id,
      ...(v.mode ? { mode: v.mode.kind } : {}),
      status: error ? 'error' : 'ok',
      error,
      assertions,
      passed,
      total,
      reward: computeReward(assertions),
      taskReward,
      source: sourceKind,
      steps: v.steps,
      notes: v.notes,
      durationMs: Math.round(performance.now() - started),
      timings: { setupMs, stepsMs: v.steps.reduce((n, s) => n + s.durationMs, 0), reportsMs, keepLogsMs },
    };
  } finally {
    await warm?.dispose();
    await removeTree(dirs.root);
  }
}

/** The workspace snapshot, the verifier's inputs (tests/, logs/) and its mode. */
async function prepare(v: Verification): Promise<void> {
  const { task, dirs, container } = v;
  const snapshot = await snapshotWorkspace(v.source, dirs.work, task.environment.workdir);
  v.notes.push(...snapshot.notes);
  // A warm start wrote its tests/ and logs/ (and has no test script to add) before the agent was done.
  if (!v.warm) await writeVerifierInputs(task, dirs);
  v.mode = container ? await containerMode(task, v.options.runtime?.network ?? false) : sandboxMode(task);
  if (v.mode) {
    v.notes.push(`verifier mode: ${v.mode.kind} (${v.mode.why})`);
    if (v.mode.kind === 'offline-script')
      await writeFile(join(dirs.tests, OFFLINE_SCRIPT), v.mode.script, { mode: 0o755 });
  }
  // The sandbox's /tests is read-only (a pristine copy); a container's is a fresh writable one.
  // (Again after a warm start: the offline script was just added.)
  if (!container) await makeReadOnly(dirs.tests);
}

/** One step in its own sandbox (or the warm one), with what is left of the verifier's deadline (or less). */
async function runStep(
  v: Verification,
  name: string,
  argv: string[],
  capSeconds?: number,
  warmStep?: WarmStep | null,
): Promise<StepResult> {
  v.options.onStep?.(name);
  const left = (v.deadline - performance.now()) / 1000;
  if (left <= 0.05) {
    const step: StepResult = {
      name,
      argv,
      exitCode: null,
      signal: null,
      timedOut: true,
      limit: 'wallSeconds',
      durationMs: 0,
      stdout: '',
      stderr: 'not started: the verifier deadline had passed',
    };
    v.steps.push(step);
    return step;
  }
  const seconds = capSeconds === undefined ? left : Math.min(capSeconds, left);
  const warmResult = warmStep ? await warmStep.go(seconds, v.options.signal) : null;
  const result = warmResult ?? (await coldRun(v, seconds, argv));
  if (result.aborted) throw new LabError('CANCELLED', `verification of '${v.task.id}' was cancelled`);
  const step = stepResult(name, argv, result);
  // The deadline that fired was the verifier's own unless the step had a shorter cap of its own.
  if (step.timedOut && capSeconds !== undefined && capSeconds < left) step.limit = 'assertion timeout';
  v.steps.push(step);
  return step;
}

async function coldRun(v: Verification, seconds: number, argv: string[]) {
  const { task, options, container, dirs } = v;
  // In a container the verifier starts from the state the agent left (committed when its shell ended), as root.
  const { sandbox, spec } = await phaseRun(
    task,
    container ? v.source : dirs.work,
    seconds,
    { mounts: verifierMounts(dirs), env: verifierEnv(task) },
    { runtime: options.runtime, sandbox: options.sandbox, user: container ? '0' : undefined },
  );
  if (container) spec.workspace = dirs.work;
  return sandbox.run(spec, argv, {
    signal: options.signal,
    maxOutputChars: options.maxOutputChars ?? DEFAULT_STEP_OUTPUT_CHARS,
  });
}

/** 1. The task's test script (tests/test.sh; TB1 run-tests.sh), unless replaced by the lab's pytest run. */
async function runTestScript(v: Verification): Promise<StepResult | null> {
  const { task, mode } = v;
  let step: StepResult | null = null;
  if (mode?.kind === 'offline-script')
    step = await runStep(v, `${task.verifier.testScript} (offline)`, [
      ...BASH,
      `${VERIFIER_TESTS_DIR}/${OFFLINE_SCRIPT}`,
    ]);
  else if (task.verifier.testScript && (mode ? mode.kind === 'test-sh' : task.verifier.runTestScript))
    step = await runStep(v, task.verifier.testScript, [...BASH, inSandboxTests(task.verifier.testScript)]);
  const crashed = step && stepCrashed(step);
  if (step && crashed) v.errors.push(`${crashed}:\n${outputTail(step)}`);
  return step;
}

/** 2. tests/test_outputs.py with the system pytest (the image's in a container), unless the test script already wrote a report. */
async function runPytest(v: Verification): Promise<StepResult | null> {
  const { task, dirs } = v;
  const reported =
    (await readReport(dirs.logs, 'ctrf.json')).kind !== 'missing' ||
    (await readReport(dirs.logs, 'junit.xml')).kind !== 'missing';
  if (!task.verifier.pytest || reported) return null;
  let step: StepResult;
  if (v.container) {
    const fn = withPytestFunction(
      `${LAB_PYTEST_FUNCTION} ${inSandboxTests(task.verifier.pytest)} --rootdir=${VERIFIER_TESTS_DIR}`,
      CONTAINER_PYTHONS,
      `${VERIFIER_LOGS_DIR}/junit.xml`,
    );
    step = await runStep(v, 'pytest', [...BASH, '-c', fn]);
  } else {
    // -I: isolated, no cwd or user site on sys.path, PYTHON* variables ignored. A warm start runs the same.
    step = await runStep(
      v,
      'pytest',
      [SYSTEM_PYTHON, '-I', '-m', 'pytest', ...labPytestArgs(task)],
      undefined,
      v.warm?.pytest,
    );
  }
  const crashed = stepCrashed(step);
  if (crashed) v.errors.push(`${crashed}:\n${outputTail(step)}`);
  else if (step.exitCode !== 0 && step.exitCode !== 1) {
    v.errors.push(
      `pytest exited with ${step.exitCode}: ${PYTEST_EXIT_MEANING[step.exitCode as number] ?? 'an unknown failure'}:\n${outputTail(step)}`,
    );
  }
  return step;
}

/** The per-test reports, in order: CTRF, then JUnit. */
async function readReports(
  v: Verification,
  pytestStep: StepResult | null,
): Promise<{ assertions: AssertionResult[]; source: VerifierResult['source'] }> {
  const { logs } = v.dirs;
  const ctrf = await readReport(logs, 'ctrf.json');
  const junit = ctrf.kind === 'ok' ? ({ kind: 'missing' } as const) : await readReport(logs, 'junit.xml');
  for (const r of [ctrf, junit]) if (r.kind === 'refused') v.notes.push(`report refused: ${r.reason}`);
  if (ctrf.kind === 'ok') {
    const parsed = parseCtrf(ctrf.text);
    if (parsed.ok) return { assertions: parsed.assertions, source: 'ctrf' };
    v.errors.push(parsed.reason);
  } else if (junit.kind === 'ok') {
    const parsed = parseJunit(junit.text);
    if (parsed.ok) return { assertions: parsed.assertions, source: 'junit' };
    v.errors.push(parsed.reason);
  } else if (pytestStep && !stepCrashed(pytestStep)) {
    v.errors.push(`pytest wrote no JUnit report (exit ${pytestStep.exitCode}):\n${outputTail(pytestStep)}`);
  }
  return { assertions: [], source: 'none' };
}

/** A test script's one assertion: its reward file if it wrote one, else its exit code. */
function scriptAssertion(
  name: string,
  step: StepResult,
  taskReward: Awaited<ReturnType<typeof readTaskReward>>['reward'],
): AssertionResult {
  if (taskReward?.value !== null && taskReward?.value !== undefined) {
    return {
      name,
      status: taskReward.value >= 1 ? 'passed' : 'failed',
      message: taskReward.value >= 1 ? '' : `${taskReward.source} says ${taskReward.value}`,
    };
  }
  return {
    name,
    status: step.exitCode === 0 ? 'passed' : 'failed',
    message: step.exitCode === 0 ? '' : clip(`exit ${step.exitCode}: ${outputTail(step, 1000)}`),
  };
}

/** 3. Inline assertions: each in its own sandbox; the exit code the host sees is the verdict. */
async function runInlineAssertions(v: Verification): Promise<AssertionResult[]> {
  const out: AssertionResult[] = [];
  for (const [i, a] of v.task.verifier.assertions.entries()) {
    const step = await runStep(
      v,
      `assertion: ${a.name}`,
      [...BASH, '-c', a.run],
      a.timeoutSec ?? undefined,
      v.warm?.assertions[i],
    );
    if (step.timedOut && step.limit === 'assertion timeout') {
      out.push({ name: a.name, status: 'failed', message: `did not finish within its ${a.timeoutSec} s` });
    } else if (stepCrashed(step)) {
      v.errors.push(`inline assertion '${a.name}': ${stepCrashed(step)}:\n${outputTail(step)}`);
      out.push({ name: a.name, status: 'error', message: clip(`${stepCrashed(step)}: ${outputTail(step, 1000)}`) });
    } else {
      const why = outputTail(step, 1000);
      out.push({
        name: a.name,
        status: step.exitCode === 0 ? 'passed' : 'failed',
        message: step.exitCode === 0 ? '' : clip(`exit ${step.exitCode}${why ? `: ${why}` : ''}`),
      });
    }
  }
  return out;
}

/** Copy the logs folder's regular files (never symlinks) and each step's output to `dest`. */
async function keepLogs(logs: string, steps: StepResult[], dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  for (const name of await readdir(logs)) {
    const r = await readReport(logs, name);
    if (r.kind === 'ok') await writeFile(join(dest, name), r.text);
  }
  const text = steps
    .map(
      (s) =>
        `## ${s.name} (exit ${s.exitCode ?? s.signal ?? 'none'}${s.timedOut ? ', timed out' : ''}, ${s.durationMs} ms)\n$ ${s.argv.join(' ')}\n--- stdout\n${s.stdout}\n--- stderr\n${s.stderr}\n`,
    )
    .join('\n');
  await writeFile(join(dest, 'steps.log'), text);
}
