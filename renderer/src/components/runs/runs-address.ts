/**
 * The Runs page's address: `#/runs/RUN[/TAB | /EPISODE[/TURN]]` opens a run (run-tabs.ts), `#/runs/report/ID`
 * a saved report.
 */
import { isRunTab } from './run-tabs';

/** `#/runs/report/ID` is a saved report's address, not a run's. */
export const REPORT_SEGMENT = 'report';

/** Whether the address is a saved report's, and its id (null when the address has none). */
export function reportRouteOf(params: readonly string[]): { reportRoute: boolean; reportId: string | null } {
  const reportRoute = params[0] === REPORT_SEGMENT;
  return { reportRoute, reportId: reportRoute ? (params[1] ?? null) : null };
}

/** The address of `runId` on the tab the address shows now (an open episode belongs to its run: episodes). */
export function runAddress(runId: string, params: readonly string[]): string[] {
  const second = params[1];
  const tab = second === undefined ? null : isRunTab(second) ? second : 'episodes';
  return tab && tab !== 'overview' ? [runId, tab] : [runId];
}
