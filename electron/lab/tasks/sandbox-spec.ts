/**
 * How a task's settings become sandbox specs for each phase: set-up, the agent (or oracle), the verifier.
 * Each phase gets a fresh sandbox; only the workspace folder carries over from one to the next.
 */
import { access, constants } from 'node:fs/promises';
import { LabError } from '../../ipc/common/errors';
import { createSandboxBackend, defaultLimits, LIMIT_RANGES } from '../../../native/sandbox';
import type { Mount, SandboxBackend, SandboxLimits, SandboxSpec } from '../../../native/sandbox/types';
import type { Task } from './model';
import { containerSpec, containerWorkdir, type PhaseRuntime } from '../containers/runtime';

/** Where the verifier's inputs and outputs appear inside its sandbox (Harbor's paths). */
export const VERIFIER_TESTS_DIR = '/tests';
export const VERIFIER_LOGS_DIR = '/logs/verifier';
/** Where environment/ (setup.sh and its data) appears while setup.sh runs. */
export const SETUP_ENVIRONMENT_DIR = '/environment';
/** Where solution/ appears while the oracle runs (Harbor's oracle agent uses /solution too). */
export const ORACLE_SOLUTION_DIR = '/solution';

/** Deadline for environment/setup.sh when [environment].build_timeout_sec is not set. */
export const DEFAULT_SETUP_TIMEOUT_SEC = 300;
/** Enough for pytest, compilers and `make -j` inside one task, far below a fork bomb. */
const TASK_PROCESSES = 512;
const TASK_TMP_MB = 512;

let shared: SandboxBackend | null = null;

/** The lab's sandbox backend (bubblewrap), created on first use. */
export function defaultSandbox(): SandboxBackend {
  shared ??= createSandboxBackend();
  return shared;
}

function clamp(name: keyof SandboxLimits, value: number): number {
  const range = LIMIT_RANGES[name];
  return Math.min(range.max, Math.max(range.min, Math.ceil(value)));
}

/** Limits for one phase of a task that may run for `wallSeconds`. */
export function taskLimits(task: Task, wallSeconds: number): SandboxLimits {
  const env = task.environment;
  return defaultLimits({
    processes: TASK_PROCESSES,
    memoryMb: clamp('memoryMb', env.memoryMb),
    fileSizeMb: clamp('fileSizeMb', env.storageMb),
    cpuSeconds: clamp('cpuSeconds', wallSeconds * Math.max(1, env.cpus) + 5),
    workspaceMb: clamp('workspaceMb', env.storageMb),
    tmpMb: TASK_TMP_MB,
    wallSeconds: clamp('wallSeconds', Math.max(1, wallSeconds)),
  });
}

export function phaseSpec(
  task: Task,
  workspace: string,
  wallSeconds: number,
  extra: { mounts?: Mount[]; env?: Record<string, string> } = {},
): SandboxSpec {
  return {
    workspace,
    workdir: task.environment.workdir,
    mounts: extra.mounts ?? [],
    env: { ...task.environment.env, ...extra.env },
    net: task.environment.allowInternet,
    limits: taskLimits(task, wallSeconds),
    ...(task.environment.startDir ? { cwd: task.environment.startDir } : {}),
    ...(Object.keys(task.environment.commandAliases ?? {}).length
      ? { commandAliases: task.environment.commandAliases }
      : {}),
  };
}

/** Settings of one phase that depend on the backend: which backend runs it, and (containers) from which image. */
export interface PhaseRun {
  sandbox: SandboxBackend;
  spec: SandboxSpec;
}

/**
 * The backend and spec of one phase. Without a runtime (or a bubblewrap one) this is `phaseSpec` on the
 * default backend; in a container, the workdir is the image's, the network the runtime's, and the phase
 * starts from the state the previous one committed (`commit`: save this one's for the next).
 */
export async function phaseRun(
  task: Task,
  workspace: string,
  wallSeconds: number,
  extra: { mounts?: Mount[]; env?: Record<string, string> },
  options: { runtime?: PhaseRuntime; sandbox?: SandboxBackend; commit?: boolean; user?: string },
): Promise<PhaseRun> {
  const base = phaseSpec(task, workspace, wallSeconds, extra);
  const runtime = options.runtime;
  if (!runtime) return { sandbox: options.sandbox ?? defaultSandbox(), spec: base };
  base.net = runtime.network;
  if (!runtime.container) return { sandbox: runtime.sandbox, spec: base };
  const container = await containerSpec(task, runtime.container, workspace, {
    commit: options.commit ?? false,
    user: options.user,
  });
  const workdir = containerWorkdir(task, runtime.container);
  // A container has its image's own commands and its own start directory (the image's WORKDIR).
  const { commandAliases: _aliases, cwd: _cwd, ...rest } = base;
  return {
    sandbox: runtime.sandbox,
    spec: { ...rest, workdir, ...(runtime.container.image.taskImage ? {} : _cwd ? { cwd: _cwd } : {}), container },
  };
}

/**
 * The sandbox an agent works in for this task (the harness's pty shell, or a scripted agent's commands):
 * the prepared workspace at the task's workdir, its environment, network and limits, its deadline.
 */
export function agentSandboxSpec(task: Task, workspace: string): SandboxSpec {
  return phaseSpec(task, workspace, task.agent.timeoutSec);
}

/** Refuse early, with the fix, when a task cannot run here: it needs a container, or a command this machine lacks. */
export async function assertRunnable(task: Task, runtime?: PhaseRuntime): Promise<void> {
  if (runtime?.container) return;
  if (task.environment.runtime.kind === 'container') {
    throw new LabError(
      'UNAVAILABLE',
      `task '${task.id}' needs a container: it ${task.environment.runtime.reason}; run it with --backend auto (or podman/docker) where a container engine runs`,
    );
  }
  const missing: string[] = [];
  for (const command of task.environment.requires) {
    const dirs = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/local/sbin', '/usr/sbin', '/sbin'];
    const found = await Promise.any(dirs.map((d) => access(`${d}/${command}`, constants.X_OK))).then(
      () => true,
      () => false,
    );
    if (!found) missing.push(command);
  }
  if (missing.length) {
    throw new LabError(
      'UNAVAILABLE',
      `task '${task.id}' needs ${missing.map((m) => `'${m}'`).join(', ')}, which this machine lacks (install the Debian package that provides it)`,
    );
  }
}
