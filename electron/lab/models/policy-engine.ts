/**
 * `OnnxPolicyEngine` over the policy worker: what the harness's `onnx:CHECKPOINT` policy, the Models page
 * and the CLI use. The worker decodes concurrent generate() calls together in batches.
 */
import type { GenerateOptions, GenerateResult, OnnxPolicyEngine, PolicyInfo } from '../../../native/model/policy-api';
import { policyContract, type PolicySettings } from '../../workers/contracts/policy';
import type { WorkerRegistry } from '../workers';

/** Loading a checkpoint builds its graph and session: allow for a large model on a slow disk. */
const LOAD_TIMEOUT_MS = 300_000;

export function policyWorker(workers: WorkerRegistry) {
  // A crashed policy worker is restarted; its callers see WORKER_CRASHED and load again.
  return workers.get('policy', policyContract);
}

/** Load `checkpoint` in the policy worker and return an engine bound to it. */
export async function createOnnxPolicyEngine(workers: WorkerRegistry, checkpoint: string, settings: PolicySettings = {}): Promise<OnnxPolicyEngine> {
  const worker = policyWorker(workers);
  // A worker that did not come up in time (a machine under heavy load) is given two more chances.
  for (let attempt = 0; ; attempt++) {
    try {
      await worker.call('policy.load', { checkpoint, settings }, { timeoutMs: LOAD_TIMEOUT_MS });
      break;
    } catch (error) {
      if (attempt >= 2 || !/did not start|could not start/.test((error as Error).message)) throw error;
    }
  }
  let closed = false;
  /** The weights swapped in last: a restarted worker gets them back, not the checkpoint's own. */
  let swapped: string | null = null;
  let reloading: Promise<void> | null = null;
  // A crashed policy worker is restarted empty: load the checkpoint (and the swapped weights) again, once
  // for all the callers that saw the crash, and retry the call.
  const reload = () =>
    (reloading ??= (async () => {
      await worker.call('policy.load', { checkpoint, settings }, { timeoutMs: LOAD_TIMEOUT_MS });
      if (swapped) await worker.call('policy.swap', { checkpoint, weights: swapped }, { timeoutMs: LOAD_TIMEOUT_MS });
    })().finally(() => (reloading = null)));
  const lost = (error: unknown) => {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message;
    return code === 'WORKER_CRASHED' || (code === 'NOT_FOUND' && /is not loaded/.test(message)) || /did not start|could not start/.test(message);
  };
  const withReload = async <T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (closed || signal?.aborted || !lost(error)) throw error;
      await reload();
      return call();
    }
  };
  return {
    info: (): Promise<PolicyInfo> => withReload(() => worker.call('policy.info', { checkpoint })),
    async generate(promptIds: readonly number[], options: GenerateOptions, signal?: AbortSignal): Promise<GenerateResult> {
      if (closed) throw new Error('the policy engine is closed');
      const r = await withReload(() => worker.call('policy.generate', { checkpoint, promptIds: [...promptIds], options }, { signal }), signal);
      return { tokens: r.tokens, stopReason: r.stopReason, promptRouting: r.promptRouting, promptIds: r.promptIds, timing: r.timing };
    },
    async swapWeights(weights: string) {
      const info = await withReload(() => worker.call('policy.swap', { checkpoint, weights }, { timeoutMs: LOAD_TIMEOUT_MS }));
      swapped = weights;
      return info;
    },
    async close() {
      if (closed) return;
      closed = true;
      await worker.call('policy.unload', { checkpoint }).catch(() => {});
    },
  };
}
