/**
 * Starting and resuming a training run: the run folder and its manifest, the initial weights (a checkpoint,
 * or a preset with a tokenizer trained on the stage's text), the stage's driver, and the step loop. Used
 * in the calling process by `t1lab train` and in the trainer worker for the app.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashFile, loadCheckpoint, readManifest, saveCheckpoint } from '../../../native/model/checkpoint';
import { configFromPreset, type ModelConfig } from '../../../native/model/config';
import { initParameters } from '../../../native/model/init';
import { trainBpe, type Tokenizer } from '../../../native/model/tokenizer';
import { type TrainingCheckpointRef, type TrainingRunManifest } from '../../domain/training';
import { LabError } from '../../ipc/common/errors';
import { createOptimizerState, type OptimizerState } from '../../rl/adamw';
import { appVersion } from '../app-paths';
import { defaultCorpus } from '../models/default-corpus';
import { dropUnloggedCheckpoints, loadTrainingCheckpoint, type TrainerState } from './checkpoints';
import { parseRunConfig, type TrainingRunConfig } from './config/run-config';
import { TrainingControl } from './control';
import { loadCorpus } from './corpus';
import {
  createRunFolder,
  newTrainingManifest,
  newTrainingRunId,
  readTrainingManifest,
  trainingRunsDir,
  writeTrainingManifest,
} from './run-folder';
import { driverFactory } from './stages';
import { resumePpoSession, startPpoSession } from '../ppo/session';
import type { SessionEnv, TrainingSession } from './session-types';
import { runLog } from './run-log';
import { describeGroups, maxTrainingLength, paramSettings, readTokenizerConfig, runTrainer } from './trainer';
import { checkRunFits } from './memory-check';

export interface StartTrainingOptions {
  config: TrainingRunConfig;
  configSource: string | null;
  /** The run folder (default: $T1LAB_HOME/training/<id>). */
  out?: string;
}

function freshState(): TrainerState {
  return { step: 0, tokens: 0, cursor: null, rng: {}, bestEvalLoss: null, lastLoss: null, lastEvalLoss: null };
}

/** A preset's fresh checkpoint in RUN/init: its tokenizer trained on the stage's text (LM) or the default corpus. */
async function initFromPreset(config: TrainingRunConfig, runDir: string, log: (m: string) => void): Promise<string> {
  const preset = config.model.preset!;
  const model = configFromPreset(preset);
  let texts: string[] = [];
  if (config.stage === 'lm') {
    const paths = Array.isArray(config.data.path) ? config.data.path : [config.data.path];
    texts = (await loadCorpus(paths, null)).flatMap((d) => (d.text ? [d.text] : []));
  }
  if (!texts.length) texts = defaultCorpus();
  log(
    `model: fresh ${preset} weights (seed ${config.model.init_seed}), tokenizer trained on ${texts.length} documents`,
  );
  const trained = trainBpe({ corpus: texts, vocabSize: model.vocab_size });
  const dir = join(runDir, 'init');
  saveCheckpoint(dir, {
    config: model,
    tokenizer: trained.json,
    tokenizerConfig: trained.config,
    parameters: initParameters(model, config.model.init_seed),
    labVersion: appVersion(),
    metadata: { preset, seed: config.model.init_seed },
  });
  return dir;
}

interface Prepared {
  model: ModelConfig;
  tokenizer: Tokenizer;
  tokenizerConfig: Record<string, unknown> | undefined;
  tokenizerSha: string;
  params: Map<string, Float32Array>;
}

function loadInit(dir: string): Prepared {
  const loaded = loadCheckpoint(dir);
  return {
    model: loaded.config,
    tokenizer: loaded.tokenizer,
    tokenizerConfig: readTokenizerConfig(dir),
    tokenizerSha: hashFile(join(dir, 'tokenizer.json')).sha256,
    params: loaded.parameters,
  };
}

async function launch(
  runDir: string,
  manifest: TrainingRunManifest,
  config: TrainingRunConfig,
  prepared: Prepared,
  optimizer: OptimizerState,
  state: TrainerState,
  resume: boolean,
  env: SessionEnv,
): Promise<TrainingSession> {
  const log = env.hooks?.log ?? (() => {});
  const control = new TrainingControl();
  const driver = await driverFactory(config.stage)({
    config,
    model: prepared.model,
    tokenizer: prepared.tokenizer,
    tokenizerSha: prepared.tokenizerSha,
    runDir,
    resume,
    maxLength: maxTrainingLength(config, prepared.model),
    log,
    evaluateSuite: env.evaluateSuite,
    workers: env.workers,
  });
  if (state.step > 0) driver.restore(state.cursor);
  manifest.data = driver.describe();
  writeTrainingManifest(runDir, manifest);
  const done = runTrainer({
    runDir,
    manifest,
    config,
    model: prepared.model,
    tokenizer: prepared.tokenizer,
    tokenizerConfig: prepared.tokenizerConfig,
    params: prepared.params,
    optimizer,
    state,
    driver,
    control,
    hooks: env.hooks ?? {},
    parent: manifest.init.path,
  });
  return { runId: manifest.id, runDir, control, done };
}

/** The env whose log also goes to the run folder's train.log. */
function withRunLog(env: SessionEnv, runDir: string): SessionEnv {
  const file = runLog(env.hooks?.log);
  file.attach(runDir);
  return { ...env, hooks: { ...env.hooks, log: file.log } };
}

export async function startTraining(o: StartTrainingOptions, env: SessionEnv): Promise<TrainingSession> {
  const { config } = o;
  if (config.stage === 'ppo') return startPpoSession(o, env); // rollouts + updates: its own loop (lab/ppo)
  if (config.model.checkpoint) {
    const dir = resolve(config.model.checkpoint);
    if (!existsSync(dir)) throw new LabError('INVALID_PARAMS', `model.checkpoint: ${dir} does not exist`);
    checkRunFits(dir, ['training']);
  }
  const runDir = createRunFolder(o.out ?? join(trainingRunsDir(env.dataDir), newTrainingRunId(config.stage)));
  env = withRunLog(env, runDir);
  const log = env.hooks?.log ?? (() => {});
  const initDir = config.model.checkpoint
    ? resolve(config.model.checkpoint)
    : await initFromPreset(config, runDir, log);
  let prepared: Prepared;
  try {
    prepared = loadInit(initDir);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `model.checkpoint: ${(error as Error).message}`);
  }
  const { settings } = paramSettings(config, prepared.model);
  const manifest = newTrainingManifest({
    runDir,
    stage: config.stage,
    config,
    configSource: o.configSource,
    initDir,
    paramGroups: describeGroups(prepared.model, settings),
  });
  writeTrainingManifest(runDir, manifest);
  return launch(runDir, manifest, config, prepared, createOptimizerState(prepared.params), freshState(), false, env);
}

/** Continue a run folder from its newest checkpoint (or from the start when it has none yet). */
export async function resumeTraining(
  dir: string,
  env: SessionEnv,
  overrides: { steps?: number } = {},
): Promise<TrainingSession> {
  const runDir = resolve(dir);
  const manifest = readTrainingManifest(runDir);
  const config = parseRunConfig(manifest.config, join(runDir, 'run.json config'), overrides);
  if (manifest.stage === 'ppo') return resumePpoSession(runDir, config, env, overrides.steps);
  env = withRunLog(env, runDir);
  manifest.config = config as unknown as Record<string, unknown>;
  // Checkpoints on disk are the truth (a kill between a save and the manifest update loses nothing), once
  // their step's metrics row is written (a kill between the save and the row redoes that step).
  const onDisk = dropUnloggedCheckpoints(runDir);
  const latest = onDisk.at(-1) ?? null;
  const known = new Map(manifest.checkpoints.map((r) => [r.dir, r]));
  manifest.checkpoints = onDisk.map(
    (c): TrainingCheckpointRef =>
      known.get(c.dir) ?? {
        step: c.step,
        dir: c.dir,
        id: readManifest(c.dir).id,
        evalLoss: (readManifest(c.dir).metadata.eval_loss as number | null) ?? null,
        best: false,
      },
  );
  manifest.resumes.push({ at: new Date().toISOString(), fromStep: latest?.step ?? 0 });
  if (!latest) {
    const prepared = loadInit(manifest.init.path);
    return launch(runDir, manifest, config, prepared, createOptimizerState(prepared.params), freshState(), true, env);
  }
  const point = loadTrainingCheckpoint(latest.dir);
  const prepared: Prepared = {
    model: point.checkpoint.config,
    tokenizer: point.checkpoint.tokenizer,
    tokenizerConfig: readTokenizerConfig(latest.dir),
    tokenizerSha: hashFile(join(latest.dir, 'tokenizer.json')).sha256,
    params: point.checkpoint.parameters,
  };
  return launch(runDir, manifest, config, prepared, point.optimizer, point.state, true, env);
}
