/**
 * Every worker answers `worker.ping` besides its own contract: the contract both sides agree on (the worker
 * serves it, electron/workers/rpc-server.ts; the supervisor calls it).
 */
import { mergeContracts, type Contract, type MergedContract } from '../ipc/common/define';
import { workerBaseContract } from '../ipc/common/contracts/worker';

export type WithPing<C extends Contract> = MergedContract<[typeof workerBaseContract, C]>;

export function withPing<C extends Contract>(contract: C): WithPing<C> {
  return mergeContracts(workerBaseContract, contract);
}
