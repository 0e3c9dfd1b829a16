/**
 * What a training stage plugs into the shared step loop (trainer.ts): its loss, where each step's token
 * sequences come from, its held-out data, and its resumable position. LM and SFT are data stages; PPO
 * plugs in the same way with a batch source that runs rollouts.
 */
import type { LossDefinition } from '../../../native/model/losses';
import type { TrainingStage } from '../../domain/training';
import type { TokenSequence } from './batching';

export interface StepContext {
  step: number;
  /** The current fp32 weights (read-only for the stage). */
  params: ReadonlyMap<string, Float32Array>;
  /** The newest checkpoint folder, once one exists (e.g. to evaluate it as a policy). */
  lastCheckpoint: string | null;
}

export interface StageDriver {
  readonly stage: TrainingStage;
  readonly loss: LossDefinition;
  /** Train with the sampler's routing replayed (R3): sequences then carry forcedExperts. */
  readonly forcedRouting: boolean;
  /** Scalar loss inputs (aux_coef, clip ranges ...). */
  scalars(step: number): Record<string, number>;
  /** The sequences of optimizer step `step` (1-based); deterministic given the restored cursor. */
  nextBatch(step: number): Promise<TokenSequence[]> | TokenSequence[];
  /** Held-out sequences for the eval loss (masked NLL over `loss_mask`), fixed for the whole run. */
  evalSequences(): readonly TokenSequence[];
  /** The data position and RNG states to store in a checkpoint (JSON). */
  cursor(): unknown;
  restore(cursor: unknown): void;
  /** Facts about the data for run.json (files, sizes, split). */
  describe(): Record<string, unknown>;
  /** Work after a step, with metrics to add to its row (e.g. a periodic suite eval). */
  afterStep?(ctx: StepContext): Promise<Record<string, number>>;
  /** No more data (e.g. an epoch limit): the run ends after this step. */
  exhausted?(): boolean;
  close?(): Promise<void>;
}
