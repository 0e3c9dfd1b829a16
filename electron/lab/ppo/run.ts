/**
 * `t1lab train ppo`: the loop. Per step t: the rollouts of step t (G episodes per sampled task, real
 * sandboxes, the `onnx:` policy at the weights of version v <= t-1), the experience (R3-scored old
 * log-probs and values, the gap, drift check, rewards, advantages, TIS), the PPO update (critic only for
 * the first `critic_warmup_steps`), then the new weights go to the policy worker. With `async`, step t+1's
 * rollouts start (on the newest weights the worker holds) before step t trains, so samples lag one version
 * (`max_staleness` 1); the weights are swapped only between rollout batches, so no episode mixes versions.
 * A checkpoint (weights, AdamW moments, step, RNG) every `checkpoint.every` steps; `--resume` continues
 * from the last one, re-reading every rollout episode already on disk (none lost, none run twice).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashFile, loadCheckpoint, saveCheckpoint } from '../../../native/model/checkpoint';
import type { ModelConfig } from '../../../native/model/config';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import type { OnnxPolicyEngine } from '../../../native/model/policy-api';
import type { SandboxBackend } from '../../../native/sandbox/types';
import type { Tokenizer } from '../../../native/model/tokenizer';
import type { Policy } from '../../agent/policy/types';
import {
  type MetricsRow,
  type TrainingCheckpointRef,
  type TrainingProgress,
  type TrainingRunManifest,
} from '../../domain/training';
import { LabError } from '../../ipc/common/errors';
import { createOptimizerState, type OptimizerState } from '../../rl/adamw';
import { ResumableRng } from '../../rl/rng';
import { initialValueNorm, type ValueNormState } from '../../rl/value-norm';
import { learningRate, type Schedule } from '../../rl/schedule';
import { appVersion } from '../app-paths';
import { createOnnxPolicyWithEngine } from '../models/onnx-policy';
import { feasibilityWarning, measureFeasibility, runFeasibility } from '../runs/feasibility';
import { policyWorker } from '../models/policy-engine';
import { loadTaskSource, type Task } from '../tasks';
import {
  dropUnloggedCheckpoints,
  loadTrainingCheckpoint,
  pruneRunCheckpoints,
  saveTrainingCheckpoint,
  type TrainerState,
} from '../training/checkpoints';
import { parseRunConfig, type TrainingRunConfig } from '../training/config/run-config';
import type { TrainingControl } from '../training/control';
import {
  createRunFolder,
  MetricsLog,
  newTrainingManifest,
  newTrainingRunId,
  readTrainingManifest,
  trainingRunsDir,
  writeTrainingManifest,
} from '../training/run-folder';
import { TfEventsWriter } from '../tensorboard/tfevents';
import { describeGroups, paramSettings, readTokenizerConfig } from '../training/trainer';
import type { WorkerRegistry } from '../worker-registry';
import { assertionPassRates, flagFarmedAssertions, type AssertionFlag } from './dense-guard';
import { denseGuard, writeGuardFile } from './guard-report';
import { buildExperience, type Experience } from './experience';
import { readRolloutEpisodes, ROLLOUT_FILES, stepDir, type RolloutEpisode } from './rollout-files';
import { collectRollouts, type RolloutBatch } from './rollouts';
import { openRolloutHosts, type RolloutHosts } from './hosts';
import { collectDynamic } from './dynamic-sampling';
import { sampleTasks } from './tasks';
import { ppoMetricsRow, type StepEpisodes } from './step-metrics';
import { ppoUpdate, type UpdateResult } from './update';
import { JsonlAppender } from './rollout-files';
import { checkRunFits } from '../training/memory-check';
import { runLog } from '../training/run-log';
import { sampleSystem } from '../system-sample';

export interface PpoEnv {
  dataDir: string;
  workers: WorkerRegistry;
  sandbox?: SandboxBackend;
  tmpDir?: string;
  log?(message: string): void;
  progress?(p: TrainingProgress): void;
  metrics?(row: MetricsRow): void;
  /** Stop at the next step boundary (after a checkpoint). */
  signal?: AbortSignal;
  /** Pause/stop requests from the app (the trainer worker), honoured at step boundaries. */
  control?: TrainingControl;
  /** Called once the run folder and manifest exist (the trainer worker answers `start` then). */
  onStarted?(runId: string, runDir: string): void;
}

/** `t1lab train ppo --json`: the shape (plus a few fields). */
export interface PpoResult {
  stage: 'ppo';
  steps: number;
  episodes: number;
  tokens: number;
  checkpoint: string | null;
  runDir: string;
  final: { reward: number | null; resolved: number | null; trainInferGap: number | null };
  durationMs: number;
  flaggedAssertions: AssertionFlag[];
  /** Warnings given at the start (a suite the oracle mostly cannot finish at the budget, ...); also in run.json. */
  warnings: string[];
  state: 'completed' | 'stopped';
}

/** A step's rollouts; `dynamic` with dynamic sampling: the groups that disagree (they train), tasks tried, rounds. */
type StepRollouts = RolloutBatch & { dynamic: { mixed: Set<string>; tried: number; rounds: number } | null };

interface PpoCursor {
  rng: number;
  episodes: number;
  /** The value-target statistics (value_norm = "running"); absent in older checkpoints. */
  valueNorm?: ValueNormState;
}

function policyDir(runDir: string, version: number): string {
  return join(runDir, 'policy', `v-${String(version).padStart(7, '0')}`);
}

type RunOptions = {
  config: TrainingRunConfig;
  configSource: string | null;
  out?: string;
  resume?: string;
  steps?: number;
};
type Log = (message: string) => void;

/** What a run starts from, new or resumed: its folder and manifest, the weights, the optimizer, the step reached. */
interface OpenedRun {
  config: TrainingRunConfig;
  runDir: string;
  manifest: TrainingRunManifest;
  state: TrainerState;
  optimizer: OptimizerState;
  params: Map<string, Float32Array>;
  model: ModelConfig;
  tokenizer: Tokenizer;
  tokenizerConfig: Record<string, unknown> | undefined;
}

/** Everything the step phases share: the opened run, the loop's settings and its progress so far. */
interface PpoRun extends OpenedRun {
  env: PpoEnv;
  log: Log;
  ppo: TrainingRunConfig['ppo'];
  rng: ResumableRng;
  settings: ReturnType<typeof paramSettings>['settings'];
  schedule: Schedule;
  cache: TrainingGraphCache;
  reference: Map<string, Float32Array> | null;
  metricsLog: MetricsLog;
  events: TfEventsWriter;
  total: number;
  asyncRollouts: boolean;
  policy: Policy;
  /** The engine hosts of the container tasks' episodes (`ppo.hosts`), or null: this machine. */
  hosts: RolloutHosts | null;
  stop: AbortController;
  /** Weights of the last versions the sampler may still be using (at most max_staleness behind). */
  recent: Map<number, Map<string, Float32Array>>;
  /** Per trained step (index + 1), its kept episodes: the dense-reward guard's history. */
  history: RolloutEpisode[][];
  valueNorm: ValueNormState;
  episodesTrained: number;
  lastCheckpoint: TrainingCheckpointRef | null;
  lastRow: MetricsRow | null;
  /** Move the policy worker to the weights of `version` (between rollout batches only). */
  swapTo(version: number): Promise<void>;
  /** Start step `step`'s rollouts on the worker's current weights. */
  rollouts(step: number): Promise<StepRollouts>;
}

export async function runPpo(o: RunOptions, env: PpoEnv): Promise<PpoResult> {
  const started = performance.now();
  // Every message also goes to the run folder's train.log (the Training page's log view), once it exists.
  const logFile = runLog(env.log);
  const opened = o.resume ? resumeRun(o, logFile) : startRun(o, env, logFile);
  const tasks = await recordSuite(opened);
  env.onStarted?.(opened.manifest.id, opened.runDir);
  const run = await prepareRun(opened, tasks, env, logFile.log);
  progress(run);
  let stoppedEarly = false;
  let pending: Promise<StepRollouts> | null = run.state.step < run.total ? run.rollouts(run.state.step + 1) : null;
  try {
    while (run.state.step < run.total) {
      const step = run.state.step + 1;
      const start = performance.now();
      const batch = await pending!;
      pending = null;
      const rolloutsDone = performance.now();
      if (stopRequested(env)) {
        stoppedEarly = true;
        break;
      }
      // Newest weights to the worker between rollout batches; the next batch starts now when asynchronous.
      await run.swapTo(run.state.step);
      if (run.asyncRollouts && step < run.total) pending = run.rollouts(step + 1);
      const episodes = stepEpisodes(batch);
      const exp = await score(run, step, episodes.trained);
      const scored = performance.now();
      const lr = learningRate(run.schedule, step);
      const criticOnly = step <= run.ppo.critic_warmup_steps;
      const upd = await update(run, exp, lr, criticOnly);
      const trained = performance.now();
      const checkpointSeconds = recordStep(run, step, exp, upd, episodes);
      const times = { start, rolloutsDone, scored, trained, checkpointSeconds, end: performance.now() };
      const row = ppoMetricsRow({
        step,
        tokens: run.state.tokens,
        lr,
        criticOnly,
        reward: run.ppo.reward,
        episodes,
        experience: exp,
        update: upd,
        times,
      });
      logStep(run, row, episodes.kept, exp);
      await pauseIfRequested(run);
      if (stopRequested(env)) {
        stoppedEarly = run.state.step < run.total;
        break;
      }
      if (!run.asyncRollouts && step < run.total) {
        await run.swapTo(run.state.step);
        pending = run.rollouts(step + 1);
      }
    }
  } finally {
    run.stop.abort();
    await pending?.catch(() => null);
    await closeRun(run);
  }
  return finish(run, stoppedEarly, started);
}

const stopRequested = (env: PpoEnv): boolean => !!env.signal?.aborted || !!env.control?.stopRequested;

const freshState = (): TrainerState => ({
  step: 0,
  tokens: 0,
  cursor: null,
  rng: {},
  bestEvalLoss: null,
  lastLoss: null,
  lastEvalLoss: null,
});

/** `--resume`: the run folder's manifest and its last checkpoint that the metrics log reached (or the init). */
function resumeRun(o: RunOptions, logFile: ReturnType<typeof runLog>): OpenedRun {
  const runDir = resolve(o.resume!);
  logFile.attach(runDir);
  const manifest = readTrainingManifest(runDir);
  if (manifest.stage !== 'ppo') throw new LabError('INVALID_PARAMS', `${runDir}: a ${manifest.stage} run, not ppo`);
  const config = parseRunConfig(manifest.config, join(runDir, 'run.json config'), o.steps ? { steps: o.steps } : {});
  manifest.config = config as unknown as Record<string, unknown>;
  const resumable = dropUnloggedCheckpoints(runDir);
  const last = resumable.at(-1) ?? null;
  manifest.checkpoints = manifest.checkpoints.filter((r) => resumable.some((c) => c.dir === r.dir));
  let opened: OpenedRun;
  if (last) {
    const point = loadTrainingCheckpoint(last.dir);
    const { config: model, tokenizer, parameters: params } = point.checkpoint;
    opened = {
      config,
      runDir,
      manifest,
      model,
      tokenizer,
      params,
      tokenizerConfig: readTokenizerConfig(last.dir),
      optimizer: point.optimizer,
      state: point.state,
    };
  } else {
    const { config: model, tokenizer, parameters: params } = loadCheckpoint(manifest.init.path);
    opened = {
      config,
      runDir,
      manifest,
      model,
      tokenizer,
      params,
      tokenizerConfig: readTokenizerConfig(manifest.init.path),
      optimizer: createOptimizerState(params),
      state: freshState(),
    };
  }
  manifest.resumes.push({ at: new Date().toISOString(), fromStep: opened.state.step });
  logFile.log(`resuming ${runDir} from step ${opened.state.step}`);
  return opened;
}

/** A new run: a fresh run folder and manifest, the weights of `model.checkpoint`, a fresh optimizer. */
function startRun(o: RunOptions, env: PpoEnv, logFile: ReturnType<typeof runLog>): OpenedRun {
  const config = o.config;
  if (!config.model.checkpoint)
    throw new LabError('INVALID_PARAMS', 'model.checkpoint: PPO starts from a checkpoint (an SFT checkpoint, usually)');
  const initDir = resolve(config.model.checkpoint);
  if (!existsSync(initDir)) throw new LabError('INVALID_PARAMS', `model.checkpoint: ${initDir} does not exist`);
  checkRunFits(initDir, ['training', 'sampling']); // the trainer here, the sampling policy in its worker
  const runDir = createRunFolder(o.out ?? join(trainingRunsDir(env.dataDir), newTrainingRunId('ppo')));
  logFile.attach(runDir);
  const { config: model, tokenizer, parameters: params } = loadCheckpoint(initDir);
  const tokenizerConfig = readTokenizerConfig(initDir);
  const { settings } = paramSettings(config, model);
  const manifest = newTrainingManifest({
    runDir,
    stage: 'ppo',
    config,
    configSource: o.configSource,
    initDir,
    paramGroups: describeGroups(model, settings),
  });
  return {
    config,
    runDir,
    manifest,
    model,
    tokenizer,
    params,
    tokenizerConfig,
    optimizer: createOptimizerState(params),
    state: freshState(),
  };
}

/** The task suite the run samples from, recorded in the manifest with the run's switches. */
async function recordSuite(r: OpenedRun): Promise<Task[]> {
  const ppo = r.config.ppo;
  const suite = await loadTaskSource(Array.isArray(r.config.data.path) ? r.config.data.path[0]! : r.config.data.path);
  const tasks: Task[] = suite.tasks;
  if (tasks.length === 0) throw new LabError('INVALID_PARAMS', `data.path: ${suite.path} holds no valid task`);
  r.manifest.data = {
    suite: suite.path,
    tasks: tasks.length,
    invalid: suite.invalid.length,
    tokenizerSha256: hashFile(join(r.manifest.init.path, 'tokenizer.json')).sha256,
    switches: { reward: ppo.reward, tito: ppo.tito, r3: ppo.r3, tis: ppo.tis, advantage: ppo.advantage },
  };
  writeTrainingManifest(r.runDir, r.manifest);
  return tasks;
}

/** The loop's machinery: RNG and value statistics from the cursor, the graph cache, the policy worker on the current weights, the oracle's feasibility. */
async function prepareRun(r: OpenedRun, tasks: Task[], env: PpoEnv, log: Log): Promise<PpoRun> {
  const { config, model, runDir, manifest, state } = r;
  const ppo = config.ppo;
  const cursor = (state.cursor as PpoCursor | null) ?? { rng: (config.seed ^ 0x5eed) >>> 0, episodes: 0 };
  const rng = new ResumableRng(cursor.rng);
  const { settings, unmatched } = paramSettings(config, model);
  for (const p of unmatched) log(`warning: optimizer pattern '${p}' matches no parameter`);
  const cache = new TrainingGraphCache(model, {
    provider: config.train.provider,
    intraOpThreads: config.train.threads || undefined,
    interOpThreads: 1,
    // A step's micro-batches make a dozen or so shapes (rows x length bucket, with or without a shared
    // prompt), scoring's more; a session evicted is a session made again (about a second) the next step.
    capacity: 24,
    log,
  });
  const reference = ppo.kl_coef > 0 ? loadCheckpoint(manifest.init.path).parameters : null;
  const metricsLog = new MetricsLog(runDir, state.step);
  const events = new TfEventsWriter(runDir);

  const { policy, version: policyVersion, swapTo } = await openPolicyWorker(r, env);
  await recordFeasibility(r, tasks, policy, log);
  const hosts = await openRolloutHosts(ppo.hosts, { dataDir: env.dataDir, runId: manifest.id, log }).catch(
    async (error: unknown) => {
      await policy.close().catch(() => {});
      throw error;
    },
  );
  const stop = new AbortController();
  env.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const collect = rolloutCollector(r, env, { policy, policyVersion, hosts, signal: stop.signal, log });
  return {
    ...r,
    env,
    log,
    ppo,
    rng,
    settings,
    schedule: lrSchedule(config),
    cache,
    reference,
    metricsLog,
    events,
    total: config.train.steps,
    asyncRollouts: ppo.async && ppo.max_staleness >= 1,
    policy,
    hosts,
    stop,
    recent: new Map(),
    history: trainedHistory(runDir, state.step),
    valueNorm: cursor.valueNorm ?? initialValueNorm(),
    episodesTrained: cursor.episodes,
    lastCheckpoint: manifest.checkpoints.at(-1) ?? null,
    lastRow: null,
    swapTo,
    rollouts: stepRollouts(config, tasks, collect, stop.signal, log),
  };
}

/** The learning-rate schedule of the run's config. */
function lrSchedule(config: TrainingRunConfig): Schedule {
  return {
    kind: config.schedule.kind,
    lr: config.optimizer.lr,
    warmupSteps: config.schedule.warmup_steps,
    totalSteps: config.train.steps,
    minLrRatio: config.schedule.min_lr_ratio,
  };
}

/** Per step trained so far (a resumed run), its kept episodes: the dense-reward guard's history. */
function trainedHistory(runDir: string, step: number): RolloutEpisode[][] {
  const history: RolloutEpisode[][] = [];
  for (let s = 1; s <= step; s++) history.push(readRolloutEpisodes(runDir, s).filter((e) => !e.aborted));
  return history;
}

type CollectRollouts = (step: number, stepTasks: readonly Task[]) => Promise<RolloutBatch>;

/** One batch of rollouts of some tasks, as the run's config asks them, on the policy worker's current version. */
function rolloutCollector(
  r: OpenedRun,
  env: PpoEnv,
  x: { policy: Policy; policyVersion(): number; hosts: RolloutHosts | null; signal: AbortSignal; log: Log },
): CollectRollouts {
  const { config, runDir } = r;
  const ppo = config.ppo;
  return (step, stepTasks) =>
    collectRollouts({
      runDir,
      step,
      tasks: stepTasks,
      groupSize: ppo.group_size,
      oversample: ppo.oversample,
      policy: x.policy,
      policyVersion: x.policyVersion(),
      temperature: ppo.temperature,
      harness: {
        maxTurns: ppo.max_turns,
        contextStrategy: 'drop-oldest',
        observationChars: 10_000,
        ...(ppo.agent_timeout_sec ? { agentTimeoutSec: ppo.agent_timeout_sec } : {}),
        tito: ppo.tito,
      },
      concurrency: ppo.concurrency,
      seed: config.seed,
      abortGraceSec: ppo.abort_grace_sec,
      episodeDeadlineSec: ppo.episode_deadline_sec,
      sandbox: env.sandbox,
      hosts: x.hosts,
      tmpDir: env.tmpDir,
      signal: x.signal,
      log: x.log,
    });
}

/** A step's rollouts; with dynamic sampling, in rounds until tasks_per_step groups disagree (`mixed`: the groups that train). */
function stepRollouts(
  config: TrainingRunConfig,
  tasks: Task[],
  collect: CollectRollouts,
  signal: AbortSignal,
  log: Log,
): (step: number) => Promise<StepRollouts> {
  const ppo = config.ppo;
  return async (step) => {
    if (ppo.dynamic_max_tasks === 0)
      return {
        ...(await collect(step, sampleTasks(tasks, ppo.tasks_per_step, ppo.sampling, config.seed, step))),
        dynamic: null,
      };
    const d = await collectDynamic({
      step,
      candidates: sampleTasks(tasks, ppo.dynamic_max_tasks, ppo.sampling, config.seed, step),
      needed: ppo.tasks_per_step,
      maxTasks: ppo.dynamic_max_tasks,
      reward: ppo.reward,
      runRound: (round) => collect(step, round),
      signal,
      log: (m) => log(`step ${step}: ${m}`),
    });
    return { ...d.batch, dynamic: { mixed: d.mixed, tried: d.tried, rounds: d.rounds } };
  };
}

/** The policy worker on a weights folder of the run's current version; `swapTo` moves it to another version's. */
async function openPolicyWorker(
  r: OpenedRun,
  env: PpoEnv,
): Promise<{ policy: Policy; version(): number; swapTo(version: number): Promise<void> }> {
  const { runDir, model, manifest, state } = r;
  const ppo = r.config.ppo;
  const baseVersion = state.step;
  const writePolicy = (version: number): string => {
    const dir = policyDir(runDir, version);
    if (!existsSync(join(dir, 'manifest.json'))) {
      saveCheckpoint(dir, {
        config: model,
        tokenizer: r.tokenizer,
        tokenizerConfig: r.tokenizerConfig,
        parameters: r.params,
        labVersion: appVersion(),
        metadata: { run_id: manifest.id, policy_version: version },
        overwrite: true,
      });
    }
    // Old versions go, except the one the engine was loaded from (a restarted worker loads it again).
    for (const v of [version - 3, version - 4])
      if (v >= 0 && v !== baseVersion) rmSync(policyDir(runDir, v), { recursive: true, force: true });
    return dir;
  };
  let workerVersion = state.step;
  const opened = await createOnnxPolicyWithEngine(policyWorker(env.workers), writePolicy(workerVersion), {
    temperature: ppo.temperature,
    ...(ppo.max_tokens ? { maxTokens: ppo.max_tokens } : {}),
    protocol: 'hermes',
  });
  const engine: OnnxPolicyEngine = opened.engine;
  return {
    policy: opened.policy,
    version: () => workerVersion,
    swapTo: async (version: number) => {
      if (version === workerVersion) return;
      await engine.swapWeights(writePolicy(version));
      workerVersion = version;
    },
  };
}

/** Tasks the oracle itself cannot finish at this budget give no reachable reward: say so, and record it. */
async function recordFeasibility(r: OpenedRun, tasks: Task[], policy: Policy, log: Log): Promise<void> {
  const ppo = r.config.ppo;
  const feasibility = await measureFeasibility(policy, tasks, {
    maxTurns: ppo.max_turns,
    ...(ppo.agent_timeout_sec ? { agentTimeoutSec: ppo.agent_timeout_sec } : {}),
  }).catch((error: Error) => {
    log(`warning: the oracle's feasible share was not measured: ${error.message}`);
    return null;
  });
  const unreachable = feasibilityWarning(feasibility, `data.path ${r.manifest.data!.suite}`);
  if (unreachable) log(unreachable);
  if (feasibility) r.manifest.data = { ...r.manifest.data!, feasibility: runFeasibility(feasibility) };
  if (unreachable && !r.manifest.warnings?.includes(unreachable))
    r.manifest.warnings = [...(r.manifest.warnings ?? []), unreachable];
  writeTrainingManifest(r.runDir, r.manifest);
}

/** Collect: a step's episodes by fate. Dynamic sampling trains on the groups that disagree; the metrics still describe every episode sampled. */
function stepEpisodes(batch: StepRollouts): StepEpisodes {
  const kept = batch.episodes.filter((e) => !e.aborted);
  const aborted = batch.episodes.filter((e) => e.aborted);
  const mixed = batch.dynamic?.mixed;
  const trained = mixed ? kept.filter((e) => mixed.has(e.taskId)) : kept;
  const dynamic = batch.dynamic
    ? { tried: batch.dynamic.tried, rounds: batch.dynamic.rounds, mixedGroups: batch.dynamic.mixed.size }
    : null;
  return { all: batch.episodes, kept, aborted, trained, dynamic };
}

/** Score: old log-probs, values, the gap, rewards and advantages of the trained episodes (experience.ts). */
async function score(run: PpoRun, step: number, trained: RolloutEpisode[]): Promise<Experience> {
  const { state, recent, runDir } = run;
  // Earlier versions' weights (in memory, or the policy folder on disk after a resume), for the gap.
  for (const v of new Set(trained.map((e) => e.policyVersion))) {
    if (v === state.step || recent.has(v)) continue;
    if (existsSync(join(policyDir(runDir, v), 'manifest.json')))
      recent.set(v, loadCheckpoint(policyDir(runDir, v)).parameters);
  }
  const exp = await buildExperience({
    runDir,
    model: run.model,
    cache: run.cache,
    params: run.params,
    reference: run.reference,
    ppo: run.ppo,
    rows: run.config.train.micro_batch_size,
    version: state.step,
    paramsByVersion: recent,
    episodes: trained,
    valueNorm: run.valueNorm,
  });
  run.valueNorm = exp.valueNorm;
  for (const w of exp.warnings) run.log(`warning: step ${step}: ${w}`);
  recent.set(state.step, new Map([...run.params].map(([name, w]) => [name, Float32Array.from(w)])));
  for (const v of recent.keys()) if (v < state.step + 1 - Math.max(1, run.ppo.max_staleness)) recent.delete(v);
  return exp;
}

/** Update: the PPO epochs over the experience (the critic alone during the warm-up); no sequence, no update. */
async function update(run: PpoRun, exp: Experience, lr: number, criticOnly: boolean): Promise<UpdateResult> {
  if (!exp.sequences.length)
    return { metrics: {}, optimizerSteps: 0, trainedTokens: 0, forwardedTokens: 0, lossTokens: 0, computedTokens: 0 };
  const { config } = run;
  return ppoUpdate({
    model: run.model,
    cache: run.cache,
    params: run.params,
    optimizer: run.optimizer,
    settings: run.settings,
    hyper: { beta1: config.optimizer.beta1, beta2: config.optimizer.beta2, eps: config.optimizer.eps },
    lr,
    gradClip: config.optimizer.grad_clip,
    auxCoef: config.train.aux_coef,
    ppo: run.ppo,
    criticOnly,
    rows: config.train.micro_batch_size,
    maxLength: run.model.max_position_embeddings,
    rng: run.rng,
    sequences: exp.sequences,
    temperature: exp.temperature,
    log: run.log,
  });
}

/** The step is done: its samples on disk, the counters advanced, a checkpoint when due. Returns the checkpoint's seconds. */
function recordStep(run: PpoRun, step: number, exp: Experience, upd: UpdateResult, episodes: StepEpisodes): number {
  const { state } = run;
  writeSamples(run.runDir, step, exp);
  state.step = step;
  state.tokens += upd.trainedTokens;
  state.lastLoss = upd.metrics.loss ?? null;
  run.episodesTrained += episodes.trained.length;
  run.history.push(episodes.kept);
  const t0 = performance.now();
  if (step % run.config.checkpoint.every === 0 || step === run.total || stopRequested(run.env)) checkpoint(run);
  return (performance.now() - t0) / 1000;
}

/** Log: the row to metrics.jsonl, TensorBoard and the app; the step's assertion pass rates; the progress line. */
function logStep(run: PpoRun, row: MetricsRow, kept: RolloutEpisode[], exp: Experience): void {
  row.sys = sampleSystem(run.runDir);
  run.metricsLog.append(row);
  prune(run);
  const scalars: Record<string, number> = {};
  for (const [k, v] of Object.entries(row))
    if (typeof v === 'number' && Number.isFinite(v) && k !== 'step' && k !== 'wall_time')
      scalars[k.includes('/') ? k : `ppo/${k}`] = v;
  run.events.scalars(row.step, scalars);
  run.lastRow = row;
  run.env.metrics?.(row);
  writeFileSync(join(stepDir(run.runDir, row.step), 'assertions.json'), JSON.stringify(assertionPassRates(kept)));
  progress(
    run,
    `reward ${(row.reward_dense as number).toFixed(2)} resolved ${((row.resolved as number) * 100).toFixed(0)}% gap ${exp.metrics.train_infer_gap_r3?.toExponential(1) ?? '-'}`,
  );
}

/** A pause request waits at the step boundary, after a checkpoint of this step. */
async function pauseIfRequested(run: PpoRun): Promise<void> {
  const control = run.env.control;
  if (!control?.pauseRequested || stopRequested(run.env)) return;
  if (run.state.step !== run.lastCheckpoint?.step) {
    checkpoint(run);
    prune(run);
  }
  progress(run, 'paused at a step boundary', 'paused');
  await control.waitWhilePaused();
}

function progress(run: PpoRun, message: string | null = null, s: TrainingProgress['state'] = 'running'): void {
  const { state } = run;
  const lr = state.step ? learningRate(run.schedule, state.step) : null;
  const tokensPerS = (run.lastRow?.tokens_per_s as number | undefined) ?? null;
  run.env.progress?.({
    runId: run.manifest.id,
    runDir: run.runDir,
    stage: 'ppo',
    state: s,
    step: state.step,
    totalSteps: run.total,
    tokens: state.tokens,
    loss: state.lastLoss,
    evalLoss: null,
    lr,
    tokensPerS,
    etaS: null,
    lastCheckpoint: run.lastCheckpoint,
    message,
  });
}

function checkpoint(run: PpoRun): void {
  const { state, manifest, runDir } = run;
  state.cursor = { rng: run.rng.state, episodes: run.episodesTrained, valueNorm: run.valueNorm } satisfies PpoCursor;
  const saved = saveTrainingCheckpoint({
    runDir,
    runId: manifest.id,
    stage: 'ppo',
    config: run.model,
    tokenizer: run.tokenizer,
    tokenizerConfig: run.tokenizerConfig,
    params: run.params,
    optimizer: run.optimizer,
    state,
    parent: manifest.init.path,
    evalLoss: null,
  });
  const ref: TrainingCheckpointRef = { step: state.step, dir: saved.dir, id: saved.id, evalLoss: null, best: false };
  manifest.checkpoints = [...manifest.checkpoints.filter((r) => r.step !== state.step), ref];
  writeTrainingManifest(runDir, manifest);
  run.lastCheckpoint = ref;
  // The guard as of this checkpoint, for tools that read files (the app recomputes it from the rollouts).
  writeGuardFile(runDir, denseGuard(run.history.map((episodes, i) => ({ step: i + 1, episodes }))));
}

const prune = (run: PpoRun) => pruneRunCheckpoints(run.runDir, run.manifest, run.config.checkpoint.keep_last);

async function closeRun(run: PpoRun): Promise<void> {
  run.metricsLog.close();
  run.events.close();
  await run.cache.clear();
  await run.policy.close().catch(() => {});
  await run.hosts?.close().catch(() => {});
}

/** The run's summary.json (assertions the policy may be farming) and the result `train ppo --json` prints. */
function finish(run: PpoRun, stoppedEarly: boolean, started: number): PpoResult {
  const { state, lastRow } = run;
  const flags = flagFarmedAssertions(run.history);
  writeFileSync(
    join(run.runDir, 'summary.json'),
    JSON.stringify({ flaggedAssertions: flags, steps: state.step, episodes: run.episodesTrained }, null, 2),
  );
  progress(run, null, stoppedEarly ? 'stopped' : 'completed');
  return {
    stage: 'ppo',
    steps: state.step,
    episodes: run.episodesTrained,
    tokens: state.tokens,
    checkpoint: run.lastCheckpoint?.dir ?? null,
    runDir: run.runDir,
    final: {
      reward: (lastRow?.reward_dense as number | undefined) ?? null,
      resolved: (lastRow?.resolved as number | undefined) ?? null,
      trainInferGap:
        (lastRow?.train_infer_gap_r3 as number | null | undefined) ??
        (lastRow?.train_infer_gap_free as number | null | undefined) ??
        null,
    },
    durationMs: performance.now() - started,
    flaggedAssertions: flags,
    warnings: run.manifest.warnings ?? [],
    state: stoppedEarly ? 'stopped' : 'completed',
  };
}

/** rollouts/step-N/samples.jsonl: what the trainer computed for each sample, per loss position (UI). */
function writeSamples(runDir: string, step: number, exp: Experience): void {
  const path = join(stepDir(runDir, step), ROLLOUT_FILES.samples);
  mkdirSync(stepDir(runDir, step), { recursive: true });
  rmSync(path, { force: true });
  const out = new JsonlAppender(path);
  try {
    exp.refs.forEach((ref, i) => {
      const t = exp.perToken[i]!;
      const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
      out.append({
        episode: ref.episode,
        sample: ref.sample,
        policyVersion: ref.policyVersion,
        /** Graph positions p score token p + 1 of the ledger sample. */
        lossMask: ref.row.lossMask,
        samplerLogprobs: ref.row.samplerLogprobs.map(round6),
        trainerLogprobs: t.old.map(round6),
        values: t.values.map(round6),
        advantages: t.advantages.map(round6),
        returns: t.returns.map(round6),
        tisWeights: t.tis.map(round6),
      });
    });
  } finally {
    out.close();
  }
}
