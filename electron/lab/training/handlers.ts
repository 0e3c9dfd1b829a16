/**
 * The `training.*` methods: runs are read from their folders here; training happens in the trainer worker,
 * whose progress, metrics rows and log lines are forwarded to the UI as `training.*` events.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { trainingContract } from '../../ipc/common/contracts/training';
import type { Handlers } from '../../ipc/common/router';
import { LabError } from '../../ipc/common/errors';
import type { TrainingProgress } from '../../domain/training';
import { trainerWorkerContract } from '../../processes/contracts/trainer';
import { appRoot } from '../app-paths';
import { isBuiltinCorpus } from './corpus/names';
import type { HostContext } from '../host-context';
import { defaultConfigToml } from './config/default-config';
import { parseRunConfig, parseRunConfigToml, RunConfigError, type TrainingRunConfig } from './config/run-config';
import { readMetrics, TRAINING_FILES, trainingRunsDir } from './run-folder';
import { listTrainingRuns, trainingStatus } from './status';

/** Starting loads the data (tokenizing a corpus) and builds the first graphs: give it time. */
const START_TIMEOUT_MS = 300_000;
/** A training step can hold the worker's event loop for seconds on a busy machine: ping it gently. */
const TRAINER_HEALTH = { healthIntervalMs: 15_000, healthTimeoutMs: 180_000, startTimeoutMs: 60_000 };

export function trainingHandlers(ctx: HostContext): Handlers<typeof trainingContract> {
  const progress = new Map<string, TrainingProgress>();
  let wired = false;
  const worker = () => {
    const w = ctx.workers.get('trainer', trainerWorkerContract, undefined, TRAINER_HEALTH);
    if (!wired) {
      wired = true;
      w.on('trainer.progress', (p) => {
        progress.set(p.runId, p);
        ctx.emit('training.progress', p);
      });
      w.on('trainer.metrics', (m) => ctx.emit('training.metrics', m));
      w.on('trainer.log', (m) => ctx.emit('training.log', m));
      // A worker that dies takes its run with it (the checkpoints stay): say so.
      w.onStatus((status) => {
        if (status.state !== 'crashed' && status.state !== 'failed') return;
        for (const p of progress.values()) {
          if (p.state !== 'running' && p.state !== 'paused') continue;
          const failed: TrainingProgress = {
            ...p,
            state: 'failed',
            message: `the trainer worker ended (${status.lastExit ?? 'unknown'}); resume the run to continue from its last checkpoint`,
          };
          progress.set(p.runId, failed);
          ctx.emit('training.progress', failed);
        }
      });
    }
    return w;
  };
  const runDir = (runId: string) => {
    const dir = join(trainingRunsDir(ctx.dataDir), runId);
    if (!existsSync(join(dir, TRAINING_FILES.manifest)))
      throw new LabError('NOT_FOUND', `no training run '${runId}' in ${trainingRunsDir(ctx.dataDir)}`);
    return dir;
  };
  const live = (runId: string) => {
    const p = progress.get(runId);
    return p && (p.state === 'running' || p.state === 'paused' || p.state === 'starting' || p.state === 'stopping')
      ? p
      : null;
  };
  // The UI's paths are relative to the app (tasks/examples), not to wherever the host was started.
  const fromApp = (path: string) => (isBuiltinCorpus(path) || isAbsolute(path) ? path : resolve(appRoot(), path));

  return {
    'training.start': async ({ stage, configToml, config, overrides }) => {
      if (!configToml && !config)
        throw new LabError('INVALID_PARAMS', 'give the run config: configToml (TOML text) or config (data)');
      const o = {
        ...overrides,
        ...(overrides.model ? { model: fromApp(overrides.model) } : {}),
        ...(overrides.data ? { data: fromApp(overrides.data) } : {}),
      };
      let parsed: TrainingRunConfig;
      try {
        parsed = configToml ? parseRunConfigToml(configToml, 'config', o) : parseRunConfig(config, 'config', o);
      } catch (error) {
        if (error instanceof RunConfigError) throw new LabError('INVALID_PARAMS', error.message);
        throw error;
      }
      if (parsed.stage !== stage)
        throw new LabError('INVALID_PARAMS', `config: stage is "${parsed.stage}" but "${stage}" was asked for`);
      return worker().call(
        'trainer.start',
        { config: parsed as unknown as Record<string, unknown>, configSource: null, dataDir: ctx.dataDir },
        { timeoutMs: START_TIMEOUT_MS },
      );
    },
    'training.pause': async ({ runId }) =>
      live(runId) ? worker().call('trainer.pause', { runId }) : { paused: false },
    'training.resume': async ({ runId, steps }) => {
      const p = live(runId);
      if (p?.state === 'paused') {
        await worker().call('trainer.continue', { runId });
        return { runId, runDir: p.runDir };
      }
      if (p) throw new LabError('CONFLICT', `training run '${runId}' is already running`);
      return worker().call(
        'trainer.resume',
        { runDir: runDir(runId), dataDir: ctx.dataDir, ...(steps ? { steps } : {}) },
        { timeoutMs: START_TIMEOUT_MS },
      );
    },
    'training.stop': async ({ runId }) =>
      live(runId) ? worker().call('trainer.stop', { runId }) : { stopping: false },
    'training.status': ({ runId }) => {
      const { message: _message, ...run } = trainingStatus(runDir(runId));
      const p = live(runId);
      return { run: p ? { ...run, state: p.state } : run, progress: progress.get(runId) ?? null };
    },
    'training.list': () =>
      listTrainingRuns(ctx.dataDir).map((r) => {
        const p = live(r.runId);
        return p ? { ...r, state: p.state, step: p.step, tokens: p.tokens, loss: p.loss, evalLoss: p.evalLoss } : r;
      }),
    'training.metrics': ({ runId, afterStep }) => ({
      rows: readMetrics(runDir(runId)).filter((r) => r.step > afterStep),
    }),
    'training.defaultConfig': ({ stage, preset }) => ({ toml: defaultConfigToml({ stage, preset }) }),
  };
}
