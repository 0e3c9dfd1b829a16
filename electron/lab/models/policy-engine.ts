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
/** The methods an engine uses (streaming and its stop are the Models page's, never bridged from the eval worker). */
export type PolicyMethod = Exclude<MethodName<PolicyContract>, 'policy.stop'>;

/**
 * Whatever calls the policy worker: its supervisor in the host (or the CLI), or, in the eval worker, a bridge
 * that asks the host to call its own policy worker (so the weights are never loaded twice).
 */
export interface PolicyCaller {
  call<M extends PolicyMethod>(
    method: M,
    input: MethodInput<PolicyContract, M>,
    options?: CallOptions,
  ): Promise<MethodOutput<PolicyContract, M>>;
}

/** The host's policy worker, one per registry. A crashed one is restarted; its callers see WORKER_CRASHED and load again. */
export function policyWorker(workers: WorkerRegistry): PolicyCaller {
  return workers.get('policy', policyContract);
}

/** Load `checkpoint` in the policy worker and return an engine bound to it (a holder of its own). */
export async function createOnnxPolicyEngine(
  worker: PolicyCaller,
  checkpoint: string,
  settings: PolicySettings = {},
): Promise<OnnxPolicyEngine> {
  const holder = `engine-${randomUUID()}`;
  // A worker that did not come up in time (a machine under heavy load) is given two more chances.
  for (let attempt = 0; ; attempt++) {
    try {
      await worker.call('policy.load', { checkpoint, settings, holder }, { timeoutMs: LOAD_TIMEOUT_MS });
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
      await worker.call('policy.load', { checkpoint, settings, holder }, { timeoutMs: LOAD_TIMEOUT_MS });
      if (swapped) await worker.call('policy.swap', { checkpoint, weights: swapped }, { timeoutMs: LOAD_TIMEOUT_MS });
    })().finally(() => (reloading = null)));
  const lost = (error: unknown) => {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message;
    return (
      code === 'WORKER_CRASHED' ||
      (code === 'NOT_FOUND' && /is not loaded/.test(message)) ||
      /did not start|could not start/.test(message)
    );
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
    async generate(
      promptIds: readonly number[],
      options: GenerateOptions,
      signal?: AbortSignal,
    ): Promise<GenerateResult> {
      if (closed) throw new Error('the policy engine is closed');
      const r = await withReload(
        () => worker.call('policy.generate', { checkpoint, promptIds: [...promptIds], options }, { signal }),
        signal,
      );
      return {
        tokens: r.tokens,
        stopReason: r.stopReason,
        promptRouting: r.promptRouting,
        promptIds: r.promptIds,
        timing: r.timing,
      };
    },
    async swapWeights(weights: string) {
      const info = await withReload(() =>
        worker.call('policy.swap', { checkpoint, weights }, { timeoutMs: LOAD_TIMEOUT_MS }),
      );
      swapped = weights;
      return info;
    },
    async close() {
      if (closed) return;
      closed = true;
      await worker.call('policy.unload', { checkpoint, holder }).catch(() => {});
    },
  };
}
