/** The Runs page's hooks: the runs list kept fresh, and the open run and episode kept in step with the address. */
import { useEffect } from 'react';
import { useRuns } from '../../stores/runs';
import { isRunTab } from './run-tabs';
import { REPORT_SEGMENT } from './runs-address';

/** How often the runs list is re-read while the page is shown (the watch covers the runs this host starts). */
const LIST_REFRESH_MS = 5_000;

/** Read the runs list now, every LIST_REFRESH_MS and on the host's run events, while mounted. */
export function useRunsListRefresh(refreshList: () => Promise<void>, watch: () => () => void): void {
  useEffect(() => {
    void refreshList();
    const off = watch();
    const timer = setInterval(() => void refreshList(), LIST_REFRESH_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [refreshList, watch]);
}

/** The address decides which run and episode are open; a report's address leaves them as they are. */
export function useRunFromAddress(params: readonly string[]): void {
  useEffect(() => {
    if (params[0] === REPORT_SEGMENT) return;
    const { select, openEpisode, closeEpisode } = useRuns.getState();
    const [runId, second] = params;
    const key = second && !isRunTab(second) ? second : undefined;
    if (runId && runId !== useRuns.getState().selected)
      void select(runId).then(() => {
        if (key) void openEpisode(runId, key);
      });
    else if (runId && key && useRuns.getState().episode?.key !== key) void openEpisode(runId, key);
    else if (runId && !key && useRuns.getState().episode) closeEpisode();
    // Follows the address only; selecting a run updates the address.
  }, [params]);
}
