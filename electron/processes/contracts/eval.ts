/**
 * The eval worker: runs evaluations (sandboxed shells on node-pty, the agent loop, verifiers) away from the
 * host's event loop, and streams their progress, finished episodes and terminal bytes back.
 */
import { z } from 'zod';
import { defineContract, method } from '../../ipc/common/define';
import { EpisodeRecord, EvalRequest, LiveEpisode, RunProgress } from '../../domain/runs';
import { ErrorCode } from '../../ipc/common/errors';

/**
 * The eval worker uses the host's policy worker (one per host, each checkpoint loaded once, shared with the
 * Models page): it asks with `eval.policyCall`, the host calls its policy worker (which validates the input
 * against its own contract) and answers with `eval.policyReply`.
 */
export const POLICY_BRIDGE_METHODS = [
  'policy.load',
  'policy.info',
  'policy.generate',
  'policy.swap',
  'policy.unload',
] as const;
export const PolicyCall = z.object({
  callId: z.string().min(1).max(64),
  method: z.enum(POLICY_BRIDGE_METHODS),
  input: z.unknown(),
  timeoutMs: z.number().int().positive().optional(),
});
export type PolicyCall = z.infer<typeof PolicyCall>;
export const PolicyReply = z.union([
  z.object({ callId: z.string(), ok: z.literal(true), output: z.unknown() }),
  z.object({ callId: z.string(), ok: z.literal(false), error: z.object({ code: ErrorCode, message: z.string() }) }),
]);
export type PolicyReply = z.infer<typeof PolicyReply>;

const Started = z.object({ runId: z.string(), runDir: z.string() });

export const evalWorkerContract = defineContract({
  methods: {
    'eval.start': method(
      z.object({ request: EvalRequest, dataDir: z.string() }),
      Started,
      'Start an evaluation; resolves once its run folder exists.',
    ),
    'eval.resume': method(z.object({ runDir: z.string(), dataDir: z.string() }), Started, 'Continue a run folder.'),
    'eval.cancel': method(
      z.object({ runId: z.string() }),
      z.object({ cancelled: z.boolean() }),
      'Cancel a running evaluation.',
    ),
    'eval.live': method(
      z.object({ runId: z.string() }),
      z.object({ episodes: z.array(LiveEpisode) }),
      'Recent terminal bytes of the running episodes.',
    ),
    'eval.active': method(z.object({}), z.array(RunProgress), 'Progress of every evaluation this worker runs.'),
    'eval.policyReply': method(PolicyReply, z.object({}), "The host's answer to an eval.policyCall."),
  },
  events: {
    'eval.progress': RunProgress,
    'eval.episode': z.object({ runId: z.string(), record: EpisodeRecord }),
    /** Terminal bytes, batched per episode. */
    'eval.terminal': z.object({ runId: z.string(), key: z.string(), data: z.string() }),
    /** A call for the host's policy worker (see PolicyCall). */
    'eval.policyCall': PolicyCall,
    /** The caller gave up on a policy call (its episode was cancelled or ran out of time). */
    'eval.policyCancel': z.object({ callId: z.string() }),
  },
});
