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
import { type MetricsRow, type TrainingCheckpointRef, type TrainingProgress, type TrainingRunManifest } from '../../domain/training';
import { LabError } from '../../ipc/common/errors';
import { createOptimizerState, type OptimizerState } from '../../rl/adamw';
import { ResumableRng } from '../../rl/rng';
import { initialValueNorm, type ValueNormState } from '../../rl/value-norm';
import { learningRate, type Schedule } from '../../rl/schedule';
import { appVersion } from '../app-paths';
import { createOnnxPolicyWithEngine } from '../runs/onnx-policy';
import { feasibilityWarning, measureFeasibility, runFeasibility } from '../runs/feasibility';
import { policyWorker } from '../models/policy-engine';
import { loadTaskSource, type Task } from '../tasks';
import { dropUnloggedCheckpoints, loadTrainingCheckpoint, pruneRunCheckpoints, saveTrainingCheckpoint, type TrainerState } from '../training/checkpoints';
import { parseRunConfig, type TrainingRunConfig } from '../training/config/run-config';
import type { TrainingControl } from '../training/control';
import { createRunFolder, MetricsLog, newTrainingManifest, newTrainingRunId, readTrainingManifest, trainingRunsDir, writeTrainingManifest } from '../training/run-folder';
import { TfEventsWriter } from '../training/tfevents';
import { describeGroups, paramSettings, readTokenizerConfig } from '../training/trainer';
import type { WorkerRegistry } from '../worker-registry';
import { assertionPassRates, flagFarmedAssertions, rewardsByCategory, type AssertionFlag } from './dense-guard';
import { denseGuard, writeGuardFile } from './guard-report';
import { buildExperience } from './experience';
import { readRolloutEpisodes, ROLLOUT_FILES, stepDir, type RolloutEpisode } from './rollout-files';
import { collectRollouts, type RolloutBatch } from './rollouts';
import { collectDynamic } from './dynamic-sampling';
import { sampleTasks } from './tasks';
import { ppoUpdate } from './update';
import { JsonlAppender } from './rollout-files';
import { checkRunFits } from '../training/memory-check';
import { runLog } from '../training/run-log';

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

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function policyDir(runDir: string, version: number): string {
  return join(runDir, 'policy', `v-${String(version).padStart(7, '0')}`);
}

export async function runPpo(o: { config: TrainingRunConfig; configSource: string | null; out?: string; resume?: string; steps?: number }, env: PpoEnv): Promise<PpoResult> {
  const started = performance.now();
  // Every message also goes to the run folder's train.log (the Training page's log view), once it exists.
  const logFile = runLog(env.log);
  const log = logFile.log;
  let config = o.config;
  let runDir: string;
  let manifest: TrainingRunManifest;
  let state: TrainerState;
  let optimizer: OptimizerState;
  let params: Map<string, Float32Array>;
  let model: ModelConfig;
  let tokenizer: Tokenizer;
  let tokenizerConfig: Record<string, unknown> | undefined;

  if (o.resume) {
    runDir = resolve(o.resume);
    logFile.attach(runDir);
    manifest = readTrainingManifest(runDir);
    if (manifest.stage !== 'ppo') throw new LabError('INVALID_PARAMS', `${runDir}: a ${manifest.stage} run, not ppo`);
    config = parseRunConfig(manifest.config, join(runDir, 'run.json config'), o.steps ? { steps: o.steps } : {});
    manifest.config = config as unknown as Record<string, unknown>;
    const resumable = dropUnloggedCheckpoints(runDir);
    const last = resumable.at(-1) ?? null;
    manifest.checkpoints = manifest.checkpoints.filter((r) => resumable.some((c) => c.dir === r.dir));
    if (last) {
      const point = loadTrainingCheckpoint(last.dir);
      ({ config: model, tokenizer, parameters: params } = point.checkpoint);
      tokenizerConfig = readTokenizerConfig(last.dir);
      optimizer = point.optimizer;
      state = point.state;
    } else {
      const init = loadCheckpoint(manifest.init.path);
      ({ config: model, tokenizer, parameters: params } = init);
      tokenizerConfig = readTokenizerConfig(manifest.init.path);
      optimizer = createOptimizerState(params);
      state = { step: 0, tokens: 0, cursor: null, rng: {}, bestEvalLoss: null, lastLoss: null, lastEvalLoss: null };
    }
    manifest.resumes.push({ at: new Date().toISOString(), fromStep: state.step });
    log(`resuming ${runDir} from step ${state.step}`);
  } else {
    if (!config.model.checkpoint) throw new LabError('INVALID_PARAMS', 'model.checkpoint: PPO starts from a checkpoint (an SFT checkpoint, usually)');
    const initDir = resolve(config.model.checkpoint);
    if (!existsSync(initDir)) throw new LabError('INVALID_PARAMS', `model.checkpoint: ${initDir} does not exist`);
    checkRunFits(initDir, ['training', 'sampling']); // the trainer here, the sampling policy in its worker
    runDir = createRunFolder(o.out ?? join(trainingRunsDir(env.dataDir), newTrainingRunId('ppo')));
    logFile.attach(runDir);
    const init = loadCheckpoint(initDir);
    ({ config: model, tokenizer, parameters: params } = init);
    tokenizerConfig = readTokenizerConfig(initDir);
    optimizer = createOptimizerState(params);
    state = { step: 0, tokens: 0, cursor: null, rng: {}, bestEvalLoss: null, lastLoss: null, lastEvalLoss: null };
    const { settings } = paramSettings(config, model);
    manifest = newTrainingManifest({ runDir, stage: 'ppo', config, configSource: o.configSource, initDir, paramGroups: describeGroups(model, settings) });
  }
  const ppo = config.ppo;
  const suite = await loadTaskSource(Array.isArray(config.data.path) ? config.data.path[0]! : config.data.path);
  const tasks: Task[] = suite.tasks;
  if (tasks.length === 0) throw new LabError('INVALID_PARAMS', `data.path: ${suite.path} holds no valid task`);
  manifest.data = {
    suite: suite.path,
    tasks: tasks.length,
    invalid: suite.invalid.length,
    tokenizerSha256: hashFile(join(manifest.init.path, 'tokenizer.json')).sha256,
    switches: { reward: ppo.reward, tito: ppo.tito, r3: ppo.r3, tis: ppo.tis, advantage: ppo.advantage },
  };
  writeTrainingManifest(runDir, manifest);
  env.onStarted?.(manifest.id, runDir);

  const cursor = (state.cursor as PpoCursor | null) ?? { rng: (config.seed ^ 0x5eed) >>> 0, episodes: 0 };
  const rng = new ResumableRng(cursor.rng);
  let episodesTrained = cursor.episodes;
  let valueNorm: ValueNormState = cursor.valueNorm ?? initialValueNorm();
  const { settings, unmatched } = paramSettings(config, model);
  for (const p of unmatched) log(`warning: optimizer pattern '${p}' matches no parameter`);
  const schedule: Schedule = { kind: config.schedule.kind, lr: config.optimizer.lr, warmupSteps: config.schedule.warmup_steps, totalSteps: config.train.steps, minLrRatio: config.schedule.min_lr_ratio };
  const cache = new TrainingGraphCache(model, { provider: config.train.provider, intraOpThreads: config.train.threads || undefined, interOpThreads: 1, capacity: 10, log });
  const reference = ppo.kl_coef > 0 ? loadCheckpoint(manifest.init.path).parameters : null;
  const rows = config.train.micro_batch_size;
  const maxLength = model.max_position_embeddings;
  const metricsLog = new MetricsLog(runDir, state.step);
  const events = new TfEventsWriter(runDir);
  const total = config.train.steps;
  const asyncRollouts = ppo.async && ppo.max_staleness >= 1;

  // The policy worker, on a weights folder of the current version.
  const baseVersion = state.step;
  const writePolicy = (version: number): string => {
    const dir = policyDir(runDir, version);
    if (!existsSync(join(dir, 'manifest.json'))) {
      saveCheckpoint(dir, { config: model, tokenizer, tokenizerConfig, parameters: params, labVersion: appVersion(), metadata: { run_id: manifest.id, policy_version: version }, overwrite: true });
    }
    // Old versions go, except the one the engine was loaded from (a restarted worker loads it again).
    for (const v of [version - 3, version - 4]) if (v >= 0 && v !== baseVersion) rmSync(policyDir(runDir, v), { recursive: true, force: true });
    return dir;
  };
  let workerVersion = state.step;
  const opened = await createOnnxPolicyWithEngine(policyWorker(env.workers), writePolicy(workerVersion), {
    temperature: ppo.temperature,
    ...(ppo.max_tokens ? { maxTokens: ppo.max_tokens } : {}),
    protocol: 'hermes',
  });
  const policy: Policy = opened.policy;
  const engine: OnnxPolicyEngine = opened.engine;
  // Tasks the oracle itself cannot finish at this budget give no reachable reward: say so, and record it.
  const feasibility = await measureFeasibility(policy, tasks, { maxTurns: ppo.max_turns, ...(ppo.agent_timeout_sec ? { agentTimeoutSec: ppo.agent_timeout_sec } : {}) }).catch((error: Error) => {
    log(`warning: the oracle's feasible share was not measured: ${error.message}`);
    return null;
  });
  const unreachable = feasibilityWarning(feasibility, `data.path ${suite.path}`);
  if (unreachable) log(unreachable);
  if (feasibility) manifest.data = { ...manifest.data, feasibility: runFeasibility(feasibility) };
  if (unreachable && !manifest.warnings?.includes(unreachable)) manifest.warnings = [...(manifest.warnings ?? []), unreachable];
  writeTrainingManifest(runDir, manifest);
  const swapTo = async (version: number) => {
    if (version === workerVersion) return;
    await engine.swapWeights(writePolicy(version));
    workerVersion = version;
  };

  const stop = new AbortController();
  env.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const stopRequested = () => !!env.signal?.aborted || !!env.control?.stopRequested;
  const collect = (step: number, stepTasks: readonly Task[]): Promise<RolloutBatch> =>
    collectRollouts({
      runDir,
      step,
      tasks: stepTasks,
      groupSize: ppo.group_size,
      oversample: ppo.oversample,
      policy,
      policyVersion: workerVersion,
      temperature: ppo.temperature,
      harness: { maxTurns: ppo.max_turns, contextStrategy: 'drop-oldest', observationChars: 10_000, ...(ppo.agent_timeout_sec ? { agentTimeoutSec: ppo.agent_timeout_sec } : {}), tito: ppo.tito },
      concurrency: ppo.concurrency,
      seed: config.seed,
      abortGraceSec: ppo.abort_grace_sec,
      episodeDeadlineSec: ppo.episode_deadline_sec,
      sandbox: env.sandbox,
      tmpDir: env.tmpDir,
      signal: stop.signal,
      log,
    });
  /** A step's rollouts; with dynamic sampling, in rounds until tasks_per_step groups disagree (`mixed`: the groups that train). */
  const rollouts = async (step: number): Promise<StepRollouts> => {
    if (ppo.dynamic_max_tasks === 0) return { ...(await collect(step, sampleTasks(tasks, ppo.tasks_per_step, ppo.sampling, config.seed, step))), dynamic: null };
    const d = await collectDynamic({
      step,
      candidates: sampleTasks(tasks, ppo.dynamic_max_tasks, ppo.sampling, config.seed, step),
      needed: ppo.tasks_per_step,
      maxTasks: ppo.dynamic_max_tasks,
      reward: ppo.reward,
      runRound: (round) => collect(step, round),
      signal: stop.signal,
      log: (m) => log(`step ${step}: ${m}`),
    });
    return { ...d.batch, dynamic: { mixed: d.mixed, tried: d.tried, rounds: d.rounds } };
  };

  /** Per trained step (index + 1), its kept episodes: the dense-reward guard's history. */
  const history: RolloutEpisode[][] = [];
  for (let s = 1; s <= state.step; s++) history.push(readRolloutEpisodes(runDir, s).filter((e) => !e.aborted));
  let lastCheckpoint: TrainingCheckpointRef | null = manifest.checkpoints.at(-1) ?? null;
  let lastRow: MetricsRow | null = null;
  const progress = (message: string | null = null, s: TrainingProgress['state'] = 'running'): void =>
    env.progress?.({ runId: manifest.id, runDir, stage: 'ppo', state: s, step: state.step, totalSteps: total, tokens: state.tokens, loss: state.lastLoss, evalLoss: null, lr: state.step ? learningRate(schedule, state.step) : null, tokensPerS: (lastRow?.tokens_per_s as number | undefined) ?? null, etaS: null, lastCheckpoint, message });

  const checkpoint = () => {
    state.cursor = { rng: rng.state, episodes: episodesTrained, valueNorm } satisfies PpoCursor;
    const saved = saveTrainingCheckpoint({ runDir, runId: manifest.id, stage: 'ppo', config: model, tokenizer, tokenizerConfig, params, optimizer, state, parent: manifest.init.path, evalLoss: null });
    const ref: TrainingCheckpointRef = { step: state.step, dir: saved.dir, id: saved.id, evalLoss: null, best: false };
    manifest.checkpoints = [...manifest.checkpoints.filter((r) => r.step !== state.step), ref];
    writeTrainingManifest(runDir, manifest);
    lastCheckpoint = ref;
    // The guard as of this checkpoint, for tools that read files (the app recomputes it from the rollouts).
    writeGuardFile(runDir, denseGuard(history.map((episodes, i) => ({ step: i + 1, episodes }))));
  };

  const prune = () => pruneRunCheckpoints(runDir, manifest, config.checkpoint.keep_last);

  /** Weights of the last versions the sampler may still be using (at most max_staleness behind). */
  const recent = new Map<number, Map<string, Float32Array>>();
  progress();
  let stoppedEarly = false;
  let pending: Promise<StepRollouts> | null = state.step < total ? rollouts(state.step + 1) : null;
  try {
    while (state.step < total) {
      const step = state.step + 1;
      const t0 = performance.now();
      const batch = await pending!;
      pending = null;
      const tRollout = performance.now();
      if (stopRequested()) {
        stoppedEarly = true;
        break;
      }
      // Newest weights to the worker between rollout batches; the next batch starts now when asynchronous.
      await swapTo(state.step);
      if (asyncRollouts && step < total) pending = rollouts(step + 1);
      const kept = batch.episodes.filter((e) => !e.aborted);
      const aborted = batch.episodes.filter((e) => e.aborted);
      // Dynamic sampling trains on the groups that disagree; the step's metrics still describe every episode it sampled.
      const trained = batch.dynamic ? kept.filter((e) => batch.dynamic!.mixed.has(e.taskId)) : kept;
      // Earlier versions' weights (in memory, or the policy folder on disk after a resume), for the gap.
      for (const v of new Set(trained.map((e) => e.policyVersion))) {
        if (v === state.step || recent.has(v)) continue;
        if (existsSync(join(policyDir(runDir, v), 'manifest.json'))) recent.set(v, loadCheckpoint(policyDir(runDir, v)).parameters);
      }
      const exp = await buildExperience({ runDir, model, cache, params, reference, ppo, rows, version: state.step, paramsByVersion: recent, episodes: trained, valueNorm });
      valueNorm = exp.valueNorm;
      for (const w of exp.warnings) log(`warning: step ${step}: ${w}`);
      recent.set(state.step, new Map([...params].map(([name, w]) => [name, Float32Array.from(w)])));
      for (const v of recent.keys()) if (v < state.step + 1 - Math.max(1, ppo.max_staleness)) recent.delete(v);
      const tScore = performance.now();
      const criticOnly = step <= ppo.critic_warmup_steps;
      const lr = learningRate(schedule, step);
      const upd = exp.sequences.length
        ? await ppoUpdate({ model, cache, params, optimizer, settings, hyper: { beta1: config.optimizer.beta1, beta2: config.optimizer.beta2, eps: config.optimizer.eps }, lr, gradClip: config.optimizer.grad_clip, auxCoef: config.train.aux_coef, ppo, criticOnly, rows, maxLength, rng, sequences: exp.sequences, temperature: exp.temperature, log })
        : { metrics: {}, optimizerSteps: 0, trainedTokens: 0, lossTokens: 0, computedTokens: 0 };
      const tTrain = performance.now();
      writeSamples(runDir, step, exp);
      state.step = step;
      state.tokens += upd.trainedTokens;
      state.lastLoss = upd.metrics.loss ?? null;
      episodesTrained += trained.length;
      history.push(kept);
      const tCkpt0 = performance.now();
      if (step % config.checkpoint.every === 0 || step === total || stopRequested()) checkpoint();
      const ckptSeconds = (performance.now() - tCkpt0) / 1000;
      const allTime = batch.episodes.reduce((n, e) => n + e.durationMs, 0);
      const abortedTime = aborted.reduce((n, e) => n + e.durationMs, 0);
      const keptOnAbortedTasks = kept.filter((e) => aborted.some((a) => a.taskId === e.taskId));
      const rewardOf = (e: RolloutEpisode) => e.reward?.[ppo.reward] ?? 0;
      const busy = (tTrain - tRollout) / 1000;
      const row: MetricsRow = {
        step,
        tokens: state.tokens,
        loss: upd.metrics.loss ?? 0,
        lr,
        grad_norm: upd.metrics.grad_norm ?? 0,
        tokens_per_s: upd.trainedTokens / Math.max(busy, 1e-9),
        time: { data: (tScore - tRollout) / 1000, fwd_bwd: (tTrain - tScore) / 1000, optimizer: 0, checkpoint: ckptSeconds, eval: 0 },
        wall_time: Date.now() / 1000,
        // The fixed keys.
        reward_dense: mean(kept.map((e) => e.reward?.dense ?? 0)),
        reward_binary: mean(kept.map((e) => e.reward?.binary ?? 0)),
        resolved: mean(kept.map((e) => (e.resolved ? 1 : 0))),
        pg_loss: upd.metrics.pg_loss ?? null,
        pg_clipfrac: upd.metrics.pg_clipfrac ?? null,
        ppo_kl: upd.metrics.ppo_kl ?? null,
        entropy: upd.metrics.entropy ?? null,
        vf_loss: upd.metrics.vf_loss ?? null,
        vf_explained_var: Number.isFinite(exp.metrics.vf_explained_var) ? exp.metrics.vf_explained_var! : null,
        tis_weight_mean: exp.metrics.tis_weight_mean ?? null,
        train_infer_gap_r3: exp.metrics.train_infer_gap_r3 ?? null,
        train_infer_gap_free: exp.metrics.train_infer_gap_free ?? null,
        loss_drift: exp.metrics.loss_drift ?? 0,
        routing_agreement: exp.metrics.routing_agreement ?? null,
        staleness: exp.metrics.staleness ?? 0,
        aborted_share: allTime > 0 ? abortedTime / allTime : 0,
        // More.
        reward_fraction: mean(kept.map((e) => e.reward?.fraction ?? 0)),
        ...rewardsByCategory(kept),
        aborted_episodes: aborted.length,
        aborted_bias: aborted.length ? mean(aborted.map(rewardOf)) - mean(keptOnAbortedTasks.map(rewardOf)) : null,
        episodes: kept.length,
        episodes_trained: trained.length,
        ...(batch.dynamic ? { dynamic_tasks: batch.dynamic.tried, dynamic_rounds: batch.dynamic.rounds, dynamic_mixed_groups: batch.dynamic.mixed.size, sampled_flat_group_share: kept.length ? (kept.length - trained.length) / kept.length : 0 } : {}),
        episode_turns: mean(kept.map((e) => e.turns)),
        episode_tokens: mean(kept.map((e) => e.completionTokens)),
        vf_clipfrac: upd.metrics.vf_clipfrac ?? null,
        kl_ref: upd.metrics.kl_ref ?? null,
        aux_loss: upd.metrics.aux_loss ?? null,
        grad_clipped_share: upd.metrics.grad_clipped_share ?? null,
        skipped_steps: upd.metrics.skipped_steps ?? 0,
        optimizer_steps: upd.optimizerSteps,
        // What the update cost in positions, over its epochs: carrying a loss, forwarded (real), computed (with padding).
        update_loss_tokens: upd.lossTokens,
        update_forwarded_tokens: upd.trainedTokens,
        update_computed_tokens: upd.computedTokens,
        critic_warmup: criticOnly ? 1 : 0,
        policy_version: state.step,
        time_rollout: (tRollout - t0) / 1000,
        time_generation: mean(kept.map((e) => e.generationMs)) / 1000,
        time_environment: mean(kept.map((e) => e.environmentMs)) / 1000,
        time_training: (tTrain - tRollout) / 1000,
        // The step's wall time and the episodes' summed generation/environment time (all of them, aborted
        // too): with concurrent episodes these split time_rollout by share (npm run bench -- ppo).
        time_step: (performance.now() - t0) / 1000,
        time_generation_sum: batch.episodes.reduce((n, e) => n + e.generationMs, 0) / 1000,
        time_environment_sum: batch.episodes.reduce((n, e) => n + e.environmentMs, 0) / 1000,
        ...Object.fromEntries(Object.entries(exp.metrics).filter(([k]) => !['vf_explained_var'].includes(k))),
      };
      metricsLog.append(row);
      prune();
      const scalars: Record<string, number> = {};
      for (const [k, v] of Object.entries(row)) if (typeof v === 'number' && Number.isFinite(v) && k !== 'step' && k !== 'wall_time') scalars[k.includes('/') ? k : `ppo/${k}`] = v;
      events.scalars(step, scalars);
      lastRow = row;
      env.metrics?.(row);
      writeFileSync(join(stepDir(runDir, step), 'assertions.json'), JSON.stringify(assertionPassRates(kept)));
      progress(`reward ${(row.reward_dense as number).toFixed(2)} resolved ${((row.resolved as number) * 100).toFixed(0)}% gap ${exp.metrics.train_infer_gap_r3?.toExponential(1) ?? '-'}`);
      if (env.control?.pauseRequested && !stopRequested()) {
        if (state.step !== lastCheckpoint?.step) {
          checkpoint();
          prune();
        }
        progress('paused at a step boundary', 'paused');
        await env.control.waitWhilePaused();
      }
      if (stopRequested()) {
        stoppedEarly = state.step < total;
        break;
      }
      if (!asyncRollouts && step < total) {
        await swapTo(state.step);
        pending = rollouts(step + 1);
      }
    }
  } finally {
    stop.abort();
    await pending?.catch(() => null);
    metricsLog.close();
    events.close();
    await cache.clear();
    await policy.close().catch(() => {});
  }
  const flags = flagFarmedAssertions(history);
  writeFileSync(join(runDir, 'summary.json'), JSON.stringify({ flaggedAssertions: flags, steps: state.step, episodes: episodesTrained }, null, 2));
  progress(null, stoppedEarly ? 'stopped' : 'completed');
  return {
    stage: 'ppo',
    steps: state.step,
    episodes: episodesTrained,
    tokens: state.tokens,
    checkpoint: lastCheckpoint?.dir ?? null,
    runDir,
    final: {
      reward: (lastRow?.reward_dense as number | undefined) ?? null,
      resolved: (lastRow?.resolved as number | undefined) ?? null,
      trainInferGap: (lastRow?.train_infer_gap_r3 as number | null | undefined) ?? (lastRow?.train_infer_gap_free as number | null | undefined) ?? null,
    },
    durationMs: performance.now() - started,
    flaggedAssertions: flags,
    warnings: manifest.warnings ?? [],
    state: stoppedEarly ? 'stopped' : 'completed',
  };
}

/** rollouts/step-N/samples.jsonl: what the trainer computed for each sample, per loss position (UI). */
function writeSamples(runDir: string, step: number, exp: Awaited<ReturnType<typeof buildExperience>>): void {
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
