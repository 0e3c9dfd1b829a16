/** Entry point of the eval worker (see contracts/eval.ts). */
import { LabError } from '../ipc/common/errors';
import { resumeEvaluation, startEvaluation, type EvalHooks, type Evaluation } from '../lab/runs/evaluate';
import { onnxPolicyFactory } from '../lab/models/onnx-policy';
import { PolicyBridgeClient } from '../lab/runs/policy-bridge';
import { evalWorkerContract } from '../processes/contracts/eval';
import { serveWorker } from './rpc-server';

/** Terminal bytes are sent in batches at most this often per episode (keeps IPC frames few and large). */
const TERMINAL_BATCH_MS = 30;

const active = new Map<string, Evaluation>();
/**
 * The onnx: policy runs in the host's policy worker, reached through the host (never a policy worker of this
 * worker's own: the Models page and every evaluation share one copy of each checkpoint's weights).
 */
const policy = new PolicyBridgeClient({
  call: (call) => router.emit('eval.policyCall', call),
  cancel: (callId) => router.emit('eval.policyCancel', { callId }),
});
const onnx = onnxPolicyFactory(policy);
const pending = new Map<string, { runId: string; key: string; data: string }>();
let flushTimer: ReturnType<typeof setTimeout> | null = null;

function flush() {
  flushTimer = null;
  for (const batch of pending.values()) router.emit('eval.terminal', batch);
  pending.clear();
}

/** Hooks of one evaluation; its run id is known from its first progress report on. */
function hooks(): EvalHooks {
  let runId = '';
  return {
    progress(p) {
      runId = p.runId;
      router.emit('eval.progress', p);
    },
    episode(record) {
      router.emit('eval.episode', { runId, record });
    },
    data(key, data) {
      const id = `${runId}\u0000${key}`;
      const batch = pending.get(id);
      if (batch) batch.data += data;
      else pending.set(id, { runId, key, data });
      flushTimer ??= setTimeout(flush, TERMINAL_BATCH_MS);
    },
    log(message) {
      process.stderr.write(`[eval] ${message}\n`);
    },
  };
}

function track(evaluation: Evaluation) {
  active.set(evaluation.runId, evaluation);
  evaluation.done
    .catch((error: Error) => process.stderr.write(`[eval] ${evaluation.runId} failed: ${error.message}\n`))
    .finally(() => {
      flush();
      active.delete(evaluation.runId);
    });
  return { runId: evaluation.runId, runDir: evaluation.runDir };
}

function get(runId: string): Evaluation {
  const evaluation = active.get(runId);
  if (!evaluation) throw new LabError('NOT_FOUND', `no evaluation '${runId}' is running`);
  return evaluation;
}

const router = serveWorker('eval', evalWorkerContract, {
  'eval.start': async ({ request, dataDir }) => track(await startEvaluation(request, { dataDir, onnx }, hooks())),
  'eval.resume': async ({ runDir, dataDir }) => {
    for (const e of active.values())
      if (e.runDir === runDir) throw new LabError('CONFLICT', `${runDir} is already running`);
    return track(await resumeEvaluation(runDir, { dataDir, onnx }, hooks()));
  },
  'eval.cancel': ({ runId }) => {
    get(runId).cancel();
    return { cancelled: true };
  },
  'eval.live': ({ runId }) => ({ episodes: get(runId).live() }),
  'eval.active': () => [...active.values()].map((e) => e.progress()),
  'eval.policyReply': (reply) => {
    policy.settle(reply);
    return {};
  },
});

/** Stopping the worker cancels its evaluations; finished episodes are already on disk. */
process.on('SIGTERM', () => {
  for (const e of active.values()) e.cancel();
  void Promise.allSettled([...active.values()].map((e) => e.done)).then(() => process.exit(0));
});
