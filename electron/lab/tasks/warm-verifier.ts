/**
 * A verifier started ahead (issue 16). Most of a pytest verifier's time is pytest importing itself (about
 * 0.23 CPU-s of ~200 modules on the 2-core machine, before any test runs), and an inline assertion's is
 * its sandbox start; none of that depends on the agent's work. So the episode starts the verifier's own
 * sandboxes when the episode starts, one per step as a cold verifier would (the lab's pytest run, and each
 * inline assertion up to MAX_WARM_ASSERTIONS): same namespaces, seccomp program, mounts and environment,
 * /tests written and read-only, the workspace folder still empty. Inside, the system python imports pytest
 * (or bash waits) on stdin. When the agent is done, the snapshot fills the workspace folder (the same folder
 * every sandbox has bound at the workdir), and each step's gate opens in its turn with the limits a cold
 * step would get: the wall clock, the host monitor and the workspace allowance start then, the CPU rlimit is
 * lowered to the cold step's from inside (a hard limit can only go down), and the step runs exactly as cold
 * (`python -m pytest ...`, `bash --noprofile --norc -c ...`, exec'd in the same process). Each sandbox is
 * used once, for one episode, and never shared.
 *
 * Nothing of the workspace is read before a gate opens (python runs with -I: no cwd on sys.path; bash only
 * reads its stdin). Where a warm process is gone when the verifier needs it, that step starts cold.
 */
import { mkdir } from 'node:fs/promises';
import type { RunGateOpen, RunResult, SandboxBackend } from '../../../native/sandbox/types';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';
import type { PhaseRuntime } from '../containers/runtime';
import type { Task } from './model';
import { phaseRun, taskLimits } from './sandbox-spec';
import { removeTree } from './snapshot';
import {
  labPytestArgs,
  makeReadOnly,
  pytestRunsFirst,
  SYSTEM_PYTHON,
  VERIFIER_BASH,
  verifierDirs,
  verifierEnv,
  verifierMounts,
  writeVerifierInputs,
  type VerifierDirs,
} from './verifier-setup';
import { DEFAULT_STEP_OUTPUT_CHARS } from './workspace';

/** Inline assertions started ahead at most (each holds a small sandbox while the agent works). */
export const MAX_WARM_ASSERTIONS = 8;

/**
 * The python program of the warm pytest: import pytest and the built-in plugins pytest would import at
 * start-up, wait for the go line (`go SOFT HARD`: the cold step's CPU rlimit), lower the CPU rlimit to it,
 * then run pytest exactly as `python -m pytest ARGS` does (runpy, with sys.argv[0] the module's path).
 * Without the go line (stdin closed) it exits without running anything.
 */
const PYTEST_DRIVER = [
  'import importlib, resource, runpy, sys',
  'import pytest',
  'from _pytest import config',
  'for name in getattr(config, "default_plugins", ()):',
  '    try:',
  '        importlib.import_module("_pytest." + name)',
  '    except Exception:',
  '        pass',
  'words = sys.stdin.readline().split()',
  'if len(words) != 3 or words[0] != "go":',
  '    sys.exit(0)',
  'resource.setrlimit(resource.RLIMIT_CPU, (int(words[1]), int(words[2])))',
  'runpy.run_module("pytest", run_name="__main__", alter_sys=True)',
].join('\n');

/**
 * The bash of a warm inline assertion: the same go line and CPU rlimit (soft first: the new hard may be
 * below the old soft), then `exec bash --noprofile --norc -c RUN` ($1), the cold step's command.
 */
const ASSERTION_GATE =
  'read -r word soft hard && [ "$word" = go ] || exit 0; ulimit -St "$soft" && ulimit -Ht "$hard" || exit 125; exec bash --noprofile --norc -c "$1"';

/** One verifier step started ahead. */
export interface WarmStep {
  /**
   * Let the step run with what a cold step started now would get (`seconds`: its wall-clock deadline, from
   * which its limits follow). null when the warm process is gone (or was used): start it cold instead.
   */
  go(seconds: number, signal?: AbortSignal): Promise<RunResult | null>;
}

export interface WarmVerifier {
  dirs: VerifierDirs;
  /** The lab's pytest run, when it is the verifier's first step. */
  pytest: WarmStep | null;
  /** The inline assertions, in order (those past MAX_WARM_ASSERTIONS start cold). */
  assertions: WarmStep[];
  /** Stop every unused step, wait for their sandboxes to end and remove the folder. Idempotent. */
  dispose(): Promise<void>;
}

export interface PrestartOptions {
  sandbox: SandboxBackend;
  runtime?: PhaseRuntime;
  tmpDir?: string;
  maxOutputChars?: number;
}

interface GatedStep extends WarmStep {
  stop(): Promise<void>;
}

/** The verifier's sandboxes started ahead, or null where a warm start does not apply. */
export async function prestartVerifier(task: Task, options: PrestartOptions): Promise<WarmVerifier | null> {
  // Containers run their image's programs, other backends have no gate: they start cold.
  if (options.runtime?.container || options.sandbox.name !== 'bubblewrap') return null;
  const pytestFirst = pytestRunsFirst(task);
  const inline = task.verifier.assertions.slice(0, MAX_WARM_ASSERTIONS);
  if (!pytestFirst && inline.length === 0) return null;
  const dirs = verifierDirs(await makeOwnedTempDir('verify', options.tmpDir));
  const started: GatedStep[] = [];
  const gated = async (capSeconds: number | undefined, argv: string[]): Promise<GatedStep> => {
    // The most a cold step could get (the whole verifier deadline, or its own cap): lowered at the opening.
    const most = capSeconds === undefined ? task.verifier.timeoutSec : Math.min(capSeconds, task.verifier.timeoutSec);
    const { sandbox, spec } = await phaseRun(
      task,
      dirs.work,
      most,
      { mounts: verifierMounts(dirs), env: verifierEnv(task) },
      { runtime: options.runtime, sandbox: options.sandbox },
    );
    const step = gatedStep(task, (gate) =>
      sandbox.run(spec, argv, { gate, maxOutputChars: options.maxOutputChars ?? DEFAULT_STEP_OUTPUT_CHARS }),
    );
    started.push(step);
    return step;
  };
  let disposed: Promise<void> | null = null;
  const verifier: WarmVerifier = {
    dirs,
    pytest: null,
    assertions: [],
    dispose() {
      disposed ??= (async () => {
        await Promise.all(started.map((s) => s.stop()));
        await removeTree(dirs.root);
      })();
      return disposed;
    },
  };
  try {
    await writeVerifierInputs(task, dirs);
    await makeReadOnly(dirs.tests);
    // The workspace folder is bound as it is now (empty) and filled by the snapshot before a gate opens.
    await mkdir(dirs.work);
    if (pytestFirst)
      verifier.pytest = await gated(undefined, [SYSTEM_PYTHON, '-I', '-c', PYTEST_DRIVER, ...labPytestArgs(task)]);
    for (const a of inline)
      verifier.assertions.push(
        await gated(a.timeoutSec ?? undefined, [...VERIFIER_BASH, '-c', ASSERTION_GATE, 't1lab-gate', a.run]),
      );
  } catch (error) {
    await verifier.dispose();
    throw error;
  }
  return verifier;
}

/** A gated run and its opening: the go line carries the cold step's CPU rlimit, the gate its wall clock. */
function gatedStep(task: Task, start: (gate: Promise<RunGateOpen | null>) => Promise<RunResult>): GatedStep {
  let open: (value: RunGateOpen | null) => void = () => {};
  const result = start(new Promise<RunGateOpen | null>((resolve) => (open = resolve)));
  let settled = false;
  void result.then(
    () => (settled = true),
    () => (settled = true),
  );
  let used = false;
  return {
    async go(seconds, signal) {
      if (used || settled) return null;
      used = true;
      const limits = taskLimits(task, seconds);
      // As the launcher sets them for a cold step: SIGXCPU at the soft limit, SIGKILL a second later.
      open({ stdin: `go ${limits.cpuSeconds} ${limits.cpuSeconds + 1}\n`, wallSeconds: limits.wallSeconds, signal });
      const run = await result;
      return run.beforeGate ? null : run;
    },
    async stop() {
      used = true;
      open(null);
      await result.catch(() => null);
    },
  };
}
