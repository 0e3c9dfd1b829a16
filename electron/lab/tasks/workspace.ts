/**
 * Before the agent starts: a fresh workspace with environment/files/ copied in, then environment/setup.sh
 * run inside the sandbox (cwd = workdir, environment/ readable at /environment). Also the oracle: the
 * reference solution run in its own sandbox on a prepared workspace.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { SandboxBackend } from '../../../native/sandbox/types';
import { filesUnder, TASK_PATHS, type Task } from './model';
import { outputTail, stepCrashed, stepResult, type StepResult } from './results';
import { dropState, type PhaseRuntime } from '../containers/runtime';
import {
  assertRunnable,
  DEFAULT_SETUP_TIMEOUT_SEC,
  ORACLE_SOLUTION_DIR,
  phaseRun,
  SETUP_ENVIRONMENT_DIR,
} from './sandbox-spec';
import { removeTree } from './snapshot';
import { solutionScript } from './solution';
import { writeFiles } from './write-folder';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';

export interface PhaseOptions {
  sandbox?: SandboxBackend;
  signal?: AbortSignal;
  /** Where temporary folders go (default: the OS temp dir). */
  tmpDir?: string;
  /** Output kept per stream of each step. */
  maxOutputChars?: number;
  /** The backend (and container image) chosen for the task; default: bubblewrap as `sandbox`. */
  runtime?: PhaseRuntime;
}

export const DEFAULT_STEP_OUTPUT_CHARS = 200_000;
const BASH = ['bash', '--noprofile', '--norc'];

/**
 * Fill `dir` (created if missing; must be empty) with the task's starting state. Throws LabError when the
 * task cannot run here or setup.sh fails (the message holds its output).
 */
export async function prepareWorkspace(
  task: Task,
  dir: string,
  options: PhaseOptions = {},
): Promise<{ setup: StepResult | null }> {
  await assertRunnable(task, options.runtime);
  const workspace = resolve(dir);
  await mkdir(workspace, { recursive: true });
  if ((await readdir(workspace)).length > 0)
    throw new LabError('CONFLICT', `workspace ${workspace} is not empty; prepareWorkspace needs a fresh folder`);
  const container = options.runtime?.container ?? null;
  // A fresh workspace starts from the image, never from a state an earlier user of the path left.
  await dropState(container, workspace);
  // The task's own image is its starting state (Harbor): nothing to copy, nothing to set up.
  if (container?.image.taskImage) return { setup: null };
  await writeFiles(workspace, filesUnder(task, TASK_PATHS.filesDir));
  if (!task.environment.setup) return { setup: null };

  const envDir = await makeOwnedTempDir('setup', options.tmpDir);
  try {
    await writeFiles(
      envDir,
      filesUnder(task, TASK_PATHS.environmentDir).filter((f) => !f.path.startsWith('files/')),
      { readOnly: true },
    );
    const argv = [...BASH, `${SETUP_ENVIRONMENT_DIR}/setup.sh`];
    const { sandbox, spec } = await phaseRun(
      task,
      workspace,
      task.environment.setupTimeoutSec ?? DEFAULT_SETUP_TIMEOUT_SEC,
      { mounts: [{ host: envDir, sandbox: SETUP_ENVIRONMENT_DIR, readOnly: true }] },
      { runtime: options.runtime, sandbox: options.sandbox, commit: true },
    );
    // setup.sh starts in the workdir: the start folder of the agent may be one it creates.
    delete spec.cwd;
    const run = await sandbox.run(spec, argv, {
      signal: options.signal,
      maxOutputChars: options.maxOutputChars ?? DEFAULT_STEP_OUTPUT_CHARS,
    });
    const step = stepResult('setup', argv, run);
    if (run.aborted) throw new LabError('CANCELLED', `setup of '${task.id}' was cancelled`);
    const crashed = stepCrashed(step);
    if (crashed || step.exitCode !== 0) {
      throw new LabError(
        'INTERNAL',
        `environment/setup.sh of '${task.id}' failed (${crashed ?? `exit ${step.exitCode}`}):\n${outputTail(step)}`,
        { step },
      );
    }
    return { setup: step };
  } finally {
    await removeTree(envDir);
  }
}

/**
 * Run the oracle (solution/solve.sh, TB1 solution.sh or solution.yaml) in a fresh sandbox on a prepared
 * workspace, as an agent would: solution/ readable at /solution, deadline = the agent timeout.
 */
export async function runOracle(task: Task, workspaceDir: string, options: PhaseOptions = {}): Promise<StepResult> {
  await assertRunnable(task, options.runtime);
  const script = solutionScript(task);
  if (script === null) throw new LabError('NOT_FOUND', `task '${task.id}' has no oracle solution`);
  const solutionDir = await makeOwnedTempDir('solution', options.tmpDir);
  try {
    const files =
      task.solution?.kind === 'script' && task.solution.path === TASK_PATHS.solve ? filesUnder(task, 'solution') : [];
    if (!files.some((f) => f.path === 'solve.sh'))
      files.push({ path: 'solve.sh', data: new TextEncoder().encode(script), executable: true });
    await writeFiles(solutionDir, files, { readOnly: true });
    const argv = [...BASH, `${ORACLE_SOLUTION_DIR}/solve.sh`];
    const { sandbox, spec } = await phaseRun(
      task,
      resolve(workspaceDir),
      task.agent.timeoutSec,
      { mounts: [{ host: solutionDir, sandbox: ORACLE_SOLUTION_DIR, readOnly: true }], env: task.solutionEnv },
      { runtime: options.runtime, sandbox: options.sandbox, commit: true },
    );
    const run = await sandbox.run(spec, argv, {
      signal: options.signal,
      maxOutputChars: options.maxOutputChars ?? DEFAULT_STEP_OUTPUT_CHARS,
    });
    if (run.aborted) throw new LabError('CANCELLED', `oracle of '${task.id}' was cancelled`);
    return stepResult('oracle', argv, run);
  } finally {
    await removeTree(solutionDir);
  }
}
