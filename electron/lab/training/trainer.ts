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
import type { MetricsRow, TrainingCheckpointRef, TrainingProgress, TrainingResult, TrainingRunManifest, TrainingState } from '../../domain/training';
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
import { TfEventsWriter } from './tfevents';

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
  return bucketFloor(config.data.max_seq_len > 0 ? Math.min(config.data.max_seq_len, model.max_position_embeddings) : model.max_position_embeddings);
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

export function paramSettings(config: TrainingRunConfig, model: ModelConfig): { settings: Map<string, ParamSettings>; unmatched: string[] } {
  const o = config.optimizer;
  try {
    return resolveParamGroups(parameterSpecs(model).map((p) => p.name), {
      weightDecay: o.weight_decay,
      freeze: o.freeze,
      groups: o.groups.map((g) => ({ pattern: g.pattern, lrScale: g.lr_scale, weightDecay: g.weight_decay })),
      aliases: publishedAliases(model),
    });
  } catch (error) {
    if (error instanceof ParamGroupError) throw new LabError('INVALID_PARAMS', error.message);
    throw error;
  }
}

/** run.json's summary of the parameter groups. */
export function describeGroups(model: ModelConfig, settings: Map<string, ParamSettings>): TrainingRunManifest['paramGroups'] {
  const sizes = new Map(parameterSpecs(model).map((p) => [p.name, p.shape.reduce((a, b) => a * b, 1)]));
  const groups = new Map<string, TrainingRunManifest['paramGroups'][number]>();
  for (const [name, s] of settings) {
    const key = `${s.group ?? 'default'}|${s.lrScale}|${s.weightDecay}|${s.frozen}`;
    const g = groups.get(key) ?? { pattern: s.group ?? (s.weightDecay === 0 ? 'default (no decay: norms, biases, router)' : 'default'), parameters: 0, lrScale: s.lrScale, weightDecay: s.weightDecay, frozen: s.frozen };
    g.parameters += sizes.get(name) ?? 0;
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** Masked mean NLL of sequences under the current weights (a scoring graph: no gradients). */
async function evalLoss(cache: TrainingGraphCache, model: ModelConfig, params: ReadonlyMap<string, Float32Array>, seqs: readonly TokenSequence[], rows: number, maxLength: number): Promise<number | null> {
  if (seqs.length === 0) return null;
  let nll = 0;
  let count = 0;
  for (const group of planMicroBatches(seqs, rows)) {
    const pack = packMicroBatch(group, { rows, loss: { name: 'score', inputs: [], build: () => { throw new Error('unused'); } }, scalars: {}, maxLength });
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

export async function runTrainer(s: TrainerSetup): Promise<TrainingResult> {
  const started = performance.now();
  const { config, model, params, optimizer, state, driver, control, hooks, manifest, runDir } = s;
  const log = hooks.log ?? (() => {});
  const total = config.train.steps;
  const rows = config.train.micro_batch_size;
  const maxLength = maxTrainingLength(config, model);
  const { settings, unmatched } = paramSettings(config, model);
  for (const p of unmatched) log(`warning: optimizer pattern '${p}' matches no parameter`);
  log(`${manifest.stage}: ${state.step > 0 ? `resuming at step ${state.step}` : 'starting'} toward step ${total} (batch ${config.train.batch_size}, lr ${config.optimizer.lr}, provider ${config.train.provider})`);
  const trainable = (name: string) => !settings.get(name)?.frozen;
  const hyper: AdamWHyper = { beta1: config.optimizer.beta1, beta2: config.optimizer.beta2, eps: config.optimizer.eps };
  const schedule: Schedule = { kind: config.schedule.kind, lr: config.optimizer.lr, warmupSteps: config.schedule.warmup_steps, totalSteps: total, minLrRatio: config.schedule.min_lr_ratio };
  const cache = new TrainingGraphCache(model, {
    provider: config.train.provider,
    intraOpThreads: config.train.threads || undefined,
    interOpThreads: 1,
    capacity: 12,
    log: (m) => log(m),
  });
  const metricsLog = new MetricsLog(runDir, state.step);
  const events = new TfEventsWriter(runDir);
  let lastCheckpoint: TrainingCheckpointRef | null = manifest.checkpoints.at(-1) ?? null;
  let providerRecorded = manifest.provider !== null;
  let stateName: TrainingState = 'running';
  let lastRate: number | null = null;
  const evalSeqs = driver.evalSequences();

  const progress = (message: string | null = null): TrainingProgress => ({
    runId: manifest.id,
    runDir,
    stage: manifest.stage,
    state: stateName,
    step: state.step,
    totalSteps: total,
    tokens: state.tokens,
    loss: state.lastLoss,
    evalLoss: state.lastEvalLoss,
    lr: state.step > 0 ? learningRate(schedule, state.step) : null,
    tokensPerS: lastRate,
    etaS: lastRate && lastRate > 0 && state.step > 0 ? ((total - state.step) * state.tokens) / state.step / lastRate : null,
    lastCheckpoint,
    message,
  });
  const emit = (message: string | null = null) => {
    const p = progress(message);
    writeStatusFile(runDir, { state: p.state, step: p.step, message });
    hooks.progress?.(p);
  };

  const checkpoint = (evalLossValue: number | null): number => {
    const t = performance.now();
    state.rng = { ...state.rng };
    state.cursor = driver.cursor();
    const saved = saveTrainingCheckpoint({
      runDir,
      runId: manifest.id,
      stage: manifest.stage,
      config: model,
      tokenizer: s.tokenizer,
      tokenizerConfig: s.tokenizerConfig,
      params,
      optimizer,
      state,
      parent: s.parent,
      evalLoss: evalLossValue,
    });
    let best = false;
    if (config.checkpoint.keep_best && evalLossValue !== null && (state.bestEvalLoss === null || evalLossValue <= state.bestEvalLoss)) {
      state.bestEvalLoss = evalLossValue;
      best = true;
    }
    const ref: TrainingCheckpointRef = { step: state.step, dir: saved.dir, id: saved.id, evalLoss: evalLossValue, best };
    let refs = manifest.checkpoints.filter((r) => r.step !== state.step);
    if (best) refs = refs.map((r) => ({ ...r, best: false }));
    refs.push(ref);
    manifest.checkpoints = refs;
    writeTrainingManifest(runDir, manifest);
    lastCheckpoint = ref;
    log(`checkpoint at step ${state.step}${evalLossValue !== null ? ` (eval loss ${evalLossValue.toFixed(4)})` : ''}`);
    return (performance.now() - t) / 1000;
  };
  const prune = () => pruneRunCheckpoints(runDir, manifest, config.checkpoint.keep_last);

  emit();
  try {
    while (state.step < total) {
      if (control.pauseRequested && !control.stopRequested) {
        stateName = 'paused';
        emit('paused at a step boundary');
        await control.waitWhilePaused();
        stateName = 'running';
        emit();
      }
      if (control.stopRequested) break;
      const step = state.step + 1;
      const t0 = performance.now();
      const sequences = await driver.nextBatch(step);
      const groups = planMicroBatches(sequences, rows);
      const packs = groups.map((g) => packMicroBatch(g, { rows, loss: driver.loss, scalars: driver.scalars(step), maxLength, layers: model.num_hidden_layers, topK: model.num_experts_per_tok }));
      const totalLoss = packs.reduce((n, p) => n + p.lossTokens, 0);
      const stepTokens = packs.reduce((n, p) => n + p.tokens, 0);
      const tData = performance.now();

      let grads: Map<string, ArrayLike<number>> | null = null;
      let loss = 0;
      const metricSums: Record<string, number> = {};
      for (const pack of packs) {
        // The vocabulary head at the loss positions only (both losses read log-probs where loss_mask is set).
        const entry = await cache.get({ batch: pack.rows, length: pack.length, forcedRouting: driver.forcedRouting, loss: driver.loss, headPositions: true });
        if (!providerRecorded) {
          manifest.provider = { name: entry.placement.provider, fallbackReason: entry.placement.fallbackReason ?? null };
          writeTrainingManifest(runDir, manifest);
          providerRecorded = true;
        }
        const out = await runTrainingStep(model, entry, params, pack.batch);
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
      const tFwd = performance.now();
      const gradNorm = globalGradNorm(grads!, trainable);
      const lr = learningRate(schedule, step);
      // A NaN/Inf norm cannot be clipped: the step is skipped (weights and moments unchanged) and said so.
      const finite = Number.isFinite(gradNorm);
      const scale = finite ? clipScale(gradNorm, config.optimizer.grad_clip || null) : 0;
      if (finite) adamwStep(params, grads!, optimizer, settings, lr, hyper, scale);
      else log(`warning: step ${step} skipped: gradient norm is ${gradNorm}; weights and optimizer state unchanged`);
      const tOpt = performance.now();
      state.step = step;
      state.tokens += stepTokens;
      state.lastLoss = loss;

      const last = step === total || control.stopRequested || (driver.exhausted?.() ?? false);
      let evalSeconds = 0;
      let evalValue: number | undefined;
      if (evalSeqs.length && ((config.train.eval_every > 0 && step % config.train.eval_every === 0) || last)) {
        const te = performance.now();
        evalValue = (await evalLoss(cache, model, params, evalSeqs, rows, maxLength)) ?? undefined;
        if (evalValue !== undefined) state.lastEvalLoss = evalValue;
        evalSeconds = (performance.now() - te) / 1000;
      }
      let ckptSeconds = 0;
      if (step % config.checkpoint.every === 0 || last) ckptSeconds = checkpoint(evalValue ?? null);
      // After the checkpoint: a stage's own evaluation (e.g. SFT's suite eval) may run the newest checkpoint.
      const te2 = performance.now();
      const extra: Record<string, number> = driver.afterStep ? await driver.afterStep({ step, params, lastCheckpoint: lastCheckpoint?.dir ?? null }) : {};
      evalSeconds += (performance.now() - te2) / 1000;
      const busy = (tOpt - t0) / 1000;
      lastRate = stepTokens / Math.max(busy, 1e-9);
      const row: MetricsRow = {
        step,
        tokens: state.tokens,
        loss,
        lr,
        grad_norm: gradNorm,
        tokens_per_s: lastRate,
        time: { data: (tData - t0) / 1000, fwd_bwd: (tFwd - tData) / 1000, optimizer: (tOpt - tFwd) / 1000, checkpoint: ckptSeconds, eval: evalSeconds },
        ...(evalValue !== undefined ? { eval_loss: evalValue } : {}),
        loss_tokens: totalLoss,
        micro_batches: packs.length,
        clip_scale: scale,
        ...Object.fromEntries(Object.entries(metricSums).map(([k, v]) => [k, v])),
        ...(finite ? {} : { skipped_step: 1 }),
        ...extra,
        wall_time: Date.now() / 1000,
      };
      metricsLog.append(row);
      prune();
      const scalars: Record<string, number> = { 'train/loss': loss, 'train/lr': lr, 'train/grad_norm': gradNorm, 'perf/tokens_per_s': lastRate, 'train/tokens': state.tokens };
      for (const [k, v] of Object.entries(metricSums)) scalars[`train/${k}`] = v;
      for (const [k, v] of Object.entries(extra)) scalars[k.includes('/') ? k : `eval/${k}`] = v;
      if (evalValue !== undefined) scalars['eval/loss'] = evalValue;
      events.scalars(step, scalars);
      hooks.metrics?.(row);
      emit();
      if (driver.exhausted?.()) break;
    }
    if (control.stopRequested && (lastCheckpoint?.step ?? -1) !== state.step && state.step > 0) {
      checkpoint(null);
      prune();
    }
    stateName = control.stopRequested && state.step < total ? 'stopped' : 'completed';
    emit(stateName === 'stopped' ? 'stopped; resume to continue' : null);
    log(`${stateName} at step ${state.step}${state.lastLoss !== null ? ` (loss ${state.lastLoss.toFixed(4)})` : ''}`);
  } catch (error) {
    stateName = 'failed';
    emit((error as Error).message);
    log(`failed at step ${state.step}: ${(error as Error).message}`);
    throw error;
  } finally {
    metricsLog.close();
    events.close();
    await cache.clear();
    await driver.close?.();
  }
  return {
    stage: manifest.stage,
    steps: state.step,
    tokens: state.tokens,
    finalLoss: state.lastLoss,
    evalLoss: state.lastEvalLoss,
    checkpoint: lastCheckpoint?.dir ?? null,
    runDir,
    durationMs: performance.now() - started,
    state: stateName,
  };
}
