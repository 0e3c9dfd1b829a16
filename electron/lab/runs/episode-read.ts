/** Reading an episode folder's texts for the UI (an eval run's episode or a PPO rollout's): verifier output, recording. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import { EPISODE_FILES } from './episode-files';

/** Largest verifier output or recording sent to the UI at once. */
export const MAX_TEXT_CHARS = 4 * 1024 * 1024;

/** The verifier's steps log (its end, when long), or null when the verifier wrote none. */
export function readVerifierOutput(episodeDir: string): string | null {
  const path = join(episodeDir, EPISODE_FILES.verifierOutput);
  return existsSync(path) ? readFileSync(path, 'utf8').slice(-MAX_TEXT_CHARS) : null;
}

export function hasRecording(episodeDir: string): boolean {
  return existsSync(join(episodeDir, EPISODE_FILES.recording));
}

/** The asciicast recording; a long one keeps its header and first events, so a replay from the start stays correct. */
export function readRecordingFile(episodeDir: string, what: string): { cast: string; truncated: boolean } {
  const file = join(episodeDir, EPISODE_FILES.recording);
  if (!existsSync(file)) throw new LabError('NOT_FOUND', `${what} has no recording`);
  const size = statSync(file).size;
  const text = readFileSync(file, 'utf8');
  if (size <= MAX_TEXT_CHARS) return { cast: text, truncated: false };
  return { cast: text.slice(0, MAX_TEXT_CHARS).replace(/\n[^\n]*$/, '\n'), truncated: true };
}
