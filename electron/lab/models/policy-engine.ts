/**
 * `OnnxPolicyEngine` over the policy worker: what the harness's `onnx:CHECKPOINT` policy, the Models page
 * and the CLI use. The worker decodes concurrent generate() calls together in batches.
 */
import type { GenerateOptions, GenerateResult, OnnxPolicyEngine, PolicyInfo } from '../../../native/model/policy-api';
import { policyContract, type PolicySettings } from '../../processes/contracts/policy';
import type { WorkerRegistry } from '../worker-registry';

/** Loading a checkpoint builds its graph and session: allow for a large model on a slow disk. */
const LOAD_TIMEOUT_MS = 300_000;

export function policyWorker(workers: WorkerRegistry) {
  // A crashed policy worker is restarted; its callers see WORKER_CRASHED and load again.
  return workers.get('policy', policyContract);
}

/** Load `checkpoint` in the policy worker and return an engine bound to it. */
export async function createOnnxPolicyEngine(workers: WorkerRegistry, checkpoint: string, settings: PolicySettings = {}): Promise<OnnxPolicyEngine> {
  const worker = policyWorker(workers);
  await worker.call('policy.load', { checkpoint, settings }, { timeoutMs: LOAD_TIMEOUT_MS });
  let closed = false;
  return {
    info: (): Promise<PolicyInfo> => worker.call('policy.info', { checkpoint }),
    async generate(promptIds: readonly number[], options: GenerateOptions, signal?: AbortSignal): Promise<GenerateResult> {
      if (closed) throw new Error('the policy engine is closed');
      const r = await worker.call('policy.generate', { checkpoint, promptIds: [...promptIds], options }, { signal });
      return { tokens: r.tokens, stopReason: r.stopReason, promptRouting: r.promptRouting, promptIds: r.promptIds, timing: r.timing };
    },
    swapWeights: (weights: string) => worker.call('policy.swap', { checkpoint, weights }, { timeoutMs: LOAD_TIMEOUT_MS }),
    async close() {
      if (closed) return;
      closed = true;
      await worker.call('policy.unload', { checkpoint }).catch(() => {});
    },
  };
}
