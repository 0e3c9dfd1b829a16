/**
 * The step loop every stage shares. Per optimizer step: the stage's sequences, split into micro-batches
 * padded to the engine's shape buckets; forward+backward of each (sessions cached per shape); gradients
 * accumulated weighted by each micro-batch's share of loss tokens (so the step's loss is the token mean
 * over the whole batch); global-norm clipping; AdamW with the schedule's learning rate and per-group
 * settings; then eval, checkpoint and a metrics row (metrics.jsonl, TensorBoard, the progress hook).
 * Everything that decides the numbers is seeded and stored in checkpoints, so a resumed run repeats the
 * uninterrupted run's curve step for step.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parameterSpecs, type ModelConfig } from '../../../native/model/config';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { ExportHfError, familyFor } from '../../../native/model/hf/export-hf';
import { publishedNames } from '../../../native/model/hf/hf-names';
import { runTrainingStep } from '../../../native/model/train-step';
import type { Tokenizer } from '../../../native/model/tokenizer';
import type {
  MetricsRow,
  TrainingCheckpointRef,
  TrainingProgress,
  TrainingResult,
  TrainingRunManifest,
  TrainingState,
} from '../../domain/training';
import { adamwStep, type AdamWHyper, type OptimizerState } from '../../rl/adamw';
import { clipScale, globalGradNorm } from '../../rl/grad-clip';
import { LabError } from '../../ipc/common/errors';
import { ParamGroupError, resolveParamGroups, type ParamSettings } from '../../rl/param-groups';
import { learningRate, type Schedule } from '../../rl/schedule';
import { bucketFloor, packMicroBatch, planMicroBatches, type TokenSequence } from './batching';
import { pruneRunCheckpoints, saveTrainingCheckpoint, type TrainerState } from './checkpoints';
import type { TrainingRunConfig } from './config/run-config';
import type { TrainingControl } from './control';
import { MetricsLog, writeTrainingManifest } from './run-folder';
import type { StageDriver } from './stage';
import { writeStatusFile } from './status';
import { TfEventsWriter } from '../tensorboard/tfevents';
import { sampleSystem } from '../system-sample';

export interface TrainerHooks {
  progress?(p: TrainingProgress): void;
  metrics?(row: MetricsRow): void;
  log?(message: string): void;
}

export interface TrainerSetup {
  runDir: string;
  manifest: TrainingRunManifest;
  config: TrainingRunConfig;
  model: ModelConfig;
  tokenizer: Tokenizer;
  tokenizerConfig: Record<string, unknown> | undefined;
  params: Map<string, Float32Array>;
  optimizer: OptimizerState;
  state: TrainerState;
  driver: StageDriver;
  control: TrainingControl;
  hooks: TrainerHooks;
  /** The folder the weights came from (recorded as each checkpoint's parent). */
  parent: string | null;
}

/** Positions a training sequence may have: data.max_seq_len or the window, down to a graph shape. */
export function maxTrainingLength(config: TrainingRunConfig, model: ModelConfig): number {
  return bucketFloor(
    config.data.max_seq_len > 0
      ? Math.min(config.data.max_seq_len, model.max_position_embeddings)
      : model.max_position_embeddings,
  );
}

export function readTokenizerConfig(dir: string): Record<string, unknown> | undefined {
  const path = join(dir, 'tokenizer_config.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : undefined;
}

/**
 * The published (Hugging Face) names of the model's parameters, in the family that computes it (the family
 * an import came from), so optimizer patterns may use either naming; null when no family computes it.
 */
function publishedAliases(model: ModelConfig): Map<string, string[]> | undefined {
  try {
    return publishedNames(model, familyFor(model));
  } catch (error) {
    if (error instanceof ExportHfError) return undefined;
    throw error;
  }
}

export function paramSettings(
  config: TrainingRunConfig,
  model: ModelConfig,
): { settings: Map<string, ParamSettings>; unmatched: string[] } {
  const o = config.optimizer;
  try {
    return resolveParamGroups(
      parameterSpecs(model).map((p) => p.name),
      {
        weightDecay: o.weight_decay,
        freeze: o.freeze,
        groups: o.groups.map((g) => ({ pattern: g.pattern, lrScale: g.lr_scale, weightDecay: g.weight_decay })),
        aliases: publishedAliases(model),
      },
    );
  } catch (error) {
    if (error instanceof ParamGroupError) throw new LabError('INVALID_PARAMS', error.message);
    throw error;
  }
}

/** run.json's summary of the parameter groups. */
export function describeGroups(
  model: ModelConfig,
  settings: Map<string, ParamSettings>,
): TrainingRunManifest['paramGroups'] {
  const sizes = new Map(parameterSpecs(model).map((p) => [p.name, p.shape.reduce((a, b) => a * b, 1)]));
  const groups = new Map<string, TrainingRunManifest['paramGroups'][number]>();
  for (const [name, s] of settings) {
    const key = `${s.group ?? 'default'}|${s.lrScale}|${s.weightDecay}|${s.frozen}`;
    const g = groups.get(key) ?? {
      pattern: s.group ?? (s.weightDecay === 0 ? 'default (no decay: norms, biases, router)' : 'default'),
      parameters: 0,
      lrScale: s.lrScale,
      weightDecay: s.weightDecay,
      frozen: s.frozen,
    };
    g.parameters += sizes.get(name) ?? 0;
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** Masked mean NLL of sequences under the current weights (a scoring graph: no gradients). */
async function evalLoss(
  cache: TrainingGraphCache,
  model: ModelConfig,
  params: ReadonlyMap<string, Float32Array>,
  seqs: readonly TokenSequence[],
  rows: number,
  maxLength: number,
): Promise<number | null> {
  if (seqs.length === 0) return null;
  let nll = 0;
  let count = 0;
  for (const group of planMicroBatches(seqs, rows)) {
    const pack = packMicroBatch(group, {
      rows,
      loss: {
        name: 'score',
        inputs: [],
        build: () => {
          throw new Error('unused');
        },
      },
      scalars: {},
      maxLength,
    });
    const entry = await cache.get({ batch: pack.rows, length: pack.length, forcedRouting: false, loss: null });
    const out = await runTrainingStep(model, entry, params, pack.batch);
    for (const [r, s] of group.entries()) {
      const mask = s.tokenInputs.loss_mask;
      for (let t = 0; t < s.ids.length - 1; t++) {
        const w = mask ? mask[t]! : 1;
        if (w) {
          nll -= w * out.logprobs[r * pack.length + t]!;
          count += w;
        }
      }
    }
  }
  return count > 0 ? nll / count : null;
}

/** Everything the step phases share: the setup, the loop's settings and its progress so far. */
interface TrainerRun extends TrainerSetup {
  log: (message: string) => void;
  total: number;
  rows: number;
  maxLength: number;
  settings: Map<string, ParamSettings>;
  hyper: AdamWHyper;
  schedule: Schedule;
  cache: TrainingGraphCache;
  metricsLog: MetricsLog;
  events: TfEventsWriter;
  evalSeqs: readonly TokenSequence[];
  lastCheckpoint: TrainingCheckpointRef | null;
  providerRecorded: boolean;
  stateName: TrainingState;
  lastRate: number | null;
}

/** A step's forward+backward over its micro-batches: the token-weighted loss, gradients and metrics. */
interface Gradients {
  loss: number;
  grads: Map<string, ArrayLike<number>>;
  metricSums: Record<string, number>;
}

/** The optimizer's part of a step: the gradient norm, the clip scale, and whether the step was applied. */
interface OptimizerOutcome {
  gradNorm: number;
  lr: number;
  scale: number;
  /** False when the norm was NaN/Inf: the step was skipped, weights and moments unchanged. */
  finite: boolean;
}

export async function runTrainer(s: TrainerSetup): Promise<TrainingResult> {
  const started = performance.now();
  const t = prepareTrainer(s);
  const { state, control, driver } = t;
  emit(t);
  try {
    while (state.step < t.total) {
      await pauseIfRequested(t);
      if (control.stopRequested) break;
      const step = state.step + 1;
      const t0 = performance.now();
      const packs = await nextBatch(t, step);
      const tData = performance.now();
      const g = await forwardBackward(t, packs);
      const tFwd = performance.now();
      const opt = optimizerStep(t, step, g.grads);
      const tOpt = performance.now();
      state.step = step;
      const stepTokens = packs.reduce((n, p) => n + p.tokens, 0);
      state.tokens += stepTokens;
      state.lastLoss = g.loss;
      const last = step === t.total || control.stopRequested || (driver.exhausted?.() ?? false);
      const ev = await evaluate(t, step, last);
      const checkpointSeconds = step % t.config.checkpoint.every === 0 || last ? checkpoint(t, ev.value ?? null) : 0;
      // After the checkpoint: a stage's own evaluation (e.g. SFT's suite eval) may run the newest checkpoint.
      const te = performance.now();
      const extra: Record<string, number> = driver.afterStep
        ? await driver.afterStep({ step, params: t.params, lastCheckpoint: t.lastCheckpoint?.dir ?? null })
        : {};
      const evalSeconds = ev.seconds + (performance.now() - te) / 1000;
      t.lastRate = stepTokens / Math.max((tOpt - t0) / 1000, 1e-9);
      const time = {
        data: (tData - t0) / 1000,
        fwd_bwd: (tFwd - tData) / 1000,
        optimizer: (tOpt - tFwd) / 1000,
        checkpoint: checkpointSeconds,
        eval: evalSeconds,
      };
      const row = trainerMetricsRow({
        step,
        tokens: state.tokens,
        tokensPerS: t.lastRate,
        packs,
        gradients: g,
        optimizer: opt,
        evalLoss: ev.value,
        extra,
        time,
      });
      logStep(t, row, {
        loss: g.loss,
        lr: opt.lr,
        gradNorm: opt.gradNorm,
        metricSums: g.metricSums,
        extra,
        evalLoss: ev.value,
      });
      if (driver.exhausted?.()) break;
    }
    finishStates(t);
  } catch (error) {
    t.stateName = 'failed';
    emit(t, (error as Error).message);
    t.log(`failed at step ${state.step}: ${(error as Error).message}`);
    throw error;
  } finally {
    t.metricsLog.close();
    t.events.close();
    await t.cache.clear();
    await driver.close?.();
  }
  return {
    stage: t.manifest.stage,
    steps: state.step,
    tokens: state.tokens,
    finalLoss: state.lastLoss,
    evalLoss: state.lastEvalLoss,
    checkpoint: t.lastCheckpoint?.dir ?? null,
    runDir: t.runDir,
    durationMs: performance.now() - started,
    state: t.stateName,
  };
}

/** The loop's settings from the run's config: parameter groups, the schedule, the graph cache, the logs. */
function prepareTrainer(s: TrainerSetup): TrainerRun {
  const { config, model, state, manifest, runDir } = s;
  const log = s.hooks.log ?? (() => {});
  const total = config.train.steps;
  const { settings, unmatched } = paramSettings(config, model);
  for (const p of unmatched) log(`warning: optimizer pattern '${p}' matches no parameter`);
  log(
    `${manifest.stage}: ${state.step > 0 ? `resuming at step ${state.step}` : 'starting'} toward step ${total} (batch ${config.train.batch_size}, lr ${config.optimizer.lr}, provider ${config.train.provider})`,
  );
  const cache = new TrainingGraphCache(model, {
    provider: config.train.provider,
    intraOpThreads: config.train.threads || undefined,
    interOpThreads: 1,
    capacity: 12,
    log: (m) => log(m),
  });
  return {
    ...s,
    log,
    total,
    rows: config.train.micro_batch_size,
    maxLength: maxTrainingLength(config, model),
    settings,
    hyper: { beta1: config.optimizer.beta1, beta2: config.optimizer.beta2, eps: config.optimizer.eps },
    schedule: {
      kind: config.schedule.kind,
      lr: config.optimizer.lr,
      warmupSteps: config.schedule.warmup_steps,
      totalSteps: total,
      minLrRatio: config.schedule.min_lr_ratio,
    },
    cache,
    metricsLog: new MetricsLog(runDir, state.step),
    events: new TfEventsWriter(runDir),
    evalSeqs: s.driver.evalSequences(),
    lastCheckpoint: manifest.checkpoints.at(-1) ?? null,
    providerRecorded: manifest.provider !== null,
    stateName: 'running',
    lastRate: null,
  };
}

/** A pause request waits at the step boundary; the page sees 'paused', then 'running' again. */
async function pauseIfRequested(t: TrainerRun): Promise<void> {
  if (!t.control.pauseRequested || t.control.stopRequested) return;
  t.stateName = 'paused';
  emit(t, 'paused at a step boundary');
  await t.control.waitWhilePaused();
  t.stateName = 'running';
  emit(t);
}

/** The stage's sequences for `step`, in micro-batches padded to the engine's shape buckets. */
async function nextBatch(t: TrainerRun, step: number): Promise<ReturnType<typeof packMicroBatch>[]> {
  const { driver, rows, model } = t;
  const sequences = await driver.nextBatch(step);
  return planMicroBatches(sequences, rows).map((g) =>
    packMicroBatch(g, {
      rows,
      loss: driver.loss,
      scalars: driver.scalars(step),
      maxLength: t.maxLength,
      layers: model.num_hidden_layers,
      topK: model.num_experts_per_tok,
    }),
  );
}

/** Forward+backward of each micro-batch, gradients accumulated by each one's share of the loss tokens. */
async function forwardBackward(t: TrainerRun, packs: ReturnType<typeof packMicroBatch>[]): Promise<Gradients> {
  const totalLoss = packs.reduce((n, p) => n + p.lossTokens, 0);
  let grads: Map<string, ArrayLike<number>> | null = null;
  let loss = 0;
  const metricSums: Record<string, number> = {};
  for (const pack of packs) {
    // The vocabulary head at the loss positions only (both losses read log-probs where loss_mask is set).
    const entry = await t.cache.get({
      batch: pack.rows,
      length: pack.length,
      forcedRouting: t.driver.forcedRouting,
      loss: t.driver.loss,
      headPositions: true,
    });
    if (!t.providerRecorded) {
      t.manifest.provider = { name: entry.placement.provider, fallbackReason: entry.placement.fallbackReason ?? null };
      writeTrainingManifest(t.runDir, t.manifest);
      t.providerRecorded = true;
    }
    const out = await runTrainingStep(t.model, entry, t.params, pack.batch);
    const w = totalLoss > 0 ? pack.lossTokens / totalLoss : 1 / packs.length;
    loss += w * out.loss;
    for (const [k, v] of Object.entries(out.metrics)) metricSums[k] = (metricSums[k] ?? 0) + w * v;
    if (packs.length === 1) grads = out.gradients;
    else {
      grads ??= new Map([...out.gradients.keys()].map((k) => [k, new Float64Array(out.gradients.get(k)!.length)]));
      for (const [name, g] of out.gradients) {
        const acc = grads.get(name) as Float64Array;
        for (let i = 0; i < g.length; i++) acc[i]! += w * g[i]!;
      }
    }
  }
  return { loss, grads: grads!, metricSums };
}

/** Global-norm clipping and AdamW at the schedule's rate; a NaN/Inf norm cannot be clipped: the step is skipped and said so. */
function optimizerStep(t: TrainerRun, step: number, grads: Map<string, ArrayLike<number>>): OptimizerOutcome {
  const gradNorm = globalGradNorm(grads, (name) => !t.settings.get(name)?.frozen);
  const lr = learningRate(t.schedule, step);
  const finite = Number.isFinite(gradNorm);
  const scale = finite ? clipScale(gradNorm, t.config.optimizer.grad_clip || null) : 0;
  if (finite) adamwStep(t.params, grads, t.optimizer, t.settings, lr, t.hyper, scale);
  else t.log(`warning: step ${step} skipped: gradient norm is ${gradNorm}; weights and optimizer state unchanged`);
  return { gradNorm, lr, scale, finite };
}

/** The held-out loss, every `eval_every` steps and at the last one. */
async function evaluate(
  t: TrainerRun,
  step: number,
  last: boolean,
): Promise<{ value: number | undefined; seconds: number }> {
  const every = t.config.train.eval_every;
  if (!t.evalSeqs.length || !((every > 0 && step % every === 0) || last)) return { value: undefined, seconds: 0 };
  const te = performance.now();
  const value = (await evalLoss(t.cache, t.model, t.params, t.evalSeqs, t.rows, t.maxLength)) ?? undefined;
  if (value !== undefined) t.state.lastEvalLoss = value;
  return { value, seconds: (performance.now() - te) / 1000 };
}

/** A step's row of metrics.jsonl. */
export function trainerMetricsRow(x: {
  step: number;
  tokens: number;
  tokensPerS: number;
  packs: readonly { lossTokens: number }[];
  gradients: Pick<Gradients, 'loss' | 'metricSums'>;
  optimizer: OptimizerOutcome;
  evalLoss: number | undefined;
  extra: Record<string, number>;
  time: MetricsRow['time'];
}): MetricsRow {
  const { optimizer: opt } = x;
  return {
    step: x.step,
    tokens: x.tokens,
    loss: x.gradients.loss,
    lr: opt.lr,
    grad_norm: opt.gradNorm,
    tokens_per_s: x.tokensPerS,
    time: x.time,
    ...(x.evalLoss !== undefined ? { eval_loss: x.evalLoss } : {}),
    loss_tokens: x.packs.reduce((n, p) => n + p.lossTokens, 0),
    micro_batches: x.packs.length,
    clip_scale: opt.scale,
    ...x.gradients.metricSums,
    ...(opt.finite ? {} : { skipped_step: 1 }),
    ...x.extra,
    wall_time: Date.now() / 1000,
  };
}

/** The row to metrics.jsonl, the step's scalars to TensorBoard, the row to the app; old checkpoints pruned; the progress line. */
function logStep(
  t: TrainerRun,
  row: MetricsRow,
  x: {
    loss: number;
    lr: number;
    gradNorm: number;
    metricSums: Record<string, number>;
    extra: Record<string, number>;
    evalLoss: number | undefined;
  },
): void {
  row.sys = sampleSystem(t.runDir);
  t.metricsLog.append(row);
  prune(t);
  const scalars: Record<string, number> = {
    'train/loss': x.loss,
    'train/lr': x.lr,
    'train/grad_norm': x.gradNorm,
    'perf/tokens_per_s': t.lastRate!,
    'train/tokens': t.state.tokens,
  };
  for (const [k, v] of Object.entries(x.metricSums)) scalars[`train/${k}`] = v;
  for (const [k, v] of Object.entries(x.extra)) scalars[k.includes('/') ? k : `eval/${k}`] = v;
  if (x.evalLoss !== undefined) scalars['eval/loss'] = x.evalLoss;
  t.events.scalars(row.step, scalars);
  t.hooks.metrics?.(row);
  emit(t);
}

/** After the loop: a stopped run keeps a checkpoint of its last step; the final state is said and logged. */
function finishStates(t: TrainerRun): void {
  const { control, state } = t;
  if (control.stopRequested && (t.lastCheckpoint?.step ?? -1) !== state.step && state.step > 0) {
    checkpoint(t, null);
    prune(t);
  }
  t.stateName = control.stopRequested && state.step < t.total ? 'stopped' : 'completed';
  emit(t, t.stateName === 'stopped' ? 'stopped; resume to continue' : null);
  t.log(`${t.stateName} at step ${state.step}${state.lastLoss !== null ? ` (loss ${state.lastLoss.toFixed(4)})` : ''}`);
}

function progress(t: TrainerRun, message: string | null = null): TrainingProgress {
  const { state, total, lastRate } = t;
  return {
    runId: t.manifest.id,
    runDir: t.runDir,
    stage: t.manifest.stage,
    state: t.stateName,
    step: state.step,
    totalSteps: total,
    tokens: state.tokens,
    loss: state.lastLoss,
    evalLoss: state.lastEvalLoss,
    lr: state.step > 0 ? learningRate(t.schedule, state.step) : null,
    tokensPerS: lastRate,
    etaS:
      lastRate && lastRate > 0 && state.step > 0 ? ((total - state.step) * state.tokens) / state.step / lastRate : null,
    lastCheckpoint: t.lastCheckpoint,
    message,
  };
}

function emit(t: TrainerRun, message: string | null = null): void {
  const p = progress(t, message);
  writeStatusFile(t.runDir, { state: p.state, step: p.step, message });
  t.hooks.progress?.(p);
}

/** A training checkpoint of the current step (the best by eval loss marked); returns its seconds. */
function checkpoint(t: TrainerRun, evalLossValue: number | null): number {
  const { state, manifest, config } = t;
  const started = performance.now();
  state.rng = { ...state.rng };
  state.cursor = t.driver.cursor();
  const saved = saveTrainingCheckpoint({
    runDir: t.runDir,
    runId: manifest.id,
    stage: manifest.stage,
    config: t.model,
    tokenizer: t.tokenizer,
    tokenizerConfig: t.tokenizerConfig,
    params: t.params,
    optimizer: t.optimizer,
    state,
    parent: t.parent,
    evalLoss: evalLossValue,
  });
  let best = false;
  if (
    config.checkpoint.keep_best &&
    evalLossValue !== null &&
    (state.bestEvalLoss === null || evalLossValue <= state.bestEvalLoss)
  ) {
    state.bestEvalLoss = evalLossValue;
    best = true;
  }
  const ref: TrainingCheckpointRef = { step: state.step, dir: saved.dir, id: saved.id, evalLoss: evalLossValue, best };
  let refs = manifest.checkpoints.filter((r) => r.step !== state.step);
  if (best) refs = refs.map((r) => ({ ...r, best: false }));
  refs.push(ref);
  manifest.checkpoints = refs;
  writeTrainingManifest(t.runDir, manifest);
  t.lastCheckpoint = ref;
  t.log(`checkpoint at step ${state.step}${evalLossValue !== null ? ` (eval loss ${evalLossValue.toFixed(4)})` : ''}`);
  return (performance.now() - started) / 1000;
}

const prune = (t: TrainerRun) => pruneRunCheckpoints(t.runDir, t.manifest, t.config.checkpoint.keep_last);
