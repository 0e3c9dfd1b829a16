/** The stages by name. A stage plugs in by adding its driver factory here (PPO: stages/ppo.ts). */
import { LabError } from '../../../ipc/common/errors';
import type { Stage } from '../config/run-config';
import { createLmDriver } from './lm';
import { createSftDriver } from './sft';
import type { DriverFactory } from './types';

export const STAGE_DRIVERS: Partial<Record<Stage, DriverFactory>> = {
  lm: createLmDriver,
  sft: createSftDriver,
};

export function driverFactory(stage: Stage): DriverFactory {
  const f = STAGE_DRIVERS[stage];
  if (!f) throw new LabError('UNAVAILABLE', `the ${stage} stage is not available in this build`);
  return f;
}

export type { DriverContext, DriverFactory, SuiteEvaluator } from './types';
