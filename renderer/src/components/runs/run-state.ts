/** The state the runs table shows for a run: the live progress is newer than the list. */
import type { RunListing, RunProgress } from '../../../../electron/domain/runs';

/** Running while the progress says so; an evaluation the list still calls running but whose progress moved on is complete or incomplete. */
export function displayedRunState(
  run: Pick<RunListing, 'state' | 'done' | 'total'>,
  progress: Pick<RunProgress, 'state' | 'done'> | undefined,
): string {
  const live = progress?.state;
  if (live === 'running') return 'running';
  if (live && run.state === 'running') return (progress?.done ?? run.done) >= run.total ? 'complete' : 'incomplete';
  return run.state;
}
