/**
 * The environment service behind `t1lab env serve` (issue 37): sessions over the lab's sandboxes, each
 * with its own bearer token (issued with the admin token; only a hash is kept), at most `maxSessions` at
 * once (the next is told when to retry), each ended at its time-to-live or after `idleSec` without a
 * request. A session runs one episode at a time (RemoteEpisode); every episode that started is recorded
 * in the service's run folder as the lab records its own runs (episodes.jsonl, trajectory, ATIF,
 * recording, verifier output), so the Runs page shows them. Tokens never reach logs, records or sandboxes.
 * With engine hosts (`--hosts`), an episode whose task runs in a container takes a slot on a host (EnvHosts,
 * the pool `eval --hosts` uses), sessions are bounded also by the hosts' slots, and a host that fails under
 * an episode fails that episode with a 502 naming the host (recorded as an infrastructure error).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { z } from 'zod';
import { EpisodeStop } from '../../agent/episode/loop';
import { EVAL_DEFAULTS } from '../../domain/eval-defaults';
import { HarnessSettings, PolicySettings, RUN_SCHEMA, type EpisodeRecord, type RunManifest } from '../../domain/runs';
import type { Action, Turn } from '../../domain/trajectory';
import { appRoot, appVersion } from '../app-paths';
import { needsImage, resolvePhaseRuntime, type PhaseRuntime } from '../containers/runtime';
import type { ContainerSettings } from '../containers/settings';
import { episodeKey, RunStore } from '../runs/store';
import { solutionCommands, type Task } from '../tasks';
import { MAX_HOST_TRIES } from '../hosts/placement';
import { usesContainer, type EnvHosts, type Placement } from './hosts';
import { RemoteEpisode, REMOTE_POLICY_ID, type StepResult } from './remote-episode';

/** A client-side mistake or a limit, with the HTTP status it maps to. */
export class EnvError extends Error {
  override readonly name = 'EnvError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 502 | 503,
    message: string,
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}

export const ENV_DEFAULTS = {
  maxSessions: 16,
  /** A session's whole life, seconds. */
  ttlSec: 3600,
  /** A session without a request for this long is ended, seconds. */
  idleSec: 300,
  /** The largest request body, bytes. */
  maxBodyBytes: 256 * 1024,
} as const;

export const RewardName = z.enum(['dense', 'fraction', 'binary']);
export type RewardName = z.infer<typeof RewardName>;

export interface EnvServiceOptions {
  tasks: Task[];
  /** The suite as given, for the run manifest. */
  suite: string;
  /** The run folder the episodes are recorded in (created). */
  runDir: string;
  adminToken: string;
  maxSessions?: number;
  ttlSec?: number;
  idleSec?: number;
  /** The OpenEnv `reward` of the last step (all three are in the observation). Default dense. */
  reward?: RewardName;
  containers: ContainerSettings;
  /** Engine hosts (opened) that run the container episodes; absent: this machine's engine. */
  hosts?: EnvHosts;
  tmpDir?: string;
  /** Lines for the operator (never a token). */
  log?: (line: string) => void;
}

/** An action as a client sends it (OpenEnv's `action`): a command, keystrokes, or the submit. */
export const EnvAction = z.union([
  z
    .object({
      command: z
        .string()
        .min(1)
        .max(64 * 1024),
      timeout_s: z.number().positive().max(3600).optional(),
    })
    .strict(),
  z
    .object({
      keystrokes: z.union([
        z.string().max(64 * 1024),
        z
          .array(z.string().max(64 * 1024))
          .min(1)
          .max(256),
      ]),
      duration_s: z.number().min(0).max(60).optional(),
    })
    .strict(),
  z.object({ submit: z.literal(true) }).strict(),
]);
export type EnvAction = z.infer<typeof EnvAction>;

export const ResetParams = z
  .object({
    task_id: z.string().min(1).max(256).optional(),
    seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    episode_id: z.string().max(256).optional(),
  })
  .passthrough();

export function toAction(a: EnvAction): Action {
  if ('command' in a)
    return { tool: 'bash', command: a.command, ...(a.timeout_s !== undefined ? { timeoutSec: a.timeout_s } : {}) };
  if ('keystrokes' in a)
    return {
      tool: 'keys',
      keys: typeof a.keystrokes === 'string' ? [a.keystrokes] : a.keystrokes,
      ...(a.duration_s !== undefined ? { durationSec: a.duration_s } : {}),
    };
  return { tool: 'submit' };
}

/** What /reset and /step answer (OpenEnv's StepResponse). */
export interface EnvResponse {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest();

interface Session {
  id: string;
  tokenHash: Buffer;
  createdAt: number;
  lastSeen: number;
  expiresAt: number;
  episode: RemoteEpisode | null;
  episodeId: string | null;
  task: Task | null;
  /** The engine host of the current episode, and whether it failed under it (its reason), once the episode ended. */
  placed: { host: string; failure: Promise<string | null> } | null;
  /** The record of the last episode that ended (its verdict), for /state. */
  last: EpisodeRecord | null;
  /** A request is being served (one at a time per session). */
  busy: boolean;
  closed: boolean;
}

export class EnvService {
  private readonly sessions = new Map<string, Session>();
  private readonly store: RunStore;
  private readonly byId: Map<string, Task>;
  private readonly sorted: Task[];
  private readonly attempts = new Map<string, number>();
  private readonly runtimes = new Map<string, Promise<PhaseRuntime>>();
  /** Episodes still finishing (verifier, record): awaited by close(). */
  private readonly finishing = new Set<Promise<unknown>>();
  private readonly timer: NodeJS.Timeout;
  private readonly adminHash: Buffer;
  private readonly hosts: EnvHosts | null;
  /** Tasks whose episodes run in a container (on a host with --hosts). */
  private readonly containerTasks: Task[];
  readonly maxSessions: number;
  readonly ttlSec: number;
  readonly idleSec: number;
  readonly rewardName: RewardName;
  private stopped = false;

  constructor(private readonly options: EnvServiceOptions) {
    if (options.adminToken.length < 16) throw new EnvError(400, 'the admin token needs at least 16 characters');
    this.adminHash = hashOf(options.adminToken);
    this.maxSessions = options.maxSessions ?? ENV_DEFAULTS.maxSessions;
    this.ttlSec = options.ttlSec ?? ENV_DEFAULTS.ttlSec;
    this.idleSec = options.idleSec ?? ENV_DEFAULTS.idleSec;
    this.rewardName = options.reward ?? 'dense';
    this.sorted = [...options.tasks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.byId = new Map(this.sorted.map((t) => [t.id, t]));
    this.hosts = options.hosts ?? null;
    this.containerTasks = this.sorted.filter((t) => usesContainer(t, options.containers));
    const root = appRoot();
    const manifest: RunManifest = {
      schema: RUN_SCHEMA,
      id: basename(options.runDir),
      createdAt: new Date().toISOString(),
      config: {
        kind: 'eval',
        suite: options.suite,
        policy: REMOTE_POLICY_ID,
        policySettings: PolicySettings.parse({ temperature: EVAL_DEFAULTS.temperature }),
        harness: HarnessSettings.parse({}),
        attempts: 1,
        concurrency: this.maxSessions,
        episodeDeadlineSec: null,
        seed: 0,
        tasks: this.sorted.map((t) => ({
          id: t.id,
          category: t.metadata.category,
          difficulty: t.metadata.difficulty ?? 'unknown',
        })),
      },
      code: { version: appVersion(root), commit: null },
      host: {
        platform: `${process.platform}-${process.arch}`,
        cores: availableParallelism(),
        node: process.versions.node,
      },
      warnings: [
        "episodes driven by clients of `t1lab env serve` (OpenEnv protocol): attempts number each task's episodes in order",
      ],
    };
    this.store = RunStore.create(options.runDir, manifest);
    this.timer = setInterval(() => this.reap(), 1000);
    this.timer.unref();
  }

  get runDir(): string {
    return this.store.dir;
  }

  taskIds(): string[] {
    return this.sorted.map((t) => t.id);
  }

  /** The oracle's commands for a task (admin only: an SFT warm start or a check of the service, never an agent). */
  oracle(taskId: string): string[] {
    const task = this.byId.get(taskId);
    if (!task) throw new EnvError(404, `unknown task '${taskId.slice(0, 200)}' (GET /tasks lists them)`);
    if (!task.solution) throw new EnvError(404, `task '${task.id}' has no oracle solution`);
    return solutionCommands(task);
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  isAdmin(token: string | null): boolean {
    if (!token) return false;
    return timingSafeEqual(hashOf(token), this.adminHash);
  }

  /** The session a bearer token opens, or a 401 (the same answer for an unknown, ended or malformed token). */
  sessionOf(token: string | null): Session {
    if (token) {
      const hash = hashOf(token);
      for (const s of this.sessions.values()) if (timingSafeEqual(s.tokenHash, hash)) return s;
    }
    throw new EnvError(401, 'unknown or expired session token: create a session with POST /sessions (admin token)');
  }

  activeSessions(): number {
    return this.sessions.size;
  }

  /** Sessions at once: --max-sessions, and with hosts for container tasks also their live slots. */
  sessionCap(): number {
    if (!this.hosts || this.containerTasks.length === 0) return this.maxSessions;
    return Math.min(this.maxSessions, this.hosts.capacity());
  }

  /** The hosts as `--json` shows them (none without --hosts). */
  hostViews(): ReturnType<EnvHosts['views']> {
    return this.hosts?.views() ?? [];
  }

  /** The ids of the tasks whose episodes run in a container. */
  containerTaskIds(): string[] {
    return this.containerTasks.map((t) => t.id);
  }

  /** Seconds until a session slot is expected to free (the earliest expiry or idle end), at least 1. */
  private retryAfter(): number {
    const now = Date.now();
    let soonest = Infinity;
    for (const s of this.sessions.values()) soonest = Math.min(soonest, s.expiresAt, s.lastSeen + this.idleSec * 1000);
    return Math.max(1, Math.ceil((soonest - now) / 1000));
  }

  createSession(): { session_id: string; token: string; expires_at: string; ttl_s: number; idle_timeout_s: number } {
    if (this.stopped) throw new EnvError(503, 'the service is shutting down');
    const cap = this.sessionCap();
    if (cap === 0)
      throw new EnvError(
        503,
        `no engine host is live (${this.hostNames()}): \`t1lab hosts check\` says why; restart the service when one is back`,
      );
    if (this.sessions.size >= cap) {
      const bound =
        cap < this.maxSessions ? ` (bounded by the ${cap} slot${cap === 1 ? '' : 's'} of the live engine hosts)` : '';
      throw new EnvError(429, `all ${cap} sessions are in use${bound}; retry later`, this.retryAfter());
    }
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    const session: Session = {
      id: `s-${randomUUID()}`,
      tokenHash: hashOf(token),
      createdAt: now,
      lastSeen: now,
      expiresAt: now + this.ttlSec * 1000,
      episode: null,
      episodeId: null,
      task: null,
      placed: null,
      last: null,
      busy: false,
      closed: false,
    };
    this.sessions.set(session.id, session);
    this.log(`session ${session.id} opened (${this.sessions.size}/${this.maxSessions})`);
    return {
      session_id: session.id,
      token,
      expires_at: new Date(session.expiresAt).toISOString(),
      ttl_s: this.ttlSec,
      idle_timeout_s: this.idleSec,
    };
  }

  /** One request at a time per session; marks it seen. */
  private async serve<T>(session: Session, work: () => Promise<T>): Promise<T> {
    if (session.closed) throw new EnvError(401, 'the session has ended');
    if (session.busy) throw new EnvError(409, 'this session is already serving a request; send one at a time');
    session.busy = true;
    session.lastSeen = Date.now();
    try {
      return await work();
    } finally {
      session.busy = false;
      session.lastSeen = Date.now();
    }
  }

  private pickTask(params: z.infer<typeof ResetParams>): Task {
    if (params.task_id !== undefined) {
      const task = this.byId.get(params.task_id);
      if (!task) throw new EnvError(404, `unknown task '${params.task_id.slice(0, 200)}' (GET /tasks lists them)`);
      return task;
    }
    if (this.sorted.length === 0) throw new EnvError(404, 'the suite has no tasks');
    const seed = params.seed ?? Math.floor(Math.random() * 2 ** 31);
    return this.sorted[seed % this.sorted.length] as Task;
  }

  private runtimeOf(task: Task): Promise<PhaseRuntime> {
    let r = this.runtimes.get(task.id);
    if (!r) {
      r = resolvePhaseRuntime(task, this.options.containers);
      this.runtimes.set(task.id, r);
      r.catch(() => this.runtimes.delete(task.id));
    }
    return r;
  }

  async reset(session: Session, raw: unknown): Promise<EnvResponse> {
    const params = ResetParams.safeParse(raw ?? {});
    if (!params.success) throw new EnvError(400, `bad reset parameters: ${issues(params.error)}`);
    return this.serve(session, async () => {
      const task = this.pickTask(params.data);
      await this.endEpisode(session);
      const runtime = await this.runtimeOf(task).catch((e: Error) => {
        throw new EnvError(503, this.cannotRun(task, e));
      });
      if (!this.hosts || !runtime.container)
        return this.answerReset(session, task, await this.begin(session, task, runtime, params.data, null));
      return this.resetOnHost(session, task, runtime, params.data);
    });
  }

  /** Why a task cannot run on this service: a container task without --hosts or a local engine is told so. */
  private cannotRun(task: Task, e: Error): string {
    if (!needsImage(task) || this.hosts) return `task '${task.id}' cannot run here: ${e.message}`;
    const why = task.environment.runtime.kind === 'container' ? ` (it ${task.environment.runtime.reason})` : '';
    return `task '${task.id}' needs a container${why}: this service runs it only on engine hosts (\`t1lab env serve --hosts a,b\`, hosts from \`t1lab hosts add\`) or on this machine's podman or docker (--backend auto); here: ${e.message}`;
  }

  private hostNames(): string {
    return this.hostViews()
      .map((h) => `'${h.name}'${h.alive ? '' : ' down'}`)
      .join(', ');
  }

  /**
   * A container episode on a host with a free slot (never waiting: 429 when none is free). A host that
   * cannot take the image or fails before the first action is left out and the next live one is tried;
   * with none left, a 503 that names each host and why.
   */
  private async resetOnHost(
    session: Session,
    task: Task,
    runtime: PhaseRuntime,
    params: z.infer<typeof ResetParams>,
  ): Promise<EnvResponse> {
    const hosts = this.hosts as EnvHosts;
    const tried = new Set<string>();
    const why: string[] = [];
    for (let i = 0; i < MAX_HOST_TRIES; i++) {
      const placed = await hosts.place(runtime, tried);
      if (placed === 'full')
        throw new EnvError(
          429,
          `every slot of the engine hosts (${this.hostNames()}) is taken; retry later`,
          this.retryAfter(),
        );
      if (placed === 'none') break;
      tried.add(placed.host);
      if ('error' in placed) {
        why.push(placed.error);
        this.log(`host '${placed.host}' could not take task '${task.id}': ${placed.error}`);
        continue;
      }
      const first = await this.begin(session, task, placed.runtime, params, placed);
      const failure = first ? await session.placed?.failure : null;
      if (!failure) return this.answerReset(session, task, first);
      why.push(failure);
      this.log(
        `host '${placed.host}' failed while task '${task.id}' was set up; it is not used any more (${failure.slice(0, 200)})`,
      );
    }
    session.episode = null;
    throw new EnvError(
      503,
      `no engine host could run task '${task.id}': ${why.length ? why.join('; ') : `hosts ${this.hostNames()} are down`}`,
    );
  }

  /** Start an episode of `task` on `runtime` (recorded however it ends): null once it waits for the first action, or its end. */
  private async begin(
    session: Session,
    task: Task,
    runtime: PhaseRuntime,
    params: z.infer<typeof ResetParams>,
    placement: Placement | null,
  ): Promise<Extract<StepResult, { kind: 'end' }> | null> {
    const attempt = this.attempts.get(task.id) ?? 0;
    this.attempts.set(task.id, attempt + 1);
    const episode = new RemoteEpisode({
      task,
      harness: HarnessSettings.parse({}),
      key: episodeKey(task.id, attempt),
      attempt,
      seed: params.seed ?? 0,
      dir: this.store.prepareEpisodeDir(task.id, attempt),
      runtime,
      tmpDir: this.options.tmpDir,
    });
    session.episode = episode;
    session.task = task;
    session.episodeId = params.episode_id ?? `${task.id}@${attempt}`;
    session.placed = null;
    if (placement) {
      const hosts = this.hosts as EnvHosts;
      // The slot is given back once the episode ended (its container removed); whether the host failed is asked then.
      const failure = episode.outcome.then((o) =>
        hosts.failure(
          placement.host,
          o ? o.record.error : { kind: 'sandbox', message: 'the episode failed before it had a record' },
        ),
      );
      void failure.catch(() => null).finally(() => placement.release());
      session.placed = { host: placement.host, failure: failure.catch(() => null) };
    }
    const recorded = this.record(episode, session.placed);
    this.finishing.add(recorded);
    void recorded.finally(() => this.finishing.delete(recorded));
    const first = await episode.start();
    // The session ended while the episode was set up (its WebSocket closed, DELETE /session): no one will end it later.
    if (session.closed) {
      await this.endEpisode(session);
      throw new EnvError(401, 'the session has ended');
    }
    return first;
  }

  private answerReset(
    session: Session,
    task: Task,
    first: Extract<StepResult, { kind: 'end' }> | null,
  ): Promise<EnvResponse> | EnvResponse {
    const base = {
      task_id: task.id,
      episode_id: session.episodeId,
      instruction: task.instruction,
      agent_timeout_s: task.agent.timeoutSec,
      ...(session.placed ? { host: session.placed.host } : {}),
    };
    if (first) return this.ended(session, first, base);
    return {
      observation: { ...base, output: '', screen: session.episode?.screen() ?? [], step: 0 },
      reward: null,
      done: false,
    };
  }

  async step(session: Session, raw: unknown): Promise<EnvResponse> {
    const body = z
      .object({
        action: z.unknown(),
        timeout_s: z.number().positive().max(3600).optional(),
        request_id: z.string().max(255).optional(),
      })
      .passthrough()
      .safeParse(raw);
    if (!body.success) throw new EnvError(400, `bad step request: ${issues(body.error)}`);
    const parsed = EnvAction.safeParse(body.data.action);
    if (!parsed.success)
      throw new EnvError(
        400,
        'bad action: expected {"command": "...", "timeout_s"?: N}, {"keystrokes": "..." | ["...", "Enter"], "duration_s"?: N} or {"submit": true}',
      );
    let action = toAction(parsed.data);
    if (action.tool === 'bash' && action.timeoutSec === undefined && body.data.timeout_s !== undefined)
      action = { ...action, timeoutSec: body.data.timeout_s };
    return this.serve(session, async () => {
      const episode = session.episode;
      if (!episode) throw new EnvError(409, 'no episode: call /reset first');
      if (episode.done) throw new EnvError(409, 'the episode is done: call /reset to start another');
      const result = await episode.act(action);
      const base = {
        task_id: session.task?.id,
        episode_id: session.episodeId,
        step: episode.steps,
        ...(session.placed ? { host: session.placed.host } : {}),
      };
      if (result.kind === 'turn')
        return {
          observation: { ...base, ...turnView(result.turn), screen: episode.screen() },
          reward: null,
          done: false,
        };
      return this.ended(session, result, base);
    });
  }

  state(session: Session): Record<string, unknown> {
    session.lastSeen = Date.now();
    return {
      session_id: session.id,
      episode_id: session.episodeId,
      task_id: session.task?.id ?? null,
      step_count: session.episode?.steps ?? 0,
      done: session.episode ? session.episode.done : null,
      expires_at: new Date(session.expiresAt).toISOString(),
      host: session.placed?.host ?? null,
      last_episode: session.last
        ? {
            key: session.last.key,
            resolved: session.last.resolved,
            reward: session.last.reward,
            stop_reason: session.last.stopReason,
          }
        : null,
    };
  }

  /** The final observation: the verifier's verdict with the three rewards; a 502 naming the host when the episode's host failed under it. */
  private async ended(
    session: Session,
    result: Extract<StepResult, { kind: 'end' }>,
    base: Record<string, unknown>,
  ): Promise<EnvResponse> {
    const outcome = result.outcome;
    const failure = session.placed ? await session.placed.failure : null;
    if (failure) {
      session.last = outcome ? infrastructure(outcome.record, failure) : session.last;
      throw new EnvError(
        502,
        `engine host '${session.placed?.host}' failed under this episode (${failure.slice(0, 500)}); the episode is over and recorded as an infrastructure error, not a task failure; POST /reset starts another on a live host`,
      );
    }
    if (outcome) session.last = outcome.record;
    const reward = outcome?.record.reward ?? null;
    const verifier = outcome?.trajectory.verifier ?? null;
    return {
      observation: {
        ...base,
        ...(result.turn ? turnView(result.turn) : { output: '' }),
        resolved: outcome?.record.resolved ?? false,
        rewards: reward,
        stop_reason: outcome?.record.stopReason ?? 'sandbox_error',
        error: outcome?.record.error ?? (result.error ? { kind: 'sandbox', message: result.error.message } : null),
        verifier: verifier
          ? {
              status: verifier.status,
              passed: verifier.passed,
              total: verifier.total,
              assertions: verifier.assertions.map((a) => ({
                name: a.name,
                status: a.status,
                message: a.message ?? null,
              })),
            }
          : null,
      },
      reward: reward ? reward[this.rewardName] : null,
      done: true,
    };
  }

  /** Append the episode's record when it ends, however it ends; one whose host failed under it is an infrastructure error. */
  private async record(episode: RemoteEpisode, placed: Session['placed']): Promise<void> {
    const outcome = await episode.outcome;
    if (!outcome) return;
    const failure = placed ? await placed.failure : null;
    const record = failure ? infrastructure(outcome.record, failure) : outcome.record;
    await this.store
      .append(placed ? { ...record, host: placed.host } : record)
      .catch((e: Error) => this.log(`could not record episode ${outcome.record.key}: ${e.message}`));
    this.log(
      `episode ${outcome.record.key}: ${outcome.record.stopReason}, ${outcome.record.resolved ? 'resolved' : 'not resolved'}${outcome.record.reward ? ` (dense ${outcome.record.reward.dense})` : ''}`,
    );
  }

  private async endEpisode(session: Session): Promise<void> {
    const episode = session.episode;
    session.episode = null;
    if (episode && !episode.done) await episode.cancel(new EpisodeStop('cancelled'));
  }

  /** End a session: its episode is cancelled (its sandbox removed, its record written). */
  async closeSession(session: Session, why: string): Promise<void> {
    if (session.closed) return;
    session.closed = true;
    this.sessions.delete(session.id);
    this.log(`session ${session.id} closed (${why})`);
    await this.endEpisode(session);
  }

  private reap(): void {
    const now = Date.now();
    for (const s of this.sessions.values()) {
      if (now >= s.expiresAt) void this.closeSession(s, 'time-to-live reached');
      else if (!s.busy && now - s.lastSeen >= this.idleSec * 1000)
        void this.closeSession(s, `idle for ${this.idleSec} s`);
    }
  }

  /** End every session and wait for their episodes' records. */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.all([...this.sessions.values()].map((s) => this.closeSession(s, 'the service stopped')));
    await Promise.all([...this.finishing]);
    await this.hosts?.close();
    await this.store.close();
  }
}

/** The record of an episode its host failed under: an infrastructure error, left out of the statistics. */
function infrastructure(record: EpisodeRecord, reason: string): EpisodeRecord {
  return { ...record, resolved: false, error: { kind: 'infrastructure', message: `infrastructure: ${reason}` } };
}

function turnView(turn: Turn): Record<string, unknown> {
  const ex = turn.executions[0];
  return {
    output: turn.observation,
    exit_code: ex?.exitCode ?? null,
    timed_out: ex?.timedOut ?? false,
    waiting_for_input: ex?.waitingForInput ?? false,
    duration_ms: ex ? Math.round(ex.durationMs) : 0,
  };
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');
}
