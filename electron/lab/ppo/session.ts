/**
 * PPO behind the trainer's session interface, so the trainer worker (and through it the app's Training
 * page) starts, pauses, stops and resumes PPO runs like the LM and SFT stages.
 */
import type { TrainingResult } from '../../domain/training';
import { TrainingControl } from '../training/control';
import type { TrainingRunConfig } from '../training/config/run-config';
import type { SessionEnv, TrainingSession } from '../training/session-types';
import { WorkerRegistry } from '../worker-registry';
import { forkLauncher } from '../../processes/launcher';
import { runPpo, type PpoResult } from './run';

function asTrainingResult(r: PpoResult): TrainingResult {
  return {
    stage: 'ppo',
    steps: r.steps,
    tokens: r.tokens,
    finalLoss: null,
    evalLoss: null,
    checkpoint: r.checkpoint,
    runDir: r.runDir,
    durationMs: r.durationMs,
    state: r.state,
  };
}

function launch(
  o: { config: TrainingRunConfig; configSource: string | null; out?: string; resume?: string; steps?: number },
  env: SessionEnv,
): Promise<TrainingSession> {
  const control = new TrainingControl();
  const workers = new WorkerRegistry(forkLauncher);
  return new Promise<TrainingSession>((resolveSession, reject) => {
    let started = false;
    const done = runPpo(o, {
      dataDir: env.dataDir,
      workers,
      control,
      log: env.hooks?.log,
      progress: env.hooks?.progress,
      metrics: env.hooks?.metrics,
      onStarted(runId, runDir) {
        started = true;
        resolveSession({ runId, runDir, control, done: done.then(asTrainingResult) });
      },
    }).finally(() => workers.stopAll());
    done.catch((error: unknown) => {
      if (!started) reject(error);
    });
  });
}

export function startPpoSession(
  o: { config: TrainingRunConfig; configSource: string | null; out?: string },
  env: SessionEnv,
): Promise<TrainingSession> {
  return launch(o, env);
}

export function resumePpoSession(
  runDir: string,
  config: TrainingRunConfig,
  env: SessionEnv,
  steps?: number,
): Promise<TrainingSession> {
  return launch({ config, configSource: null, resume: runDir, steps }, env);
}
