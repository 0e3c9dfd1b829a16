/**
 * A verifier started ahead (issue 16). Most of a pytest verifier's time is pytest importing itself (about
 * 0.23 CPU-s of ~200 modules on the 2-core machine, before any test runs), and none of that depends on the
 * agent's work. So the episode starts the verifier's own sandbox when the episode starts: same namespaces,
 * seccomp program, rlimits, mounts and environment as a cold start, its /tests written and read-only, its
 * workspace folder still empty. Inside, the system python imports pytest and waits on stdin. When the agent
 * is done, the snapshot fills the workspace folder (the same folder the sandbox has bound at the workdir),
 * and the gate opens: the wall clock, the host monitor and the workspace allowance start then, and pytest
 * runs as `python -m pytest` would. The sandbox is used once, for one episode, and never shared.
 *
 * Nothing of the workspace is read before the gate opens (python runs with -I: no cwd on sys.path). Where
 * the warm process is gone when the verifier needs it, the verifier starts cold.
 */
import { mkdir } from 'node:fs/promises';
import type { RunGateOpen, RunResult, SandboxBackend } from '../../../native/sandbox/types';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';
import type { PhaseRuntime } from '../containers/runtime';
import type { Task } from './model';
import { phaseRun, taskLimits } from './sandbox-spec';
import { removeTree } from './snapshot';
import { labPytestArgs, makeReadOnly, pytestRunsFirst, SYSTEM_PYTHON, verifierDirs, verifierEnv, verifierMounts, writeVerifierInputs, type VerifierDirs } from './verifier-setup';
import { DEFAULT_STEP_OUTPUT_CHARS } from './workspace';

const GO = 'go\n';

/**
 * The python program of the warm process: import pytest and the built-in plugins pytest would import at
 * start-up, wait for the go line, then run pytest exactly as `python -m pytest ARGS` does (runpy, with
 * sys.argv[0] the module's path). Without the go line (stdin closed) it exits without running anything.
 */
const DRIVER = [
  'import importlib, runpy, sys',
  'import pytest',
  'from _pytest import config',
  'for name in getattr(config, "default_plugins", ()):',
  '    try:',
  '        importlib.import_module("_pytest." + name)',
  '    except Exception:',
  '        pass',
  `if sys.stdin.readline() != ${JSON.stringify(GO)}:`,
  '    sys.exit(0)',
  'runpy.run_module("pytest", run_name="__main__", alter_sys=True)',
].join('\n');

export interface WarmVerifier {
  dirs: VerifierDirs;
  /**
   * Let pytest run (the verifier's pytest step), with the wall-clock deadline a cold step would get. null
   * when the warm process is no longer there (or was already used): start cold instead.
   */
  go(wallSeconds: number, signal?: AbortSignal): Promise<RunResult | null>;
  /** Stop it if unused, wait for its sandbox to end and remove its folder. Idempotent. */
  dispose(): Promise<void>;
}

export interface PrestartOptions {
  sandbox: SandboxBackend;
  runtime?: PhaseRuntime;
  tmpDir?: string;
  maxOutputChars?: number;
}

/** The verifier's sandbox started ahead, or null where a warm start does not apply (see pytestRunsFirst). */
export async function prestartVerifier(task: Task, options: PrestartOptions): Promise<WarmVerifier | null> {
  // Containers run their image's python, other backends have no gate: they start cold.
  if (options.runtime?.container || options.sandbox.name !== 'bubblewrap' || !pytestRunsFirst(task)) return null;
  const dirs = verifierDirs(await makeOwnedTempDir('verify', options.tmpDir));
  let open: (value: RunGateOpen | null) => void = () => {};
  const gate = new Promise<RunGateOpen | null>((resolve) => (open = resolve));
  let result: Promise<RunResult>;
  try {
    await writeVerifierInputs(task, dirs);
    await makeReadOnly(dirs.tests);
    // The workspace folder is bound as it is now (empty) and filled by the snapshot before the gate opens.
    await mkdir(dirs.work);
    const { sandbox, spec } = await phaseRun(task, dirs.work, task.verifier.timeoutSec, { mounts: verifierMounts(dirs), env: verifierEnv(task) }, { runtime: options.runtime, sandbox: options.sandbox });
    result = sandbox.run(spec, [SYSTEM_PYTHON, '-I', '-c', DRIVER, ...labPytestArgs(task)], { gate, maxOutputChars: options.maxOutputChars ?? DEFAULT_STEP_OUTPUT_CHARS });
  } catch (error) {
    await removeTree(dirs.root);
    throw error;
  }
  let settled = false;
  void result.then(
    () => (settled = true),
    () => (settled = true),
  );
  let used = false;
  let disposed: Promise<void> | null = null;
  return {
    dirs,
    async go(wallSeconds, signal) {
      if (used || settled) return null;
      used = true;
      open({ stdin: GO, wallSeconds: taskLimits(task, wallSeconds).wallSeconds, signal });
      const run = await result;
      return run.beforeGate ? null : run;
    },
    dispose() {
      disposed ??= (async () => {
        open(null);
        await result.catch(() => null);
        await removeTree(dirs.root);
      })();
      return disposed;
    },
  };
}
