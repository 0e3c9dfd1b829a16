/**
 * One episode of one task, end to end: a fresh workspace with the task's set-up run in the sandbox, a
 * recorded sandboxed shell, the agent loop, then every agent process killed, the verifier in its own
 * sandbox, the reward, and the episode folder written (trajectory, ATIF export, recording, verifier output).
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createShellSession } from '../../../native/pty';
import type { ShellSession } from '../../../native/pty/types';
import type { Mount, SandboxBackend } from '../../../native/sandbox/types';
import { EpisodeStop, runAgentLoop, type AgentLoopResult } from '../../agent/episode/loop';
import type { Policy } from '../../agent/policy/types';
import { toAtif } from '../../agent/trajectory/atif';
import { LabError } from '../../ipc/common/errors';
import type { EpisodeRecord, HarnessSettings } from '../../domain/runs';
import {
  TRAJECTORY_SCHEMA,
  type EpisodeError,
  type Trajectory,
  type Turn,
  type VerifierOutcome,
} from '../../domain/trajectory';
import { appVersion } from '../app-paths';
import { dropState, type PhaseRuntime } from '../containers/runtime';
import { phaseRun } from '../tasks/sandbox-spec';
import {
  defaultSandbox,
  filesUnder,
  prepareWorkspace,
  prestartVerifier,
  removeTree,
  runVerifier,
  solutionCommands,
  solutionScript,
  TASK_PATHS,
  type Task,
  type WarmVerifier,
} from '../tasks';
import { EPISODE_FILES } from './episode-files';
import { writeFileAtomicAsync } from './store';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';

/** Where the oracle finds the task's solution/ folder (the task layer's oracle uses the same path). */
const ORACLE_SOLUTION_DIR = '/solution';
/**
 * `T1LAB_ENV_OVERLAP=0` runs the environment step without its overlaps (the verifier started ahead, the
 * shells' closing during the verifier): the baseline `npm run bench -- envstep` measures in the same run.
 */
export const ENV_OVERLAP_ENV = 'T1LAB_ENV_OVERLAP';
/** The agent's sandbox outlives the agent's deadline by this much, so the harness ends it, not the sandbox. */
const SANDBOX_SLACK_SEC = 30;

export interface EpisodeSpec {
  task: Task;
  policy: Policy;
  harness: HarnessSettings;
  key: string;
  attempt: number;
  seed: number;
  /** The episode folder (created, empty). */
  dir: { abs: string; rel: string };
  signal?: AbortSignal;
  /** Ends the agent's turns like its deadline; the verifier still runs (see AgentLoopOptions.agentStop). */
  agentStop?: AbortSignal;
  onTurn?(turn: Turn): void;
  onData?(data: string): void;
  /** Each shell of the agent as it opens (the environment service reads its screen). */
  onShell?(session: ShellSession): void;
  sandbox?: SandboxBackend;
  /** The backend and image chosen for this task (containers/runtime.ts); default: bubblewrap. */
  runtime?: PhaseRuntime;
  tmpDir?: string;
}

export interface EpisodeOutcome {
  record: EpisodeRecord;
  trajectory: Trajectory;
}

/** solution/ written where the oracle's shell can read it (read-only), as the task layer's oracle sees it. */
async function writeSolution(task: Task, dir: string): Promise<void> {
  const files =
    task.solution?.kind === 'script' && task.solution.path === TASK_PATHS.solve ? filesUnder(task, 'solution') : [];
  const script = solutionScript(task);
  if (script !== null && !files.some((f) => f.path === 'solve.sh'))
    files.push({ path: 'solve.sh', data: new TextEncoder().encode(script), executable: true });
  for (const f of files) {
    const path = join(dir, f.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, f.data);
    await chmod(path, f.executable ? 0o555 : 0o444);
  }
}

function stopOf(signal: AbortSignal | undefined): EpisodeStop | null {
  return signal?.aborted && signal.reason instanceof EpisodeStop ? signal.reason : null;
}

/** What an episode accumulates across its phases: the agent's result, the stop, the verdict, the shells, the phase marks. */
interface EpisodeState {
  spec: EpisodeSpec;
  sandbox: SandboxBackend;
  agentTimeoutSec: number;
  root: string;
  workspace: string;
  loop: AgentLoopResult | null;
  error: EpisodeError | null;
  verifier: VerifierOutcome | null;
  reward: Trajectory['reward'];
  stopReason: Trajectory['stopReason'];
  sessions: ShellSession[];
  /** The shells' closing (output tails, screens, recordings), finished while the verifier runs. */
  closing: Promise<unknown> | undefined;
  // Phase marks for the trajectory's `phases` (the environment-step profile, npm run bench -- envstep).
  mark: { setup: number; shell: number; agent: number; close: number; verify: number; cleanup: number };
  /**
   * The verifier's sandboxes start (and import pytest) while the agent works (warm-verifier.ts): right after
   * the agent's shell is spawned, never ahead of it (each start holds the event loop for the spawn, and the
   * shell is what the episode waits on). A failed warm start is not the episode's failure: the verifier
   * then starts cold.
   */
  overlap: boolean;
  warmStart: Promise<WarmVerifier | null>;
  warmStarted: boolean;
}

export async function runTaskEpisode(spec: EpisodeSpec): Promise<EpisodeOutcome> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const root = await makeOwnedTempDir('episode', spec.tmpDir);
  const st: EpisodeState = {
    spec,
    sandbox: spec.sandbox ?? defaultSandbox(),
    agentTimeoutSec: spec.harness.agentTimeoutSec ?? spec.task.agent.timeoutSec,
    root,
    workspace: join(root, 'workspace'),
    loop: null,
    error: null,
    verifier: null,
    reward: null,
    stopReason: 'max_turns',
    sessions: [],
    closing: undefined,
    mark: { setup: started, shell: started, agent: started, close: started, verify: started, cleanup: started },
    overlap: process.env[ENV_OVERLAP_ENV] !== '0',
    warmStart: Promise.resolve(null),
    warmStarted: false,
  };
  await runAgent(st);
  await verifyAndCleanUp(st);
  return writeEpisode(st, started, startedAt);
}

/** Set up the workspace, open the agent's shell and run the agent loop; the agent's processes are killed at the end, whatever happened. */
async function runAgent(st: EpisodeState): Promise<void> {
  const { spec } = st;
  try {
    await setUpWorkspace(st);
    st.mark.setup = performance.now();
    const openShell = await shellOpener(st);
    const session = await openShell();
    st.mark.shell = performance.now();
    st.loop = await runAgentLoop({
      policy: spec.policy,
      session,
      restartShell: openShell,
      taskId: spec.task.id,
      instruction: spec.task.instruction,
      solutionCommands: spec.task.solution ? solutionCommands(spec.task) : null,
      seed: spec.seed,
      agentTimeoutSec: st.agentTimeoutSec,
      maxTurns: spec.harness.maxTurns,
      contextStrategy: spec.harness.contextStrategy,
      observationChars: spec.harness.observationChars,
      signal: spec.signal,
      agentStop: spec.agentStop,
      tito: spec.harness.tito,
      onTurn: spec.onTurn,
    });
    st.stopReason = st.loop.stopReason;
    st.error = st.loop.error;
  } catch (e) {
    const stop = e instanceof EpisodeStop ? e : stopOf(spec.signal);
    if (stop) {
      st.stopReason = stop.stopReason;
      st.error = stop.stopReason === 'deadline' ? { kind: 'timeout', message: stop.message } : null;
    } else {
      st.stopReason = 'sandbox_error';
      st.error = { kind: 'sandbox', message: (e as Error).message };
    }
  } finally {
    // Kill every process the agent started before anything reads the workspace. The rest of closing a
    // shell (its output tail, screen and recording) overlaps the verifier.
    st.mark.agent = performance.now();
    await Promise.all(st.sessions.map((s) => (st.overlap && s.stop ? s.stop() : s.close()).catch(() => {})));
    st.closing = Promise.all(st.sessions.map((s) => s.close().catch(() => {})));
    st.mark.close = performance.now();
  }
}

async function setUpWorkspace(st: EpisodeState): Promise<void> {
  const { spec } = st;
  try {
    await prepareWorkspace(spec.task, st.workspace, {
      sandbox: st.sandbox,
      runtime: spec.runtime,
      signal: spec.signal,
      tmpDir: st.root,
    });
  } catch (e) {
    const stop = stopOf(spec.signal);
    if (stop) throw stop;
    throw new LabError(e instanceof LabError ? e.code : 'INTERNAL', `set-up: ${(e as Error).message}`);
  }
}

/**
 * A function that opens the agent's next shell (the first, or one after the agent's shell exited), recorded
 * as the episode's asciicast; the oracle's shells see the solution read-only. The first shell starts the
 * verifier's warm-up.
 */
async function shellOpener(st: EpisodeState): Promise<() => Promise<ShellSession>> {
  const { spec } = st;
  const { task } = spec;
  const oracle = spec.policy.id === 'oracle';
  const mounts: Mount[] = [];
  if (oracle) {
    const solution = join(st.root, 'solution');
    await mkdir(solution);
    await writeSolution(task, solution);
    mounts.push({ host: solution, sandbox: ORACLE_SOLUTION_DIR, readOnly: true });
  }
  // In a container, each shell commits its state when it ends: the verifier (or a restarted shell) starts from it.
  const agentRun = () =>
    phaseRun(
      task,
      st.workspace,
      st.agentTimeoutSec + SANDBOX_SLACK_SEC,
      { mounts, env: oracle ? task.solutionEnv : {} },
      { runtime: spec.runtime, sandbox: st.sandbox, commit: true },
    );
  const agent = await agentRun();
  return async (): Promise<ShellSession> => {
    const n = st.sessions.length;
    const agentSpec = n === 0 ? agent.spec : (await agentRun()).spec;
    const session = await createShellSession({
      backend: agent.sandbox,
      spec: agentSpec,
      id: `${spec.key}#${n}`,
      recordPath: join(spec.dir.abs, n === 0 ? EPISODE_FILES.recording : `recording.${n}.cast`),
    });
    st.sessions.push(session);
    if (spec.onData) session.onData(spec.onData);
    spec.onShell?.(session);
    startWarmVerifier(st);
    await session.ready();
    return session;
  };
}

function startWarmVerifier(st: EpisodeState): void {
  if (!st.overlap || st.warmStarted) return;
  st.warmStarted = true;
  st.warmStart = prestartVerifier(st.spec.task, {
    sandbox: st.sandbox,
    runtime: st.spec.runtime,
    tmpDir: st.root,
  }).catch(() => null);
}

/**
 * The verifier checks the work as it stands: after a submit, the turn limit, the agent's deadline or a
 * policy failure alike; not after a cancellation, a cut at the episode deadline, or a failed set-up. Then
 * the episode's sandboxes, state and temporary folder go.
 */
async function verifyAndCleanUp(st: EpisodeState): Promise<void> {
  const { spec } = st;
  try {
    const verify = st.loop !== null && st.stopReason !== 'cancelled' && st.stopReason !== 'deadline';
    if (verify) await runEpisodeVerifier(st);
  } finally {
    st.mark.verify = performance.now();
    await (await st.warmStart)?.dispose();
    await dropState(spec.runtime?.container ?? null, st.workspace).catch(() => {});
    await removeTree(st.root).catch(() => {});
    // Counted with the clean-up: what is left of closing the shells, if the verifier was quicker.
    await st.closing;
    st.mark.cleanup = performance.now();
  }
}

async function runEpisodeVerifier(st: EpisodeState): Promise<void> {
  const { spec } = st;
  try {
    const result = await runVerifier(spec.task, st.workspace, {
      sandbox: st.sandbox,
      runtime: spec.runtime,
      signal: spec.signal,
      tmpDir: st.root,
      keepLogsDir: join(spec.dir.abs, EPISODE_FILES.verifierDir),
      warm: await st.warmStart,
    });
    st.verifier = {
      status: result.status,
      error: result.error,
      assertions: result.assertions,
      passed: result.passed,
      total: result.total,
      source: result.source,
      notes: result.notes,
      durationMs: result.durationMs,
      timings: result.timings,
    };
    st.reward = result.reward;
    if (result.status === 'error' && !st.error)
      st.error = { kind: 'verifier', message: result.error ?? 'the verifier failed' };
  } catch (e) {
    const stop = stopOf(spec.signal);
    if (stop) {
      st.stopReason = stop.stopReason;
      st.error = stop.stopReason === 'deadline' ? { kind: 'timeout', message: stop.message } : null;
    } else if (!st.error) st.error = { kind: 'verifier', message: (e as Error).message };
  }
}

/** The trajectory and its ATIF export to the episode folder; the record the run's episodes.jsonl keeps. */
async function writeEpisode(st: EpisodeState, started: number, startedAt: string): Promise<EpisodeOutcome> {
  const { spec, loop, reward, verifier, stopReason, error } = st;
  const { task, policy } = spec;
  const resolved = reward !== null && reward.binary === 1 && verifier?.status === 'ok';
  const trajectory: Trajectory = {
    schema: TRAJECTORY_SCHEMA,
    id: spec.key,
    task: { id: task.id, category: task.metadata.category, difficulty: task.metadata.difficulty ?? 'unknown' },
    policy: { id: policy.id, protocol: policy.protocol, model: policy.model },
    startedAt,
    endedAt: new Date().toISOString(),
    durationMs: performance.now() - started,
    system: loop?.system ?? '',
    instruction: task.instruction,
    turns: loop?.turns ?? [],
    stopReason,
    error,
    contextEvents: loop?.contextEvents ?? [],
    ledger: loop?.ledger ?? null,
    verifier,
    // A phase that did not run (failed set-up, no verification) counts 0 ms.
    phases: phasesOf(started, st.mark),
    reward,
    resolved,
    tokens: loop?.tokens ?? { prompt: 0, completion: 0 },
    costUsd: loop?.costUsd ?? null,
  };
  const writeStarted = performance.now();
  await Promise.all([
    writeFileAtomicAsync(join(spec.dir.abs, EPISODE_FILES.trajectory), JSON.stringify(trajectory)),
    writeFileAtomicAsync(
      join(spec.dir.abs, EPISODE_FILES.atif),
      JSON.stringify(toAtif(trajectory, appVersion()), null, 1),
    ),
  ]);
  const writeMs = performance.now() - writeStarted;
  const record: EpisodeRecord = {
    key: spec.key,
    taskId: task.id,
    attempt: spec.attempt,
    category: trajectory.task.category,
    difficulty: trajectory.task.difficulty,
    resolved,
    reward,
    turns: trajectory.turns.length,
    stopReason,
    error,
    tokens: trajectory.tokens,
    costUsd: trajectory.costUsd,
    durationMs: Math.round(trajectory.durationMs),
    dir: spec.dir.rel,
    finishedAt: trajectory.endedAt,
    writeMs,
  };
  return { record, trajectory };
}

/** Each phase's length from the marks; a phase that did not run keeps the previous mark, so it counts 0. */
function phasesOf(
  started: number,
  m: { setup: number; shell: number; agent: number; close: number; verify: number; cleanup: number },
): NonNullable<Trajectory['phases']> {
  const setup = Math.max(m.setup, started);
  const shell = Math.max(m.shell, setup);
  const agent = Math.max(m.agent, shell);
  const close = Math.max(m.close, agent);
  const verify = Math.max(m.verify, close);
  const cleanup = Math.max(m.cleanup, verify);
  return {
    setupMs: setup - started,
    shellStartMs: shell - setup,
    agentMs: agent - shell,
    closeMs: close - agent,
    verifyMs: verify - close,
    cleanupMs: cleanup - verify,
  };
}
