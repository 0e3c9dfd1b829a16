/**
 * A PPO rollout opened as an episode: the verifier's verdict per assertion and its output, and the
 * terminal recording, read from the rollout's episode folder (rollouts/step-N/episodes/<key>/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { RolloutEpisodeFiles } from '../../domain/training-view';
import { Trajectory } from '../../domain/trajectory';
import { EPISODE_FILES } from '../runs/episode-files';
import { hasRecording, readRecordingFile, readVerifierOutput } from '../runs/episode-read';
import { rolloutEpisodeFolder } from './view-rollouts';

function folderOf(dir: string, step: number, key: string) {
  const found = rolloutEpisodeFolder(dir, step, key);
  if (!found.folder)
    throw new LabError(
      'NOT_FOUND',
      `episode '${key}' of step ${step} keeps no episode folder (trajectory, recording, verifier output): only its tokens`,
    );
  return { ...found, folder: found.folder };
}

export function readRolloutEpisode(runId: string, dir: string, step: number, key: string): RolloutEpisodeFiles {
  const { episode, folder } = folderOf(dir, step, key);
  const file = join(folder, EPISODE_FILES.trajectory);
  if (!existsSync(file))
    throw new LabError('NOT_FOUND', `episode '${key}' of step ${step} has no trajectory (${file})`);
  const parsed = Trajectory.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new LabError(
      'UNAVAILABLE',
      `${file}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  const t = parsed.data;
  return {
    runId,
    step,
    key,
    taskId: episode.taskId,
    resolved: t.resolved,
    stopReason: t.stopReason,
    reward: t.reward ? { dense: t.reward.dense, fraction: t.reward.fraction, binary: t.reward.binary } : null,
    assertions: (t.verifier?.assertions ?? []).map((a) => ({ name: a.name, status: a.status, message: a.message })),
    verifierRan: t.verifier !== null,
    verifierOutput: readVerifierOutput(folder),
    hasRecording: hasRecording(folder),
  };
}

export function readRolloutRecording(dir: string, step: number, key: string): { cast: string; truncated: boolean } {
  return readRecordingFile(folderOf(dir, step, key).folder, `episode '${key}' of step ${step}`);
}
