/** How a stage's driver is made (the registry in index.ts maps each stage name to one). */
import type { ModelConfig } from '../../../../native/model/config';
import type { Tokenizer } from '../../../../native/model/tokenizer';
import type { TrainingRunConfig } from '../config/run-config';
import type { StageDriver } from '../stage';
import type { WorkerRegistry } from '../../worker-registry';

export interface DriverContext {
  config: TrainingRunConfig;
  model: ModelConfig;
  tokenizer: Tokenizer;
  /** sha256 of the tokenizer.json (SFT samples must match it). */
  tokenizerSha: string;
  runDir: string;
  /** True when continuing a run: prepared data is read back from the run folder, not rebuilt. */
  resume: boolean;
  /** The longest sequence the graphs take (data.max_seq_len or the model's window). */
  maxLength: number;
  log(message: string): void;
  /** Present where the caller can run evaluations (the CLI, the trainer worker). */
  evaluateSuite?: SuiteEvaluator;
  /**
   * The caller's workers, for stages that sample from the policy while training (PPO: rollouts through
   * `createOnnxPolicyEngine(workers, dir)`, new weights with its `swapWeights(checkpointDir)`).
   */
  workers?: WorkerRegistry;
}

export type DriverFactory = (ctx: DriverContext) => Promise<StageDriver>;

/** A short evaluation of a checkpoint as `onnx:DIR` on a suite (SFT's periodic eval); supplied by whoever can start the policy worker. */
export type SuiteEvaluator = (
  checkpointDir: string,
  suite: string,
  maxTasks: number,
) => Promise<{ resolvedRate: number; ci95: [number, number]; tasks: number; meanReward: number }>;
