/**
 * The audit (issue 4): verifier integrity enforced by execution, not judged by a model. Per task:
 * the oracle then the verifier (every assertion must pass); a no-op agent then the verifier (any assertion
 * that passes is trivially true); the oracle a second time (any assertion that changes is flaky).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { AssertionResult, AuditResult, AuditVerdict } from '../../domain/tasks';
import type { Task } from './model';
import { formatProblem } from './problems';
import { outputTail, stepCrashed, type VerifierResult } from './results';
import { assertRunnable } from './sandbox-spec';
import { dropState, resolvePhaseRuntime } from '../containers/runtime';
import type { ContainerSettings } from '../containers/settings';
import { removeTree } from './snapshot';
import type { InvalidTask } from './source';
import { runVerifier } from './verifier';
import { prepareWorkspace, runOracle, type PhaseOptions } from './workspace';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';

export interface AuditOptions extends PhaseOptions {
  /** Called as each step of a task starts ('oracle', 'verify oracle', 'no-op', ...). */
  onStep?: (step: string) => void;
  /** Keep each run's workspace and verifier logs under KEEP/<task id>/ (for task authors). */
  keepDir?: string;
  /** Backend choice and images (each task's runtime is resolved from these unless `runtime` is given). */
  containers?: ContainerSettings;
}

/** The audit result plus what the runs showed, for the Tasks page. */
export interface AuditOutcome {
  result: AuditResult;
  oracle: AssertionResult[] | null;
  noop: AssertionResult[] | null;
  oracleAgain: AssertionResult[] | null;
  durationMs: number;
}

const MAX_NAMES = 5;

function names(list: string[]): string {
  const shown = list
    .slice(0, MAX_NAMES)
    .map((n) => `'${n}'`)
    .join(', ');
  return list.length > MAX_NAMES ? `${shown} and ${list.length - MAX_NAMES} more` : shown;
}

const count = (v: VerifierResult | null) => (v ? { passed: v.passed, total: v.total } : null);

export function invalidAudit(bad: InvalidTask): AuditOutcome {
  return {
    result: {
      id: bad.id,
      oracle: null,
      noop: null,
      flaky: false,
      verdict: 'invalid',
      reason: bad.problems
        .filter((p) => p.severity === 'error')
        .map(formatProblem)
        .join('; '),
    },
    oracle: null,
    noop: null,
    oracleAgain: null,
    durationMs: 0,
  };
}

/** One task's audit: its runtime resolved and checked, then its runs judged (auditRuns); its workspaces removed after. */
export async function auditTask(task: Task, options: AuditOptions = {}): Promise<AuditOutcome> {
  const finish = outcomeRecorder(task, performance.now());
  const root = await makeOwnedTempDir('audit', options.tmpDir);
  try {
    if (options.keepDir) await removeTree(join(options.keepDir, task.id));
    let runtime: PhaseOptions['runtime'];
    try {
      runtime = await runnableRuntime(task, options);
    } catch (error) {
      return finish('error', (error as Error).message, {});
    }
    return await auditRuns(task, episodeRunner(task, root, { ...options, runtime }), finish);
  } catch (error) {
    const message = error instanceof LabError || error instanceof Error ? error.message : String(error);
    if (error instanceof LabError && error.code === 'CANCELLED') throw error;
    return finish('error', message, {});
  } finally {
    await removeTree(root);
  }
}

class OracleFailed extends Error {}

type AuditRuns = { oracle: VerifierResult; noop: VerifierResult; again: VerifierResult | null; flaky: boolean };
type Finish = (verdict: AuditVerdict, reason: string, runs: Partial<AuditRuns>) => AuditOutcome;
/** One run of the task in a fresh workspace, the oracle in it or not, then the verifier. */
type Episode = (label: string, withOracle: boolean) => Promise<VerifierResult>;

/** The outcome of a task's audit: its verdict and reason, what the runs it got to showed, and the time since `started`. */
function outcomeRecorder(task: Task, started: number): Finish {
  return (verdict, reason, runs) => ({
    result: {
      id: task.id,
      oracle: count(runs.oracle ?? null),
      noop: count(runs.noop ?? null),
      flaky: runs.flaky ?? false,
      verdict,
      reason,
    },
    oracle: runs.oracle?.assertions ?? null,
    noop: runs.noop?.assertions ?? null,
    oracleAgain: runs.again?.assertions ?? null,
    durationMs: Math.round(performance.now() - started),
  });
}

/** The runtime the task's runs use (the one given, or resolved from the container settings: its image), checked
 * to be one the task can run in. Throws when it cannot: the audit's verdict is then an error. */
async function runnableRuntime(task: Task, options: AuditOptions): Promise<PhaseOptions['runtime']> {
  let runtime = options.runtime;
  if (!runtime && options.containers) {
    options.onStep?.('image');
    runtime = await resolvePhaseRuntime(task, options.containers);
  }
  await assertRunnable(task, runtime);
  return runtime;
}

/** The runs in order, each verdict as soon as one decides it: no oracle (the no-op alone), then the oracle, the
 * no-op agent and the oracle again, judged together. */
async function auditRuns(task: Task, episode: Episode, finish: Finish): Promise<AuditOutcome> {
  if (!task.solution) {
    const noop = await episode('no-op', false);
    if (noop.status === 'error')
      return finish('error', `the verifier failed on the no-op run: ${noop.error}`, { noop });
    return finish(
      'no-oracle',
      'the task has no oracle solution (solution/solve.sh), so its verifier cannot be checked',
      {
        noop,
      },
    );
  }
  let oracle: VerifierResult;
  try {
    oracle = await episode('oracle', true);
  } catch (error) {
    if (error instanceof OracleFailed) return finish('broken-oracle', error.message, {});
    throw error;
  }
  if (oracle.status === 'error')
    return finish('error', `the verifier failed on the oracle run: ${oracle.error}`, { oracle });
  const noop = await episode('no-op', false);
  if (noop.status === 'error')
    return finish('error', `the verifier failed on the no-op run: ${noop.error}`, { oracle, noop });
  const { again, flakyNames } = await runOracleAgain(episode, oracle);
  return judge(finish, { oracle, noop, again, flaky: flakyNames.length > 0 }, flakyNames);
}

/** Runs the task's episodes, numbered in order, each in its own workspace (under KEEP/<task id>/ with keepDir, else
 * under `root`); a container runtime's state for the workspace is dropped after each. */
function episodeRunner(task: Task, root: string, options: AuditOptions): Episode {
  let n = 0;
  return async (label, withOracle) => {
    const name = `${++n}-${label.replace(/\W+/g, '-')}`;
    const workspace = options.keepDir ? join(options.keepDir, task.id, name) : join(root, name);
    try {
      return await runEpisode(task, workspace, label, withOracle, options);
    } finally {
      await dropState(options.runtime?.container ?? null, workspace).catch(() => {});
    }
  };
}

/** Prepare a fresh workspace, optionally run the oracle in it, then verify it. */
async function runEpisode(
  task: Task,
  workspace: string,
  label: string,
  withOracle: boolean,
  options: AuditOptions,
): Promise<VerifierResult> {
  options.onStep?.(`${label}: set-up`);
  await prepareWorkspace(task, workspace, options);
  if (withOracle) await runOracleIn(task, workspace, label, options);
  options.onStep?.(`${label}: verifier`);
  return runVerifier(task, workspace, {
    ...options,
    keepLogsDir: options.keepDir ? `${workspace}.verifier` : undefined,
  });
}

/** The oracle solution in the workspace (its output kept beside it with keepDir); OracleFailed if it did not finish. */
async function runOracleIn(task: Task, workspace: string, label: string, options: AuditOptions): Promise<void> {
  options.onStep?.(`${label}: solution`);
  const step = await runOracle(task, workspace, options);
  if (options.keepDir)
    await writeFile(
      `${workspace}.oracle.log`,
      `exit ${step.exitCode ?? step.signal}${step.timedOut ? ' (timed out)' : ''}\n--- stdout\n${step.stdout}\n--- stderr\n${step.stderr}\n`,
    );
  const crashed = stepCrashed(step);
  if (crashed)
    throw new OracleFailed(
      `the oracle solution did not finish: ${crashed} (agent timeout ${task.agent.timeoutSec} s):\n${outputTail(step, 1500)}`,
    );
}

/** The oracle a second time: the assertions whose result changed (flaky), or the oracle itself when it did not finish again. */
async function runOracleAgain(
  episode: Episode,
  oracle: VerifierResult,
): Promise<{ again: VerifierResult | null; flakyNames: string[] }> {
  let again: VerifierResult | null = null;
  let flakyNames: string[];
  try {
    again = await episode('oracle again', true);
    flakyNames = differences(oracle.assertions, again.assertions);
  } catch (error) {
    if (!(error instanceof OracleFailed)) throw error;
    flakyNames = ['(the oracle itself: it finished the first time, not the second)'];
  }
  if (again?.status === 'error') flakyNames.push(`(verifier: ${again.error?.split('\n')[0]})`);
  return { again, flakyNames };
}

/** The verdict from the three runs: broken-oracle, trivial, flaky or ok (with the guard assertions a no-op passes as a warning). */
function judge(finish: Finish, runs: AuditRuns, flakyNames: string[]): AuditOutcome {
  const { oracle, noop } = runs;
  const failing = oracle.assertions.filter((a) => a.status !== 'passed');
  if (failing.length) {
    const first = failing[0] as AssertionResult;
    return finish(
      'broken-oracle',
      `with the oracle solution ${failing.length} of ${oracle.total} assertion(s) fail: ${names(failing.map((a) => a.name))} (first: ${first.message.split('\n')[0] || first.status})`,
      runs,
    );
  }
  // trivial = the no-op run resolves the task (binary reward 1). Assertions a no-op passes while the task
  // stays unresolved are guards (e.g. "the input file is untouched"): warnings, listed, not a verdict.
  const passedByNoop = noop.assertions.filter((a) => a.status === 'passed').map((a) => a.name);
  const guards = noop.reward.binary === 1 ? [] : passedByNoop;
  const warn = guards.length
    ? `; warning: ${guards.length} guard assertion(s) pass without work: ${names(guards)}`
    : '';
  const withGuards = (o: AuditOutcome): AuditOutcome => (guards.length ? { ...o, result: { ...o.result, guards } } : o);
  if (noop.reward.binary === 1)
    return finish(
      'trivial',
      `the no-op agent resolves the task: all ${noop.total} assertion(s) pass without any work`,
      runs,
    );
  if (runs.flaky)
    return withGuards(
      finish('flaky', `a second oracle run changed ${flakyNames.length} result(s): ${names(flakyNames)}${warn}`, runs),
    );
  return withGuards(
    finish(
      'ok',
      `all ${oracle.total} assertion(s) pass with the oracle, the no-op agent does not resolve the task, and the same twice${warn}`,
      runs,
    ),
  );
}

/** Names of assertions whose status differs between two runs (or that exist in only one). */
export function differences(a: AssertionResult[], b: AssertionResult[]): string[] {
  const first = new Map(a.map((x) => [x.name, x.status]));
  const second = new Map(b.map((x) => [x.name, x.status]));
  const out: string[] = [];
  for (const [name, status] of first) if (second.get(name) !== status) out.push(name);
  for (const name of second.keys()) if (!first.has(name)) out.push(name);
  return out;
}

export interface AuditProgressEvent {
  done: number;
  total: number;
  current: { id: string; step: string } | null;
  finished: AuditOutcome | null;
  /** Index in the `tasks` given of the task this event is about. */
  index: number;
}

/** Audit many tasks, `concurrency` at a time, reporting progress; results in the order of `tasks`. */
export async function auditTasks(
  tasks: Task[],
  options: AuditOptions & { concurrency?: number; onProgress?: (e: AuditProgressEvent) => void } = {},
): Promise<AuditOutcome[]> {
  const results: AuditOutcome[] = new Array(tasks.length);
  let next = 0;
  let done = 0;
  const total = tasks.length;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      const task = tasks[index] as Task;
      options.onProgress?.({ done, total, current: { id: task.id, step: 'starting' }, finished: null, index });
      const outcome = await auditTask(task, {
        ...options,
        onStep: (step) => options.onProgress?.({ done, total, current: { id: task.id, step }, finished: null, index }),
      });
      results[index] = outcome;
      done++;
      options.onProgress?.({ done, total, current: null, finished: outcome, index });
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 1, tasks.length || 1));
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
