/**
 * An evaluation: a suite, a policy, attempts per task, run with bounded concurrency into a run folder that
 * survives being killed. Used by `t1lab eval`, `t1lab run` and the Runs page (through the eval worker).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { SandboxBackend } from '../../../native/sandbox/types';
import { createPolicy, type OnnxPolicyFactory } from '../../agent/policy';
import type { Policy } from '../../agent/policy/types';
import { LabError } from '../../ipc/common/errors';
import {
  EvalRequest,
  RUN_SCHEMA,
  type EpisodeRecord,
  type EvalRequestParsed,
  type EvalSummary,
  type LiveEpisode,
  type EvalRunConfig,
  type RunManifest,
  type RunProgress,
  type RunStats,
  type RunContainers,
  type SkippedTask,
} from '../../domain/runs';
import type { Turn } from '../../domain/trajectory';
import { EVAL_DEFAULTS } from '../../domain/eval-defaults';
import { appRoot, appVersion } from '../app-paths';
import { loadTaskSource, type Task } from '../tasks';
import { runsDir } from './library';
import { describeUnfit, promptFitWarning, promptsThatDoNotFit } from './prompt-fit';
import { feasibilityWarning, measureFeasibility, runFeasibility } from './feasibility';
import { runTaskEpisode } from './run-episode';
import { describeAction, runSchedule, type TaskRef } from './scheduler';
import { containerSettings, type ContainerSettings } from '../containers/settings';
import { resolvePhaseRuntime, type PhaseRuntime } from '../containers/runtime';
import { openHostPool, runPlaced, type HostPool } from '../hosts/placement';
import { listHosts } from '../hosts/store';
import type { HostConfig } from '../../../native/sandbox/container/api/client';
import { computeStats } from './stats';
import { episodeKey, RunStore } from './store';
import { clearEvalRunning, markEvalRunning } from './meta';
import { startSystemLog, type SystemLog } from './system-log';

/** Set-up and slack added to a task's agent and verifier timeouts to make its default episode deadline. */
const DEADLINE_MARGIN_SEC = 120;
/** Terminal bytes kept per running episode for late viewers (enough to redraw a 160x40 screen). */
const LIVE_BUFFER_CHARS = 64 * 1024;

export interface EvalEnv {
  dataDir: string;
  onnx?: OnnxPolicyFactory;
  sandbox?: SandboxBackend;
  tmpDir?: string;
  /** Backend choice, base-image map and network switch; default: auto, the config file's map, network off. */
  containers?: ContainerSettings;
}

export interface EvalHooks {
  progress?(progress: RunProgress): void;
  turn?(key: string, turn: Turn): void;
  data?(key: string, data: string): void;
  episode?(record: EpisodeRecord): void;
  /** Things worth telling the user (skipped tasks, episodes that failed without a record). */
  log?(message: string): void;
}

export interface EvalResult {
  stats: RunStats;
  summary: EvalSummary;
  cancelled: boolean;
  /** Episodes recorded by this invocation. */
  ran: number;
}

export interface Evaluation {
  runId: string;
  runDir: string;
  manifest: RunManifest;
  progress(): RunProgress;
  /** Every episode recorded in the run folder (earlier invocations included). */
  records(): EpisodeRecord[];
  live(): LiveEpisode[];
  cancel(): void;
  done: Promise<EvalResult>;
}

function commitOf(root: string): string | null {
  if (!existsSync(join(root, '.git'))) return null;
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 2_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || null
    );
  } catch {
    return null;
  }
}

/** The policy's last words, whole (`onnx:…/models/nano-rl-dense` -> `models-nano-rl-dense`, never `ain-models-…`). */
export function slug(text: string): string {
  const words = text
    .replace(/^[a-z]+:/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  const kept: string[] = [];
  let length = 0;
  for (const word of words.reverse()) {
    const cost = word.length + (kept.length ? 1 : 0);
    if (kept.length && length + cost > 24) break;
    kept.unshift(word.slice(-24));
    length += cost;
  }
  return kept.join('-') || 'run';
}

export function newRunId(kind: 'eval' | 'run', policy: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${kind}-${slug(policy)}-${randomBytes(2).toString('hex')}`;
}

function refOf(task: Task): TaskRef {
  return { id: task.id, category: task.metadata.category, difficulty: task.metadata.difficulty ?? 'unknown' };
}

/** `rerun`: episodes this invocation ran again because an infrastructure error had ended them (resume). */
export function toSummary(
  stats: RunStats,
  manifest: RunManifest,
  runDir: string,
  durationMs: number,
  rerun = 0,
): EvalSummary {
  const brief = (groups: RunStats['byCategory']) =>
    Object.fromEntries(Object.entries(groups).map(([k, g]) => [k, { tasks: g.tasks, resolvedRate: g.resolvedRate }]));
  return {
    suite: manifest.config.suite,
    policy: manifest.config.policy,
    tasks: stats.tasks,
    episodes: stats.episodes,
    resolvedRate: stats.resolvedRate,
    ci95: stats.ci95,
    ...(manifest.config.attempts > 1 && stats.ci95Bootstrap ? { ci95Bootstrap: stats.ci95Bootstrap } : {}),
    meanReward: stats.meanReward,
    passAtK: stats.passAtK,
    ...(stats.avgAtK ? { avgAtK: stats.avgAtK } : {}),
    byCategory: brief(stats.byCategory),
    byDifficulty: brief(stats.byDifficulty),
    errors: stats.errors,
    durationMs: Math.round(durationMs),
    runDir,
    skipped: manifest.config.skipped ?? [],
    warnings: manifest.warnings ?? [],
    ...(fidelityNotes(manifest).length ? { fidelity: fidelityNotes(manifest) } : {}),
    ...(rerun ? { rerun } : {}),
  };
}

/** Caveats a reader of the results must see: tasks whose image was built on a substituted base. */
export function fidelityNotes(manifest: RunManifest): string[] {
  const notes: string[] = [];
  for (const [id, t] of Object.entries(manifest.config.containers?.tasks ?? {})) {
    if (t.substitutions.length)
      notes.push(
        `${id}: built with ${t.substitutions.map((x) => `${x.from} replaced by ${x.to}`).join(', ')} — not the task's published image`,
      );
  }
  return notes;
}

/** Load the suite: every task, and those that cannot load with the reason (they stay in the denominator). */
async function loadSuite(suite: string, log: (m: string) => void): Promise<{ tasks: Task[]; invalid: SkippedTask[] }> {
  const source = await loadTaskSource(suite);
  const invalid = source.invalid.map((bad) => ({
    task: bad.id,
    reason: `invalid task: ${bad.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.file}${p.field ? ` ${p.field}` : ''}: ${p.reason}`)
      .join('; ')}`,
  }));
  for (const bad of invalid) log(`skipped '${bad.task}': ${bad.reason}`);
  return { tasks: source.tasks, invalid };
}

/**
 * Each task's backend and image (built here when needed, one at a time, with its progress logged). A task
 * whose runtime cannot be had is skipped with the reason; it stays in the denominator.
 */
async function resolveRuntimes(
  tasks: Task[],
  settings: ContainerSettings,
  log: (m: string) => void,
): Promise<{ runtimes: Map<string, PhaseRuntime>; skipped: SkippedTask[]; containers: RunContainers }> {
  const runtimes = new Map<string, PhaseRuntime>();
  const skipped: SkippedTask[] = [];
  const hosts = settings.hosts?.length ? { hosts: settings.hosts.map((h) => h.name) } : {};
  const containers: RunContainers = {
    backend: settings.backend,
    engine: settings.engine,
    network: settings.network,
    baseImages: settings.baseImages,
    ...hosts,
    tasks: {},
  };
  for (const [i, task] of tasks.entries()) {
    try {
      const runtime = await resolvePhaseRuntime(task, settings, {
        onStage: (stage) => log(`[${i + 1}/${tasks.length}] ${task.id}: ${stage}`),
      });
      runtimes.set(task.id, runtime);
      const image = runtime.container?.image ?? null;
      containers.tasks[task.id] = {
        backend: runtime.backend,
        network: runtime.network,
        image: image?.ref ?? null,
        imageSource: image?.source ?? null,
        substitutions: image?.substitutions ?? [],
      };
      if (image?.substitutions.length)
        log(`${task.id}: fidelity caveat: ${image.substitutions.map((x) => `${x.from} -> ${x.to}`).join(', ')}`);
    } catch (error) {
      const reason = (error as Error).message;
      skipped.push({ task: task.id, reason });
      log(`skipped '${task.id}': ${reason.split('\n')[0]}`);
    }
  }
  return { runtimes, skipped, containers };
}

/** The record of an episode that could not run: unresolved, zero reward, counted under errors.sandbox. */
function skippedRecord(ref: TaskRef, attempt: number, reason: string, dir: string): EpisodeRecord {
  return {
    key: episodeKey(ref.id, attempt),
    taskId: ref.id,
    attempt,
    category: ref.category,
    difficulty: ref.difficulty,
    resolved: false,
    reward: null,
    turns: 0,
    stopReason: 'sandbox_error',
    error: { kind: 'sandbox', message: `not run: ${reason}` },
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
    durationMs: 0,
    dir,
    finishedAt: new Date().toISOString(),
  };
}

/** What a running evaluation shows: its episodes running and their live output, its counts and state. */
interface EvalTracker {
  total: number;
  running: Map<string, RunProgress['running'][number]>;
  live: Map<string, { taskId: string; attempt: number; buffer: string }>;
  cut: number;
  ran: number;
  /** Episodes an infrastructure error had ended, scheduled again by this invocation (resume), and how many of them finished. */
  retry: ReadonlySet<string>;
  rerun: number;
  state: RunProgress['state'];
  message: string | null;
  progress(): RunProgress;
  emit(): void;
}

function trackEvaluation(store: RunStore, hooks: EvalHooks, retry: ReadonlySet<string>): EvalTracker {
  const config = store.manifest.config;
  const t: EvalTracker = {
    total: config.tasks.length * config.attempts,
    running: new Map(),
    live: new Map(),
    cut: 0,
    ran: 0,
    retry,
    rerun: 0,
    state: 'running',
    message: null,
    progress: () => {
      const done = store.finished();
      return {
        runId: store.manifest.id,
        runDir: store.dir,
        state: t.state,
        total: t.total,
        done: done.length,
        resolved: done.filter((r) => r.resolved).length,
        cut: t.cut,
        running: [...t.running.values()],
        message: t.message,
      };
    },
    emit: () => hooks.progress?.(t.progress()),
  };
  return t;
}

/** The scheduler's events, kept in the tracker and passed on to the hooks. */
function scheduleEvents(t: EvalTracker, hooks: EvalHooks): Parameters<typeof runSchedule<Task>>[0]['events'] {
  return {
    started(episode) {
      t.running.set(episode.key, episode);
      t.live.set(episode.key, { taskId: episode.taskId, attempt: episode.attempt, buffer: '' });
      t.emit();
    },
    turn(key, turn) {
      const r = t.running.get(key);
      if (r) t.running.set(key, { ...r, turns: turn.index + 1, lastAction: describeAction(turn) });
      hooks.turn?.(key, turn);
      t.emit();
    },
    data(key, data) {
      const l = t.live.get(key);
      if (l) l.buffer = (l.buffer + data).slice(-LIVE_BUFFER_CHARS);
      hooks.data?.(key, data);
    },
    finished(record) {
      t.ran++;
      if (t.retry.has(record.key)) t.rerun++;
      if (record.stopReason === 'deadline') t.cut++;
      t.running.delete(record.key);
      t.live.delete(record.key);
      hooks.episode?.(record);
      t.emit();
    },
    failed(key, error) {
      t.running.delete(key);
      t.live.delete(key);
      hooks.log?.(`episode ${key} failed without a result (it will run again on resume): ${error.message}`);
      t.emit();
    },
  };
}

function launch(
  store: RunStore,
  tasks: Task[],
  policy: Policy,
  env: EvalEnv,
  hooks: EvalHooks,
  runtimes: Map<string, PhaseRuntime> = new Map(),
  retry: ReadonlySet<string> = new Set(),
): Evaluation {
  const { manifest } = store;
  const controller = new AbortController();
  const tracker = trackEvaluation(store, hooks, retry);
  // Other processes (`t1lab runs rm`, the Runs page of another host) see that this run is busy.
  markEvalRunning(store.dir);
  const done = runEvaluation({ store, tasks, policy, env, hooks, runtimes, tracker, signal: controller.signal });
  return {
    runId: manifest.id,
    runDir: store.dir,
    manifest,
    progress: tracker.progress,
    records: () => store.finished(),
    live: () =>
      [...tracker.live.entries()].map(([key, l]) => ({ key, taskId: l.taskId, attempt: l.attempt, buffer: l.buffer })),
    cancel: () => controller.abort(),
    done,
  };
}

/** Schedule every episode not finished yet, then the statistics and the summary; the run is marked idle again whatever happens. */
async function runEvaluation(x: {
  store: RunStore;
  tasks: Task[];
  policy: Policy;
  env: EvalEnv;
  hooks: EvalHooks;
  runtimes: Map<string, PhaseRuntime>;
  tracker: EvalTracker;
  signal: AbortSignal;
}): Promise<EvalResult> {
  const { store, policy, env, tracker: t } = x;
  const { manifest } = store;
  const config = manifest.config;
  const started = performance.now();
  const byId = new Map(x.tasks.map((task) => [task.id, task]));
  t.emit();
  let pool: HostPool | null = null;
  // The machine every few seconds into system.jsonl while the episodes run (appended to on resume).
  let system: SystemLog | null = null;
  try {
    system = startSystemLog(store.dir, { episodes: () => t.running.size });
    // Engine hosts (eval --hosts) for container episodes: asked and swept now, swept again at the end.
    pool = await openHostPool(env.containers?.hosts, env.dataDir, manifest.id, x.hooks.log);
    const { cancelled } = await runSchedule<Task>({
      store,
      // Tasks that could not run have their records already; only the others are scheduled.
      tasks: config.tasks.filter((ref) => byId.has(ref.id)).map((ref) => ({ ref, task: byId.get(ref.id) as Task })),
      attempts: config.attempts,
      concurrency: config.concurrency,
      seed: config.seed,
      deadlineSec: (task) =>
        config.episodeDeadlineSec ??
        (config.harness.agentTimeoutSec ?? task.agent.timeoutSec) + task.verifier.timeoutSec + DEADLINE_MARGIN_SEC,
      signal: x.signal,
      run: (job) =>
        runPlaced(
          pool,
          x.runtimes.get(job.task.id),
          async (runtime) =>
            (
              await runTaskEpisode({
                task: job.task,
                policy,
                harness: config.harness,
                key: job.key,
                attempt: job.attempt,
                seed: job.seed,
                dir: job.dir,
                signal: job.signal,
                onTurn: job.onTurn,
                onData: job.onData,
                sandbox: env.sandbox,
                runtime,
                tmpDir: env.tmpDir,
              })
            ).record,
          (reason) => ({
            ...skippedRecord(job.ref, job.attempt, reason, job.dir.rel),
            error: { kind: 'infrastructure', message: reason },
          }),
          x.hooks.log,
        ),
      events: scheduleEvents(t, x.hooks),
    });
    for (const key of t.running.keys()) t.live.delete(key);
    t.running.clear();
    await system.stop();
    const stats = computeStats(store.finished(), config.seed);
    const summary = toSummary(stats, manifest, store.dir, performance.now() - started, t.rerun);
    const complete = store.finished().length >= t.total;
    t.state = cancelled ? 'cancelled' : complete ? 'done' : 'failed';
    if (!complete)
      t.message = `${t.total - store.finished().length} episode(s) not finished: resume with --resume ${store.dir}`;
    if (complete) store.writeSummary({ summary, stats });
    // Not running any more before anyone hears "done": a list read on that event must not say running.
    clearEvalRunning(store.dir);
    t.emit();
    return { stats, summary, cancelled, ran: t.ran };
  } catch (error) {
    t.state = 'failed';
    t.message = (error as Error).message;
    clearEvalRunning(store.dir);
    t.emit();
    throw error;
  } finally {
    await system?.stop().catch(() => {});
    await pool?.close();
    clearEvalRunning(store.dir);
    await store.close();
    await policy.close().catch(() => {});
  }
}

type StartInput = EvalRequest & { kind?: 'eval' | 'run'; only?: readonly string[] };

/** `only`: keep just these task ids of the suite (t1lab run, benchmarks). */
export async function startEvaluation(input: StartInput, env: EvalEnv, hooks: EvalHooks = {}): Promise<Evaluation> {
  const request = withDefaults(EvalRequest.parse(input));
  const log = hooks.log ?? (() => {});
  const policy = await createPolicy(request.policy, request.policySettings, env.onnx);
  try {
    const only = input.only ?? request.only;
    const { tasks, invalid } = await suiteTasks(request.suite, only, log);
    const checked = await checkPolicyOnTasks(policy, tasks, request, log);
    const kind = input.kind ?? 'eval';
    if (kind === 'run') checkOneTask(request.suite, tasks, invalid);
    const settings = env.containers ?? containerSettings({ dataDir: env.dataDir });
    const { runtimes, skipped, containers } = await resolveRuntimes(tasks, settings, log);
    if (kind === 'run' && skipped.length)
      throw new LabError('UNAVAILABLE', skipped[0]?.reason ?? 'the task cannot run');
    const runDir = resolve(request.out ?? join(runsDir(env.dataDir), newRunId(kind, request.policy)));
    const allSkipped = [...invalid, ...skipped];
    const config = evalRunConfig(kind, request, { tasks, invalid, containers, skipped: allSkipped, only });
    const store = RunStore.create(runDir, runManifest(runDir, config, checked));
    await recordSkipped(store, config, allSkipped);
    const runnable = tasks.filter((t) => runtimes.has(t.id));
    return launch(store, runnable, policy, env, hooks, runtimes);
  } catch (error) {
    await policy.close().catch(() => {});
    throw error;
  }
}

/** Greedy unless a temperature is asked for, whoever starts the run (shell or page); run.json records it. */
function withDefaults(parsed: EvalRequestParsed): EvalRequestParsed {
  return {
    ...parsed,
    policySettings: {
      ...parsed.policySettings,
      temperature: parsed.policySettings.temperature ?? EVAL_DEFAULTS.temperature,
    },
  };
}

/** The suite's tasks and those that cannot load, just `only`'s when given; none at all is an error. */
async function suiteTasks(
  suite: string,
  only: readonly string[] | undefined,
  log: (m: string) => void,
): Promise<{ tasks: Task[]; invalid: SkippedTask[] }> {
  const loaded = await loadSuite(suite, log);
  let tasks = loaded.tasks;
  let invalid = loaded.invalid;
  if (only) {
    tasks = tasks.filter((t) => only.includes(t.id));
    invalid = invalid.filter((t) => only.includes(t.task));
  }
  if (tasks.length + invalid.length === 0)
    throw new LabError(
      'NOT_FOUND',
      `${suite}: no task${only ? ` ${only.map((id) => `'${id}'`).join(', ')}` : ''} found`,
    );
  return { tasks, invalid };
}

interface PolicyChecks {
  /** A prompt that may not fit the policy's context (a warning). */
  fit: string | null;
  feasibility: Awaited<ReturnType<typeof measureFeasibility>>;
  /** Tasks the oracle cannot solve within the run's turns or time (a warning). */
  unreachable: string | null;
}

/** The prompts against the policy's context (an error with `checkFit`, else a warning) and the oracle's feasibility. */
async function checkPolicyOnTasks(
  policy: Policy,
  tasks: Task[],
  request: EvalRequestParsed,
  log: (m: string) => void,
): Promise<PolicyChecks> {
  if (request.checkFit) {
    const unfit = promptsThatDoNotFit(
      policy,
      tasks.map((t) => ({ id: t.id, instruction: t.instruction, agentTimeoutSec: t.agent.timeoutSec })),
      request.harness,
    );
    if (unfit.length) throw new LabError('CONFLICT', describeUnfit(unfit, tasks.length), { field: 'policy', unfit });
  }
  const fit = promptFitWarning(policy, tasks, request.harness.maxTurns);
  if (fit) log(fit);
  const feasibility = await measureFeasibility(policy, tasks, {
    maxTurns: request.harness.maxTurns,
    agentTimeoutSec: request.harness.agentTimeoutSec,
  });
  const unreachable = feasibilityWarning(feasibility, `the suite ${request.suite}`);
  if (unreachable) log(unreachable);
  return { fit, feasibility, unreachable };
}

/** `t1lab run` takes exactly one task, and one that can run. */
function checkOneTask(suite: string, tasks: Task[], invalid: SkippedTask[]): void {
  if (tasks.length + invalid.length !== 1)
    throw new LabError(
      'INVALID_PARAMS',
      `${suite} holds ${tasks.length} tasks: give one task folder, or a task id with --suite`,
    );
  if (tasks.length === 0)
    throw new LabError('INVALID_PARAMS', `task '${invalid[0]?.task}' cannot run: ${invalid[0]?.reason}`);
}

function evalRunConfig(
  kind: 'eval' | 'run',
  request: EvalRequestParsed,
  x: {
    tasks: Task[];
    invalid: SkippedTask[];
    containers: RunContainers;
    skipped: SkippedTask[];
    only: readonly string[] | undefined;
  },
): EvalRunConfig {
  return {
    kind,
    suite: resolve(request.suite),
    policy: request.policy,
    policySettings: request.policySettings,
    harness: request.harness,
    attempts: request.attempts,
    concurrency: request.concurrency ?? availableParallelism(),
    episodeDeadlineSec: request.episodeDeadlineSec ?? null,
    seed: request.seed ?? randomInt(2 ** 31 - 1),
    tasks: [
      ...x.tasks.map(refOf),
      ...x.invalid.map((t) => ({ id: t.task, category: 'uncategorized', difficulty: 'unknown' })),
    ],
    containers: x.containers,
    skipped: x.skipped,
    ...(x.only ? { only: [...x.only] } : {}),
  };
}

/** run.json: the config with the code's version and commit, the host, the oracle's feasibility and the warnings. */
function runManifest(runDir: string, config: EvalRunConfig, checked: PolicyChecks): RunManifest {
  const root = appRoot();
  return {
    schema: RUN_SCHEMA,
    id: basename(runDir),
    createdAt: new Date().toISOString(),
    config,
    code: { version: appVersion(root), commit: commitOf(root) },
    host: {
      platform: `${process.platform}-${process.arch}`,
      cores: availableParallelism(),
      node: process.versions.node,
    },
    ...(checked.feasibility ? { feasibility: runFeasibility(checked.feasibility) } : {}),
    warnings: [checked.fit, checked.unreachable].filter((w): w is string => w !== null),
  };
}

/** Every attempt of a task that cannot run, recorded as skipped with its reason before anything runs. */
async function recordSkipped(store: RunStore, config: EvalRunConfig, skipped: SkippedTask[]): Promise<void> {
  const why = new Map(skipped.map((t) => [t.task, t.reason]));
  for (const ref of config.tasks) {
    const reason = why.get(ref.id);
    if (reason === undefined) continue;
    for (let attempt = 0; attempt < config.attempts; attempt++)
      await store.append(skippedRecord(ref, attempt, reason, store.prepareEpisodeDir(ref.id, attempt).rel));
  }
}

/**
 * Continue a run folder: exactly its tasks and attempts, skipping every episode that finished (resolved or
 * not). Episodes that ended in an infrastructure error (a host died, an engine failed) are run again. The
 * container episodes go to `options.hosts`, else to the hosts the run used (those still configured), else to
 * this machine's engine.
 */
export async function resumeEvaluation(
  dir: string,
  env: EvalEnv,
  hooks: EvalHooks = {},
  options: { hosts?: HostConfig[] } = {},
): Promise<Evaluation> {
  const store = RunStore.open(dir);
  const config = store.manifest.config;
  try {
    const loaded = await loadTaskSource(config.suite);
    const byId = new Map(loaded.tasks.map((t) => [t.id, t]));
    const skippedIds = new Set((config.skipped ?? []).map((t) => t.task));
    const missing = config.tasks.filter((t) => !byId.has(t.id) && !skippedIds.has(t.id)).map((t) => t.id);
    if (missing.length)
      throw new LabError(
        'NOT_FOUND',
        `cannot resume ${store.dir}: ${config.suite} no longer has task(s) ${missing.join(', ')}`,
      );
    const tasks = config.tasks
      .filter((t) => byId.has(t.id) && !skippedIds.has(t.id))
      .map((t) => byId.get(t.id) as Task);
    const c = config.containers;
    const log = hooks.log ?? (() => {});
    const base =
      env.containers ??
      (c
        ? { backend: c.backend, engine: c.engine, baseImages: c.baseImages, network: c.network, pull: true }
        : containerSettings({ dataDir: env.dataDir }));
    const settings = { ...base, hosts: options.hosts ?? base.hosts ?? hostsOfRun(c?.hosts, env.dataDir, log) };
    const { runtimes } = await resolveRuntimes(tasks, settings, log);
    const policy = await createPolicy(config.policy, config.policySettings, env.onnx);
    const retry = store.retryInfrastructureErrors();
    if (retry.length)
      log(`${retry.length} episode(s) ended in an infrastructure error; they run again: ${retry.join(', ')}`);
    return launch(
      store,
      tasks.filter((t) => runtimes.has(t.id)),
      policy,
      { ...env, containers: settings },
      hooks,
      runtimes,
      new Set(retry),
    );
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The hosts a run used, as the settings file has them now (a host removed since is left out, and said). */
function hostsOfRun(names: string[] | undefined, dataDir: string, log: (m: string) => void): HostConfig[] | undefined {
  if (!names?.length) return undefined;
  const known = listHosts(dataDir);
  const gone = names.filter((n) => !known.some((h) => h.name === n));
  if (gone.length)
    log(`host(s) ${gone.join(', ')} of this run are no longer configured (t1lab hosts list); the others are used`);
  return known.filter((h) => names.includes(h.name));
}
