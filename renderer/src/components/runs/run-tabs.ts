/**
 * The run detail's tabs in the address: `#/runs/RUN` (overview), `#/runs/RUN/TAB`, and `#/runs/RUN/EPISODE[/TURN]`
 * (the episodes tab with that episode open). Episode keys hold '@' (`task@attempt`), so no key is a tab name.
 */
export const RUN_TABS = ['overview', 'tasks', 'episodes', 'statistics'] as const;
export type RunTab = (typeof RUN_TABS)[number];

export const RUN_TAB_LABELS: Record<RunTab, string> = {
  overview: 'Overview',
  tasks: 'Tasks × attempts',
  episodes: 'Episodes',
  statistics: 'Statistics',
};

export function isRunTab(segment: string | undefined): segment is RunTab {
  return RUN_TABS.includes(segment as RunTab);
}

/** What a run's address shows: the tab, the open episode and its turn (1-based in the address). */
export interface RunView {
  tab: RunTab;
  episodeKey: string | null;
  turn: number | null;
}

/** The tab, the open episode and its turn (1-based in the address) from the params after the run id. */
export function parseRunView(params: readonly string[]): RunView {
  const [, second, third] = params;
  if (!second) return { tab: 'overview', episodeKey: null, turn: null };
  if (isRunTab(second)) return { tab: second, episodeKey: null, turn: null };
  const turn = third !== undefined && Number.isInteger(Number(third)) && Number(third) >= 1 ? Number(third) : null;
  return { tab: 'episodes', episodeKey: second, turn };
}
