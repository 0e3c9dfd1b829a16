/**
 * A running training session and what it runs with, shared by the stage runners (training/session.ts) and
 * the PPO session they start (ppo/session.ts), which both return one.
 */
import type { TrainingResult } from '../../domain/training';
import type { SuiteEvaluator } from './stages';
import type { TrainerHooks } from './trainer';
import type { TrainingControl } from './control';
import type { WorkerRegistry } from '../worker-registry';

export interface TrainingSession {
  runId: string;
  runDir: string;
  control: TrainingControl;
  done: Promise<TrainingResult>;
}

export interface SessionEnv {
  dataDir: string;
  hooks?: TrainerHooks;
  evaluateSuite?: SuiteEvaluator;
  /** The policy worker's registry, for stages that sample while training (PPO). */
  workers?: WorkerRegistry;
}
