/** Evaluation runs: start, follow live, cancel, resume, and read results and episodes back. */
import { z } from 'zod';
import { defineContract, method } from '../define';
import {
  EpisodeRecord,
  EvalRequest,
  LiveEpisode,
  RunId,
  RunListing,
  RunManifest,
  RunProgress,
  RunStats,
  TaskPassRate,
  TaskRunFilter,
  TaskRunHistory,
} from '../../../domain/runs';
import { Trajectory } from '../../../domain/trajectory';
import { RunMetaPatch, RunMetaResult, RunRemoved } from '../../../domain/run-meta';
import { RunSystemSample, SystemSummary } from '../../../domain/system-samples';

const EpisodeKey = z.string().min(1).max(600);

export const runsContract = defineContract({
  methods: {
    'runs.list': method(z.object({}), z.array(RunListing), 'List the runs in the lab data folder, newest first.'),
    'runs.get': method(
      z.object({ runId: RunId }),
      z.object({
        manifest: RunManifest,
        episodes: z.array(EpisodeRecord),
        stats: RunStats,
        progress: RunProgress.nullable(),
      }),
      'A run: its configuration, finished episodes, statistics and live progress.',
    ),
    'runs.start': method(
      EvalRequest,
      z.object({ runId: z.string(), runDir: z.string() }),
      'Start an evaluation in the background.',
    ),
    'runs.resume': method(
      z.object({ runId: RunId }),
      z.object({ runId: z.string(), runDir: z.string() }),
      'Continue a killed or cancelled evaluation.',
    ),
    'runs.cancel': method(
      z.object({ runId: RunId }),
      z.object({ cancelled: z.boolean() }),
      'Cancel a running evaluation (finished episodes stay).',
    ),
    'runs.live': method(
      z.object({ runId: RunId }),
      z.object({ episodes: z.array(LiveEpisode) }),
      'The terminals of the running episodes, to draw before following runs.terminal.',
    ),
    'runs.episode': method(
      z.object({ runId: RunId, key: EpisodeKey }),
      z.object({
        record: EpisodeRecord.nullable(),
        trajectory: Trajectory,
        verifierOutput: z.string().nullable(),
        hasRecording: z.boolean(),
      }),
      'One episode: its turns (sampled ids and log-probs, routing left out), verifier results and output.',
    ),
    'runs.taskHistory': method(
      z.object({ taskId: z.string().min(1).max(200), filter: TaskRunFilter.optional() }),
      z.array(TaskRunHistory),
      'Every run that holds a task (of a policy kind, model or suite when filtered), with its episodes of it, newest first.',
    ),
    'runs.taskPassRates': method(
      z.object({ filter: TaskRunFilter.optional() }),
      z.array(TaskPassRate),
      "Per task id, over every evaluation run (of a policy kind, model or suite when filtered): runs, episodes and resolved episodes (the Tasks page's pass rate).",
    ),
    'runs.setMeta': method(
      z.object({ runId: RunId, patch: RunMetaPatch }),
      RunMetaResult,
      'Rename, tag or annotate a run (eval or training): meta.json in its folder, as `t1lab runs rename|tag|note`.',
    ),
    'runs.remove': method(
      z.object({ runId: RunId }),
      RunRemoved,
      'Delete a run folder (eval or training); a running run is refused (CONFLICT), as `t1lab runs rm`.',
    ),
    'runs.system': method(
      z.object({ runId: RunId }),
      z.object({ samples: z.array(RunSystemSample), summary: SystemSummary.nullable() }),
      'The machine during an evaluation (its system.jsonl: CPU, memory, RSS, disk, load, episodes, sandboxes, GPU) and a summary; none for runs made before it was sampled.',
    ),
    'runs.recording': method(
      z.object({ runId: RunId, key: EpisodeKey }),
      z.object({ cast: z.string(), truncated: z.boolean() }),
      "An episode's asciicast v2 recording.",
    ),
  },
  events: {
    'runs.progress': RunProgress,
    'runs.terminal': z.object({ runId: z.string(), key: z.string(), data: z.string() }),
    'runs.episode': z.object({ runId: z.string(), record: EpisodeRecord }),
  },
});
