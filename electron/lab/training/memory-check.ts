/** A run refuses a model that cannot fit this machine's memory before it reads a weight or makes a run folder. */
import { countParameters } from '../../../native/model/config';
import { MemoryFitError, checkMemoryFit, type MemoryUse } from '../../../native/model/memory-fit';
import { readModelConfig } from '../../../native/model/policy-checkpoint';
import { LabError } from '../../ipc/common/errors';

export function checkRunFits(initDir: string, uses: readonly MemoryUse[]): void {
  let config;
  try {
    config = readModelConfig(initDir);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `model.checkpoint: ${(error as Error).message}`);
  }
  if (!config) return; // not a model folder: loading it reports what is wrong
  try {
    checkMemoryFit(initDir, countParameters(config), uses);
  } catch (error) {
    if (error instanceof MemoryFitError) throw new LabError('INVALID_PARAMS', `model.checkpoint: ${error.message}`);
    throw error;
  }
}
