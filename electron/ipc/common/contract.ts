/**
 * The app's one contract: every method and event between the UI (Electron renderer or browser tab) and
 * the host (Electron main or `t1lab serve`). Each domain adds its part in `contracts/`.
 */
import {
  mergeContracts,
  type MethodInput,
  type MethodName,
  type MethodOutput,
  type EventName,
  type EventPayload,
} from './define';
import { systemContract } from './contracts/system';
import { runsContract } from './contracts/runs';
import { modelsContract } from './contracts/models';
import { tasksContract } from './contracts/tasks';
import { terminalContract } from './contracts/terminal';
import { statsContract } from './contracts/stats';
import { trainingContract } from './contracts/training';
import { trainingViewContract } from './contracts/training-view';
import { reportsContract } from './contracts/reports';

export const labContract = mergeContracts(
  systemContract,
  runsContract,
  modelsContract,
  tasksContract,
  terminalContract,
  statsContract,
  trainingContract,
  trainingViewContract,
  reportsContract,
);
export type LabContract = typeof labContract;
export type LabMethod = MethodName<LabContract>;
export type LabEvent = EventName<LabContract>;
export type LabInput<M extends LabMethod> = MethodInput<LabContract, M>;
export type LabOutput<M extends LabMethod> = MethodOutput<LabContract, M>;
export type LabEventPayload<E extends LabEvent> = EventPayload<LabContract, E>;
