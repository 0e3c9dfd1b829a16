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
import { TRAJECTORY_SCHEMA, type EpisodeError, type Trajectory, type Turn, type VerifierOutcome } from '../../domain/trajectory';
import { appVersion } from '../app-paths';
import { dropState, type PhaseRuntime } from '../containers/runtime';
import { phaseRun } from '../tasks/sandbox-spec';
import { defaultSandbox, filesUnder, prepareWorkspace, prestartVerifier, removeTree, runVerifier, solutionCommands, solutionScript, TASK_PATHS, type Task, type WarmVerifier } from '../tasks';
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
  const files = task.solution?.kind === 'script' && task.solution.path === TASK_PATHS.solve ? filesUnder(task, 'solution') : [];
  const script = solutionScript(task);
  if (script !== null && !files.some((f) => f.path === 'solve.sh')) files.push({ path: 'solve.sh', data: new TextEncoder().encode(script), executable: true });
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

export async function runTaskEpisode(spec: EpisodeSpec): Promise<EpisodeOutcome> {
  const { task, policy, harness } = spec;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const sandbox = spec.sandbox ?? defaultSandbox();
  const agentTimeoutSec = harness.agentTimeoutSec ?? task.agent.timeoutSec;
  const root = await makeOwnedTempDir('episode', spec.tmpDir);
  const workspace = join(root, 'workspace');
  let loop: AgentLoopResult | null = null;
  let error: EpisodeError | null;
  let verifier: VerifierOutcome | null = null;
  let reward: Trajectory['reward'] = null;
  let stopReason: Trajectory['stopReason'];
  const sessions: ShellSession[] = [];
  /** The shells' closing (output tails, screens, recordings), finished while the verifier runs. */
  let closing: Promise<unknown> | undefined;
  // Phase marks for the trajectory's `phases` (the environment-step profile, npm run bench -- envstep).
  const mark = { setup: started, shell: started, agent: started, close: started, verify: started, cleanup: started };
  // The verifier's sandboxes start (and import pytest) while the agent works (warm-verifier.ts): right after
  // the agent's shell is spawned, never ahead of it (each start holds the event loop for the spawn, and the
  // shell is what the episode waits on). A failed warm start is not the episode's failure: the verifier
  // then starts cold.
  const overlap = process.env[ENV_OVERLAP_ENV] !== '0';
  let warmStart: Promise<WarmVerifier | null> = Promise.resolve(null);
  let warmStarted = false;
  const startWarm = () => {
    if (!overlap || warmStarted) return;
    warmStarted = true;
    warmStart = prestartVerifier(task, { sandbox, runtime: spec.runtime, tmpDir: root }).catch(() => null);
  };

  try {
    try {
      await prepareWorkspace(task, workspace, { sandbox, runtime: spec.runtime, signal: spec.signal, tmpDir: root });
    } catch (e) {
      const stop = stopOf(spec.signal);
      if (stop) throw stop;
      throw new LabError(e instanceof LabError ? e.code : 'INTERNAL', `set-up: ${(e as Error).message}`);
    }
    mark.setup = performance.now();
    const oracle = policy.id === 'oracle';
    const mounts: Mount[] = [];
    if (oracle) {
      const solution = join(root, 'solution');
      await mkdir(solution);
      await writeSolution(task, solution);
      mounts.push({ host: solution, sandbox: ORACLE_SOLUTION_DIR, readOnly: true });
    }
    // In a container, each shell commits its state when it ends: the verifier (or a restarted shell) starts from it.
    const agent = await phaseRun(task, workspace, agentTimeoutSec + SANDBOX_SLACK_SEC, { mounts, env: oracle ? task.solutionEnv : {} }, { runtime: spec.runtime, sandbox, commit: true });
    const openShell = async (): Promise<ShellSession> => {
      const n = sessions.length;
      const agentSpec = n === 0 ? agent.spec : (await phaseRun(task, workspace, agentTimeoutSec + SANDBOX_SLACK_SEC, { mounts, env: oracle ? task.solutionEnv : {} }, { runtime: spec.runtime, sandbox, commit: true })).spec;
      const session = await createShellSession({ backend: agent.sandbox, spec: agentSpec, id: `${spec.key}#${n}`, recordPath: join(spec.dir.abs, n === 0 ? EPISODE_FILES.recording : `recording.${n}.cast`) });
      sessions.push(session);
      if (spec.onData) session.onData(spec.onData);
      spec.onShell?.(session);
      startWarm();
      await session.ready();
      return session;
    };
    const session = await openShell();
    mark.shell = performance.now();
    loop = await runAgentLoop({
      policy,
      session,
      restartShell: openShell,
      taskId: task.id,
      instruction: task.instruction,
      solutionCommands: task.solution ? solutionCommands(task) : null,
      seed: spec.seed,
      agentTimeoutSec,
      maxTurns: harness.maxTurns,
      contextStrategy: harness.contextStrategy,
      observationChars: harness.observationChars,
      signal: spec.signal,
      agentStop: spec.agentStop,
      tito: harness.tito,
      onTurn: spec.onTurn,
    });
    stopReason = loop.stopReason;
    error = loop.error;
  } catch (e) {
    const stop = e instanceof EpisodeStop ? e : stopOf(spec.signal);
    if (stop) {
      stopReason = stop.stopReason;
      error = stop.stopReason === 'deadline' ? { kind: 'timeout', message: stop.message } : null;
    } else {
      stopReason = 'sandbox_error';
      error = { kind: 'sandbox', message: (e as Error).message };
    }
  } finally {
    // Kill every process the agent started before anything reads the workspace. The rest of closing a
    // shell (its output tail, screen and recording) overlaps the verifier.
    mark.agent = performance.now();
    await Promise.all(sessions.map((s) => (overlap && s.stop ? s.stop() : s.close()).catch(() => {})));
    closing = Promise.all(sessions.map((s) => s.close().catch(() => {})));
    mark.close = performance.now();
  }

  try {
    // The verifier checks the work as it stands: after a submit, the turn limit, the agent's deadline or a
    // policy failure alike. Not after a cancellation, a cut at the episode deadline, or a failed set-up.
    const verify = loop !== null && stopReason !== 'cancelled' && stopReason !== 'deadline';
    if (verify) {
      try {
        const result = await runVerifier(task, workspace, { sandbox, runtime: spec.runtime, signal: spec.signal, tmpDir: root, keepLogsDir: join(spec.dir.abs, EPISODE_FILES.verifierDir), warm: await warmStart });
        verifier = { status: result.status, error: result.error, assertions: result.assertions, passed: result.passed, total: result.total, source: result.source, notes: result.notes, durationMs: result.durationMs, timings: result.timings };
        reward = result.reward;
        if (result.status === 'error' && !error) error = { kind: 'verifier', message: result.error ?? 'the verifier failed' };
      } catch (e) {
        const stop = stopOf(spec.signal);
        if (stop) {
          stopReason = stop.stopReason;
          error = stop.stopReason === 'deadline' ? { kind: 'timeout', message: stop.message } : null;
        } else if (!error) error = { kind: 'verifier', message: (e as Error).message };
      }
    }
  } finally {
    mark.verify = performance.now();
    await (await warmStart)?.dispose();
    await dropState(spec.runtime?.container ?? null, workspace).catch(() => {});
    await removeTree(root).catch(() => {});
    // Counted with the clean-up: what is left of closing the shells, if the verifier was quicker.
    await closing;
    mark.cleanup = performance.now();
  }

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
    phases: phasesOf(started, mark),
    reward,
    resolved,
    tokens: loop?.tokens ?? { prompt: 0, completion: 0 },
    costUsd: loop?.costUsd ?? null,
  };
  const writeStarted = performance.now();
  await Promise.all([
    writeFileAtomicAsync(join(spec.dir.abs, EPISODE_FILES.trajectory), JSON.stringify(trajectory)),
    writeFileAtomicAsync(join(spec.dir.abs, EPISODE_FILES.atif), JSON.stringify(toAtif(trajectory, appVersion()), null, 1)),
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
function phasesOf(started: number, m: { setup: number; shell: number; agent: number; close: number; verify: number; cleanup: number }): NonNullable<Trajectory['phases']> {
  const setup = Math.max(m.setup, started);
  const shell = Math.max(m.shell, setup);
  const agent = Math.max(m.agent, shell);
  const close = Math.max(m.close, agent);
  const verify = Math.max(m.verify, close);
  const cleanup = Math.max(m.cleanup, verify);
  return { setupMs: setup - started, shellStartMs: shell - setup, agentMs: agent - shell, closeMs: close - agent, verifyMs: verify - close, cleanupMs: cleanup - verify };
}
