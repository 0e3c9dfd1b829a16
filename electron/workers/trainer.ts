/**
 * Entry point of the trainer worker (see contracts/trainer.ts): one training run at a time, its progress
 * and metrics streamed to the host. Its own policy worker (started only when needed) runs the SFT stage's
 * periodic suite evaluations and takes new weights with `policy.swap`.
 */
import { LabError } from '../ipc/common/errors';
import { onnxPolicyFactory } from '../lab/models/onnx-policy';
import { policyWorker } from '../lab/models/policy-engine';
import { parseRunConfig, RunConfigError } from '../lab/training/config/run-config';
import { resumeTraining, startTraining } from '../lab/training/session';
import type { SessionEnv, TrainingSession } from '../lab/training/session-types';
import { suiteEvaluator } from '../lab/training/suite-eval';
import type { TrainerHooks } from '../lab/training/trainer';
import type { TrainingProgress } from '../domain/training';
import { WorkerRegistry } from '../lab/worker-registry';
import { trainerWorkerContract } from '../processes/contracts/trainer';
import { forkLauncher } from '../processes/launcher';
import { serveWorker } from './rpc-server';

let current: { session: TrainingSession; progress: TrainingProgress | null } | null = null;
const workers = new WorkerRegistry(forkLauncher);

function hooks(runId: () => string): TrainerHooks {
  return {
    progress(p) {
      if (current) current.progress = p;
      router.emit('trainer.progress', p);
    },
    metrics(row) {
      router.emit('trainer.metrics', { runId: runId(), row });
    },
    log(message) {
      process.stderr.write(`[trainer] ${message}\n`);
      router.emit('trainer.log', { runId: runId(), message });
    },
  };
}

function env(dataDir: string): SessionEnv {
  const log = (m: string) => process.stderr.write(`[trainer] ${m}\n`);
  return {
    dataDir,
    workers,
    hooks: hooks(() => current?.session.runId ?? ''),
    evaluateSuite: suiteEvaluator({ dataDir, onnx: onnxPolicyFactory(policyWorker(workers)), log }),
  };
}

function busy(): void {
  if (current)
    throw new LabError(
      'CONFLICT',
      `a training run is already in progress (${current.session.runId}): one run at a time; stop it first`,
    );
}

function track(session: TrainingSession) {
  current = { session, progress: null };
  session.done
    .catch((error: Error) => process.stderr.write(`[trainer] ${session.runId} failed: ${error.message}\n`))
    .finally(() => {
      if (current?.session === session) current = null;
    });
  return { runId: session.runId, runDir: session.runDir };
}

function get(runId: string): TrainingSession {
  if (!current || current.session.runId !== runId)
    throw new LabError('NOT_FOUND', `no training run '${runId}' is in progress`);
  return current.session;
}

const router = serveWorker('trainer', trainerWorkerContract, {
  'trainer.start': async ({ config, configSource, out, dataDir }) => {
    busy();
    let parsed;
    try {
      parsed = parseRunConfig(config, configSource ?? 'config');
    } catch (error) {
      if (error instanceof RunConfigError) throw new LabError('INVALID_PARAMS', error.message);
      throw error;
    }
    return track(await startTraining({ config: parsed, configSource, out }, env(dataDir)));
  },
  'trainer.resume': async ({ runDir, dataDir, steps }) => {
    busy();
    return track(await resumeTraining(runDir, env(dataDir), steps ? { steps } : {}));
  },
  'trainer.pause': ({ runId }) => {
    get(runId).control.pause();
    return { paused: true };
  },
  'trainer.continue': ({ runId }) => {
    get(runId).control.resume();
    return { resumed: true };
  },
  'trainer.stop': ({ runId }) => {
    get(runId).control.stop();
    return { stopping: true };
  },
  'trainer.active': () => (current?.progress ? [current.progress] : []),
});

/** Stopping the worker stops the run at a step boundary with a checkpoint, then exits. */
process.on('SIGTERM', () => {
  current?.session.control.stop();
  void Promise.allSettled([current?.session.done])
    .then(() => workers.stopAll())
    .then(() => process.exit(0));
});
