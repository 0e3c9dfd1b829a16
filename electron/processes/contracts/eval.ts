/**
 * The eval worker: runs evaluations (sandboxed shells on node-pty, the agent loop, verifiers) away from the
 * host's event loop, and streams their progress, finished episodes and terminal bytes back.
 */
import { z } from 'zod';
import { defineContract, method } from '../../ipc/common/define';
import { EpisodeRecord, EvalRequest, LiveEpisode, RunProgress } from '../../domain/runs';

const Started = z.object({ runId: z.string(), runDir: z.string() });

export const evalWorkerContract = defineContract({
  methods: {
    'eval.start': method(z.object({ request: EvalRequest, dataDir: z.string() }), Started, 'Start an evaluation; resolves once its run folder exists.'),
    'eval.resume': method(z.object({ runDir: z.string(), dataDir: z.string() }), Started, 'Continue a run folder.'),
    'eval.cancel': method(z.object({ runId: z.string() }), z.object({ cancelled: z.boolean() }), 'Cancel a running evaluation.'),
    'eval.live': method(z.object({ runId: z.string() }), z.object({ episodes: z.array(LiveEpisode) }), 'Recent terminal bytes of the running episodes.'),
    'eval.active': method(z.object({}), z.array(RunProgress), 'Progress of every evaluation this worker runs.'),
  },
  events: {
    'eval.progress': RunProgress,
    'eval.episode': z.object({ runId: z.string(), record: EpisodeRecord }),
    /** Terminal bytes, batched per episode. */
    'eval.terminal': z.object({ runId: z.string(), key: z.string(), data: z.string() }),
  },
});
