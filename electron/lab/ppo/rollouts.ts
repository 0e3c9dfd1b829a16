/**
 * One step's rollouts: G episodes per task (plus the over-sampled extra), run through the same harness as
 * evaluation in real sandboxes, `concurrency` at once (the policy worker decodes the active ones together).
 * The first N = tasks x G episodes to finish are kept; once N are in, the others get `abort_grace_sec` and
 * are then cut (agent stopped, the verifier still judges them: the bias of cutting is measured on the
 * same tasks). Every finished episode is appended (fsync'd) to the step's episodes.jsonl at once, so a
 * killed run resumes with exactly the episodes it had: none lost, none run twice.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { SandboxBackend } from '../../../native/sandbox/types';
import type { PhaseRuntime } from '../containers/runtime';
import type { Policy } from '../../agent/policy/types';
import type { HarnessSettings } from '../../domain/runs';
import type { Trajectory } from '../../domain/trajectory';
import { runPlaced } from '../hosts/placement';
import { runTaskEpisode, type EpisodeOutcome } from '../runs/run-episode';
import type { Task } from '../tasks';
import type { RolloutHosts } from './hosts';
import { JsonlAppender, readRolloutEpisodes, ROLLOUT_FILES, stepDir, type RolloutEpisode } from './rollout-files';

export interface RolloutRequest {
  runDir: string;
  step: number;
  tasks: readonly Task[];
  groupSize: number;
  oversample: number;
  policy: Policy;
  policyVersion: number;
  /** The temperature the policy samples at, recorded with each episode. */
  temperature: number;
  harness: HarnessSettings;
  concurrency: number;
  seed: number;
  abortGraceSec: number;
  episodeDeadlineSec: number;
  sandbox?: SandboxBackend;
  /** Engine hosts for the container tasks' episodes (`ppo.hosts`); absent: every episode on this machine. */
  hosts?: RolloutHosts | null;
  tmpDir?: string;
  signal?: AbortSignal;
  log?(message: string): void;
  onEpisode?(episode: RolloutEpisode): void;
}

export interface RolloutBatch {
  step: number;
  /** Every finished episode of the request's tasks (kept and aborted), earlier invocations included. */
  episodes: RolloutEpisode[];
  /** Episodes run by this invocation (the rest came from episodes.jsonl on resume). */
  ran: number;
  wallMs: number;
}

interface Job {
  task: Task;
  attempt: number;
  key: string;
  seed: number;
}

function mix(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) {
    h ^= x >>> 0;
    h = Math.imul(h, 0x01000193) >>> 0;
    h ^= h >>> 15;
  }
  return h >>> 0;
}

export function rolloutKey(taskId: string, step: number, attempt: number): string {
  return `${taskId.replace(/[^A-Za-z0-9._-]/g, '_')}-s${step}-a${attempt}`;
}

function summarize(
  t: Trajectory,
  job: Job,
  version: number,
  temperature: number,
  aborted: boolean,
  dir: string,
  host: string | undefined,
): RolloutEpisode {
  const generationMs = t.turns.reduce((n, turn) => n + turn.timing.policyMs, 0);
  return {
    key: job.key,
    taskId: job.task.id,
    category: t.task.category,
    group: job.task.id,
    attempt: job.attempt,
    policyVersion: version,
    temperature,
    reward: t.reward,
    resolved: t.resolved,
    assertions: (t.verifier?.assertions ?? []).map((a) => ({ name: a.name, passed: a.status === 'passed' })),
    turns: t.turns.length,
    completionTokens: t.tokens.completion,
    stopReason: t.stopReason,
    error: t.error?.message ?? null,
    aborted,
    durationMs: t.durationMs,
    generationMs,
    environmentMs: Math.max(0, t.durationMs - generationMs),
    dir,
    ...(host ? { host } : {}),
  };
}

/**
 * Episodes that carry nothing of the policy's behaviour: a sandbox error, or a policy error before its first
 * turn (a lost or unloadable policy worker; a prompt that cannot fit). Not trained on, not counted.
 */
export function infrastructureFailure(e: { stopReason: string; turns: number; error: string | null }): boolean {
  if (e.stopReason === 'sandbox_error') return true;
  return (
    e.stopReason === 'policy_error' &&
    (e.turns === 0 || /worker '[^']+' ended|is not loaded|WORKER_CRASHED/.test(e.error ?? ''))
  );
}

/** Past the episode deadline, the seconds an episode gets to wind down (kill its shells, clean up) before it is given up. */
export const BACKSTOP_GRACE_SEC = 60;

/**
 * The episode deadline aborts every step of an episode that takes a signal; this is the backstop for one
 * that does not (a wait nothing aborts): the step stops waiting for that episode, which goes unrecorded, and
 * trains on the others. One such wait held a PPO step for half an hour (native/sandbox/child-exit.ts).
 */
export function withBackstop<T>(seconds: number, key: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | null = null;
  const backstop = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`episode ${key} did not end ${seconds} s after it started; given up (it is not recorded)`)),
      seconds * 1000,
    );
  });
  return Promise.race([work, backstop]).finally(() => {
    if (timer) clearTimeout(timer);
  });
}

export async function collectRollouts(r: RolloutRequest): Promise<RolloutBatch> {
  const started = performance.now();
  const dir = stepDir(r.runDir, r.step);
  mkdirSync(join(dir, ROLLOUT_FILES.episodeDir), { recursive: true });
  const wanted = r.tasks.length * r.groupSize;
  const jobs = rolloutJobs(r);
  const done = recordedEpisodes(r, jobs);
  let kept = [...done.values()].filter((e) => !e.aborted).length;
  const queue = jobs.filter((j) => !done.has(j.key));
  const appender = new JsonlAppender(join(dir, ROLLOUT_FILES.episodes));
  const cut = tailCut(r.abortGraceSec);
  let ran = 0;
  if (kept >= wanted) cut.start();

  const runOne = async (job: Job): Promise<void> => {
    const placed = await placeEpisode(r, job, dir, cut.signal);
    if (r.signal?.aborted) return; // the run is stopping: this episode is run again on resume
    const outcome = usableOutcome(r, job, placed);
    if (!outcome) return;
    const aborted = kept >= wanted;
    if (!aborted) kept++;
    const summary = summarize(
      outcome.trajectory,
      job,
      r.policyVersion,
      r.temperature,
      aborted,
      relative(r.runDir, placed.abs),
      placed.host,
    );
    appender.append(summary);
    done.set(job.key, summary);
    ran++;
    r.onEpisode?.(summary);
    if (kept >= wanted) cut.start();
  };

  try {
    const stopped = () => kept >= wanted || r.signal?.aborted === true;
    await runQueue(queue, Math.max(1, Math.min(r.concurrency, queue.length)), stopped, runOne, (m) => r.log?.(m));
  } finally {
    cut.dispose();
    appender.close();
  }
  return { step: r.step, episodes: [...done.values()], ran, wallMs: performance.now() - started };
}

/** The step's episodes to run: `groupSize x (1 + oversample)` attempts of each task, attempt by attempt, each with its own seed. */
function rolloutJobs(r: RolloutRequest): Job[] {
  const perTask = Math.ceil(r.groupSize * (1 + r.oversample));
  const jobs: Job[] = [];
  for (let a = 0; a < perTask; a++) {
    r.tasks.forEach((task, i) =>
      jobs.push({ task, attempt: a, key: rolloutKey(task.id, r.step, a), seed: mix(r.seed, r.step, i, a) }),
    );
  }
  return jobs;
}

/**
 * This request's episodes already in the step's episodes.jsonl (a resumed step), by key. Episodes recorded before
 * a crash that carry no behaviour (older runs recorded them) are left out, to run again. Only this request's jobs
 * count: with dynamic sampling a step runs several requests (rounds) into one folder.
 */
function recordedEpisodes(r: RolloutRequest, jobs: readonly Job[]): Map<string, RolloutEpisode> {
  const keys = new Set(jobs.map((j) => j.key));
  return new Map(
    readRolloutEpisodes(r.runDir, r.step)
      .filter((e) => keys.has(e.key) && !infrastructureFailure(e))
      .map((e) => [e.key, e]),
  );
}

/** Cutting the tail: once started, the agents still running are stopped `graceSec` later (their verifiers still judge them). */
function tailCut(graceSec: number): { signal: AbortSignal; start(): void; dispose(): void } {
  const cut = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  return {
    signal: cut.signal,
    start: () => {
      if (timer || cut.signal.aborted) return;
      timer = setTimeout(() => cut.abort(), graceSec * 1000);
    },
    dispose: () => {
      if (timer) clearTimeout(timer);
    },
  };
}

type PlacedEpisode = {
  error: EpisodeOutcome['record']['error'];
  outcome: EpisodeOutcome | null;
  abs: string;
  host?: string;
};

/**
 * One episode of a job, under the episode deadline and its backstop. On an engine host (ppo.hosts) when the task
 * needs a container: a host that fails under the episode is left and the episode tried on another; with none
 * left, no outcome (an infrastructure failure).
 */
async function placeEpisode(r: RolloutRequest, job: Job, dir: string, agentStop: AbortSignal): Promise<PlacedEpisode> {
  const deadline = AbortSignal.timeout(r.episodeDeadlineSec * 1000);
  const signal = r.signal ? AbortSignal.any([r.signal, deadline]) : deadline;
  let tries = 0;
  const episode = async (runtime: PhaseRuntime | undefined): Promise<PlacedEpisode> => {
    // A try on another host (ppo.hosts) gets a folder of its own: one given up on a dead host may still write into its own later.
    const abs = join(dir, ROLLOUT_FILES.episodeDir, tries++ === 0 ? job.key : `${job.key}-try${tries}`);
    rmSync(abs, { recursive: true, force: true }); // a half-written folder of a killed attempt
    mkdirSync(abs, { recursive: true });
    const outcome = await runTaskEpisode({
      task: job.task,
      policy: r.policy,
      harness: r.harness,
      key: job.key,
      attempt: job.attempt,
      seed: job.seed,
      dir: { abs, rel: relative(r.runDir, abs) },
      signal,
      agentStop,
      sandbox: r.sandbox,
      runtime,
      tmpDir: r.tmpDir,
    });
    return { error: outcome.record.error, outcome, abs };
  };
  return withBackstop(
    r.episodeDeadlineSec + BACKSTOP_GRACE_SEC,
    job.key,
    (async () => {
      const runtime = await r.hosts?.runtime(job.task);
      return runPlaced(
        r.hosts?.pool ?? null,
        runtime,
        episode,
        (reason) => ({ error: { kind: 'infrastructure' as const, message: reason }, outcome: null, abs: '' }),
        r.log,
      );
    })(),
  );
}

/** The episode's outcome when it is a sample of the policy's behaviour; null (and a log line) when it is not. */
function usableOutcome(r: RolloutRequest, job: Job, placed: PlacedEpisode): EpisodeOutcome | null {
  const outcome = placed.outcome;
  if (!outcome) {
    r.log?.(`episode ${job.key} not used: ${placed.error?.message ?? 'no engine host could run it'}`);
    return null;
  }
  const t = outcome.trajectory;
  if (infrastructureFailure({ stopReason: t.stopReason, turns: t.turns.length, error: t.error?.message ?? null })) {
    // Not the policy's doing (a crashed worker, a sandbox that failed): not a sample of its behaviour.
    r.log?.(`episode ${job.key} not used: ${outcome.trajectory.error?.message ?? outcome.trajectory.stopReason}`);
    return null;
  }
  return outcome;
}

/** `workers` loops taking jobs off the queue until it is empty or `stopped()`. */
async function runQueue(
  queue: Job[],
  workers: number,
  stopped: () => boolean,
  runOne: (job: Job) => Promise<void>,
  log: (message: string) => void,
): Promise<void> {
  const loops = Array.from({ length: workers }, async () => {
    for (;;) {
      if (stopped()) return;
      const job = queue.shift();
      if (!job) return;
      // An episode that fails without a trajectory is not recorded (the step trains on the others; a
      // resume runs it again); the run goes on.
      await runOne(job).catch((error: unknown) => log(`episode ${job.key} failed: ${(error as Error).message}`));
    }
  });
  await Promise.all(loops);
}
