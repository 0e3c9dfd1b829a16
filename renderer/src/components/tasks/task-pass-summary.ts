import type { TaskPassRate } from '../../../../electron/domain/runs';

/** A task's record over the evaluation runs, in a sentence: resolved in how many of its episodes, over how many runs. */
export function taskPassSummary(rate: TaskPassRate | undefined): string {
  if (!rate || rate.episodes === 0) return 'No evaluation run has finished an episode of this task yet.';
  const percent = Math.round((100 * rate.resolved) / rate.episodes);
  return `Resolved in ${rate.resolved} of ${rate.episodes} episodes (${percent}%) over ${rate.runs} run${rate.runs === 1 ? '' : 's'}.`;
}
