/**
 * Training checkpoints: the engine's checkpoint folder (config, tokenizer, model.safetensors with the fp32
 * master weights, manifest with hashes) plus optimizer.safetensors: AdamW's moments as
 * `<parameter>.exp_avg` / `<parameter>.exp_avg_sq`, and in its metadata the optimizer step and the
 * trainer's state (step, tokens, the data cursor, RNG states). Saved atomically by the engine
 * (`saveCheckpoint`: a hidden partial folder renamed into place), so a kill at any moment leaves the
 * previous checkpoint intact. After each save the last `keepLast` are kept, plus the best on eval loss.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckpoint, readManifest, saveCheckpoint, type LoadedCheckpoint } from '../../../native/model/checkpoint';
import type { ModelConfig } from '../../../native/model/config';
import type { Tokenizer } from '../../../native/model/tokenizer';
import type { TrainingCheckpointRef, TrainingRunManifest } from '../../domain/training';
import type { OptimizerState } from '../../rl/adamw';
import { appVersion } from '../app-paths';
import { readMetrics, TRAINING_FILES, writeTrainingManifest } from './run-folder';

/** What a resumed run needs besides weights and moments; JSON in optimizer.safetensors' metadata. */
export interface TrainerState {
  step: number;
  tokens: number;
  /** The stage's data position (JSON; each stage defines it). */
  cursor: unknown;
  /** Named 32-bit RNG states. */
  rng: Record<string, number>;
  bestEvalLoss: number | null;
  lastLoss: number | null;
  lastEvalLoss: number | null;
}

export const STEP_DIR = /^step-(\d{7})$/;

export function checkpointDir(runDir: string, step: number): string {
  return join(runDir, TRAINING_FILES.checkpoints, `step-${String(step).padStart(7, '0')}`);
}

export interface SaveTrainingOptions {
  runDir: string;
  runId: string;
  stage: string;
  config: ModelConfig;
  tokenizer: Tokenizer;
  tokenizerConfig?: Record<string, unknown>;
  params: ReadonlyMap<string, Float32Array>;
  optimizer: OptimizerState;
  state: TrainerState;
  parent: string | null;
  evalLoss: number | null;
}

export function saveTrainingCheckpoint(o: SaveTrainingOptions): { dir: string; id: string } {
  const optimizerTensors = new Map<string, Float32Array>();
  for (const [name, m] of o.optimizer.moments) {
    optimizerTensors.set(`${name}.exp_avg`, m.expAvg);
    optimizerTensors.set(`${name}.exp_avg_sq`, m.expAvgSq);
  }
  const dir = checkpointDir(o.runDir, o.state.step);
  const saved = saveCheckpoint(dir, {
    config: o.config,
    tokenizer: o.tokenizer,
    tokenizerConfig: o.tokenizerConfig,
    parameters: o.params,
    optimizer: {
      state: optimizerTensors,
      metadata: {
        optimizer: 'adamw',
        optimizer_step: String(o.optimizer.step),
        trainer_state: JSON.stringify(o.state),
      },
    },
    parent: o.parent,
    labVersion: appVersion(),
    metadata: { run_id: o.runId, stage: o.stage, step: o.state.step, tokens: o.state.tokens, eval_loss: o.evalLoss },
    overwrite: true,
  });
  return { dir: saved.dir, id: saved.manifest.id };
}

export interface ResumePoint {
  checkpoint: LoadedCheckpoint;
  optimizer: OptimizerState;
  state: TrainerState;
}

/** Complete checkpoints of a run (a folder with its manifest), by step. */
export function listStepCheckpoints(runDir: string): { step: number; dir: string }[] {
  const root = join(runDir, TRAINING_FILES.checkpoints);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((name) => ({ m: STEP_DIR.exec(name), dir: join(root, name) }))
    .filter((x) => x.m && existsSync(join(x.dir, 'manifest.json')))
    .map((x) => ({ step: Number(x.m![1]), dir: x.dir }))
    .sort((a, b) => a.step - b.step);
}

export function loadTrainingCheckpoint(dir: string): ResumePoint {
  const checkpoint = loadCheckpoint(dir, { optimizer: true });
  if (!checkpoint.optimizer) throw new Error(`${dir}: not a training checkpoint (no optimizer.safetensors)`);
  const meta = checkpoint.optimizer.metadata;
  if (!meta.trainer_state) throw new Error(`${join(dir, 'optimizer.safetensors')}: no trainer_state in its metadata`);
  const state = JSON.parse(meta.trainer_state) as TrainerState;
  const moments = new Map<string, { expAvg: Float32Array; expAvgSq: Float32Array }>();
  for (const [name] of checkpoint.parameters) {
    const expAvg = checkpoint.optimizer.state.get(`${name}.exp_avg`);
    const expAvgSq = checkpoint.optimizer.state.get(`${name}.exp_avg_sq`);
    if (expAvg && expAvgSq) moments.set(name, { expAvg, expAvgSq });
  }
  return { checkpoint, optimizer: { step: Number(meta.optimizer_step ?? state.step), moments }, state };
}

/** The newest complete checkpoint of a run, or null. */
/**
 * The checkpoints a resume may start from: those whose step's metrics row was written. A step saves its
 * checkpoint before it appends its row (the row records the save's time and what ran on the new
 * checkpoint), so a kill in between leaves a checkpoint the log does not reach; resuming from it would
 * leave that step without a row. Such checkpoints are deleted and their step redone, from the one before
 * (old checkpoints are pruned only after the newer one's row is written, so that one is still there).
 */
export function dropUnloggedCheckpoints(runDir: string): { step: number; dir: string }[] {
  const logged = readMetrics(runDir).reduce((n, r) => Math.max(n, r.step), 0);
  const all = listStepCheckpoints(runDir);
  for (const c of all) if (c.step > logged) rmSync(c.dir, { recursive: true, force: true });
  return all.filter((c) => c.step <= logged);
}

/** Delete step checkpoints beyond the newest `keepLast`, except the best. Returns the refs still present. */
export function pruneCheckpoints(refs: TrainingCheckpointRef[], keepLast: number): TrainingCheckpointRef[] {
  const sorted = [...refs].sort((a, b) => a.step - b.step);
  const keep = new Set(sorted.slice(-keepLast).map((r) => r.dir));
  for (const r of sorted) if (r.best) keep.add(r.dir);
  for (const r of sorted) if (!keep.has(r.dir)) rmSync(r.dir, { recursive: true, force: true });
  return sorted.filter((r) => keep.has(r.dir));
}

/**
 * Prune a run's checkpoints to `keepLast` (and the best) and record it in run.json. Called once the newest
 * checkpoint's metrics row is written, never between the save and the row (see dropUnloggedCheckpoints).
 */
export function pruneRunCheckpoints(runDir: string, manifest: TrainingRunManifest, keepLast: number): void {
  const kept = pruneCheckpoints(manifest.checkpoints, keepLast);
  if (kept.length === manifest.checkpoints.length) return;
  manifest.checkpoints = kept;
  writeTrainingManifest(runDir, manifest);
}

export function checkpointId(dir: string): string {
  return readManifest(dir).id;
}
