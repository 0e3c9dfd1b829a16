/**
 * `OnnxPolicyEngine` over the policy worker: what the harness's `onnx:CHECKPOINT` policy, the Models page
 * and the CLI use. The worker decodes concurrent generate() calls together in batches, and holds each
 * checkpoint once for all its users (each engine is a holder of its own).
 */
import { randomUUID } from 'node:crypto';
import type { GenerateOptions, GenerateResult, OnnxPolicyEngine, PolicyInfo } from '../../../native/model/policy-api';
import type { CallOptions } from '../../ipc/common/client';
import type { MethodInput, MethodName, MethodOutput } from '../../ipc/common/define';
import { policyContract, type PolicySettings } from '../../processes/contracts/policy';
import type { WorkerRegistry } from '../worker-registry';

/** Loading a checkpoint builds its graph and session: allow for a large model on a slow disk. */
export const LOAD_TIMEOUT_MS = 300_000;

type PolicyContract = typeof policyContract;
export type PolicyMethod = MethodName<PolicyContract>;

/**
 * Whatever calls the policy worker: its supervisor in the host (or the CLI), or, in the eval worker, a bridge
 * that asks the host to call its own policy worker (so the weights are never loaded twice).
 */
export interface PolicyCaller {
  call<M extends PolicyMethod>(method: M, input: MethodInput<PolicyContract, M>, options?: CallOptions): Promise<MethodOutput<PolicyContract, M>>;
}

/** The host's policy worker, one per registry. A crashed one is restarted; its callers see WORKER_CRASHED and load again. */
export function policyWorker(workers: WorkerRegistry): PolicyCaller {
  return workers.get('policy', policyContract);
}

/** Load `checkpoint` in the policy worker and return an engine bound to it (a holder of its own). */
export async function createOnnxPolicyEngine(worker: PolicyCaller, checkpoint: string, settings: PolicySettings = {}): Promise<OnnxPolicyEngine> {
  const holder = `engine-${randomUUID()}`;
  await worker.call('policy.load', { checkpoint, settings, holder }, { timeoutMs: LOAD_TIMEOUT_MS });
  let closed = false;
  return {
    info: (): Promise<PolicyInfo> => worker.call('policy.info', { checkpoint }),
    async generate(promptIds: readonly number[], options: GenerateOptions, signal?: AbortSignal): Promise<GenerateResult> {
      if (closed) throw new Error('the policy engine is closed');
      const r = await worker.call('policy.generate', { checkpoint, promptIds: [...promptIds], options }, { signal });
      return { tokens: r.tokens, stopReason: r.stopReason, promptRouting: r.promptRouting, timing: r.timing };
    },
    swapWeights: (weights: string) => worker.call('policy.swap', { checkpoint, weights }, { timeoutMs: LOAD_TIMEOUT_MS }),
    async close() {
      if (closed) return;
      closed = true;
      await worker.call('policy.unload', { checkpoint, holder }).catch(() => {});
    },
  };
}
