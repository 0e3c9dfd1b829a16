/**
 * The eval worker's way to the host's policy worker, over the eval worker's own channel: the worker side is
 * a PolicyCaller that emits `eval.policyCall` and waits for `eval.policyReply`; the host side answers each call
 * by calling its policy worker. One policy worker per host then holds each checkpoint once, for the Models
 * page and every onnx evaluation alike.
 */
import { randomUUID } from 'node:crypto';
import type { CallOptions } from '../../ipc/common/client';
import type { MethodInput, MethodOutput } from '../../ipc/common/define';
import { LabError } from '../../ipc/common/errors';
import type { EventPayload, MethodName } from '../../ipc/common/define';
import type { evalWorkerContract, PolicyCall, PolicyReply } from '../../processes/contracts/eval';
import type { policyContract } from '../../processes/contracts/policy';
import type { PolicyCaller, PolicyMethod } from '../models/policy-engine';

type Pending = { resolve: (output: unknown) => void; reject: (error: Error) => void };

/** Worker side: a PolicyCaller whose calls travel to the host. */
export class PolicyBridgeClient implements PolicyCaller {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly send: { call(call: PolicyCall): void; cancel(callId: string): void }) {}

  call<M extends PolicyMethod>(
    method: M,
    input: MethodInput<typeof policyContract, M>,
    options: CallOptions = {},
  ): Promise<MethodOutput<typeof policyContract, M>> {
    const callId = randomUUID();
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(new LabError('CANCELLED', `${method} cancelled`));
    return new Promise<MethodOutput<typeof policyContract, M>>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(callId);
        this.send.cancel(callId);
        reject(new LabError('CANCELLED', `${method} cancelled`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(callId, {
        resolve: (output) => {
          done();
          resolve(output as MethodOutput<typeof policyContract, M>);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.send.call({ callId, method, input, ...(timeoutMs ? { timeoutMs } : {}) });
    });
  }

  /** The host's answer arrived. */
  settle(reply: PolicyReply): void {
    const p = this.pending.get(reply.callId);
    if (!p) return; // cancelled meanwhile
    this.pending.delete(reply.callId);
    if (reply.ok) p.resolve(reply.output);
    else p.reject(new LabError(reply.error.code, reply.error.message));
  }
}

interface EvalWorkerLike {
  on<E extends 'eval.policyCall' | 'eval.policyCancel'>(
    event: E,
    listener: (payload: EventPayload<typeof evalWorkerContract, E>) => void,
  ): () => void;
  call(
    method: Extract<MethodName<typeof evalWorkerContract>, 'eval.policyReply'>,
    input: PolicyReply,
  ): Promise<unknown>;
}

/** Host side: answer the eval worker's policy calls with the host's policy worker. Returns the way to stop. */
export function servePolicyBridge(
  evalWorker: EvalWorkerLike,
  policy: PolicyCaller,
  log: (message: string) => void,
): () => void {
  const inflight = new Map<string, AbortController>();
  const offCall = evalWorker.on('eval.policyCall', (call) => {
    const controller = new AbortController();
    inflight.set(call.callId, controller);
    void (async () => {
      let reply: PolicyReply;
      try {
        // The policy worker validates `input` against its own contract on receipt.
        const output: unknown = await policy.call(call.method, call.input as never, {
          signal: controller.signal,
          timeoutMs: call.timeoutMs,
        });
        reply = { callId: call.callId, ok: true, output };
      } catch (error) {
        const code = error instanceof LabError ? error.code : 'INTERNAL';
        reply = { callId: call.callId, ok: false, error: { code, message: (error as Error).message } };
      } finally {
        inflight.delete(call.callId);
      }
      await evalWorker
        .call('eval.policyReply', reply)
        .catch((error: Error) => log(`policy reply to the eval worker failed: ${error.message}`));
    })();
  });
  const offCancel = evalWorker.on('eval.policyCancel', ({ callId }) => inflight.get(callId)?.abort());
  return () => {
    offCall();
    offCancel();
    for (const c of inflight.values()) c.abort();
  };
}
