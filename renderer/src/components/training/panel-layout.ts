/**
 * Where the Training page's panels go: one x range for all of them, pinned panels first, the rest in their
 * metric groups (in each group's own order, then by name), and the rollout step a click on a chart opens.
 */
import {
  groupOf,
  METRIC_GROUPS,
  OTHER_GROUP,
  type MetricGroup,
  type SeriesPoints,
  type XAxis,
} from '../../../../electron/domain/training-metrics';
import type { Panel } from './panels';

/** The extent of every run's x values over every metric (null when nothing is logged yet). */
export function xExtentOf(
  runs: readonly { series: Record<string, SeriesPoints> }[],
  xAxis: XAxis,
): { min: number; max: number } | null {
  let xMin = Infinity;
  let xMax = -Infinity;
  for (const run of runs)
    for (const points of Object.values(run.series)) {
      const xs = points[xAxis];
      if (!xs.length) continue;
      xMin = Math.min(xMin, xs[0]!);
      xMax = Math.max(xMax, xs[xs.length - 1]!);
    }
  return Number.isFinite(xMin) ? { min: xMin, max: xMax } : null;
}

/** A group's panels in its own key order, then the others by name (numbers in names compared as numbers). */
export function orderPanels(panels: Panel[], groupKeys: readonly string[]): Panel[] {
  const rank = (p: Panel) => (groupKeys.includes(p.id) ? groupKeys.indexOf(p.id) : groupKeys.length);
  return [...panels].sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id, undefined, { numeric: true }));
}

/** The pinned panels in pin order, and the rest by metric group (empty and hidden groups left out). */
export function arrangePanels(
  panels: Panel[],
  pinned: readonly string[],
  hiddenGroups: readonly string[],
): { pinnedPanels: Panel[]; groups: { group: MetricGroup; panels: Panel[] }[] } {
  const pinnedPanels = pinned.map((id) => panels.find((p) => p.id === id)).filter((p): p is Panel => !!p);
  const rest = panels.filter((p) => !pinned.includes(p.id));
  const groups = [...METRIC_GROUPS, OTHER_GROUP]
    .map((g) => ({
      group: g,
      panels: orderPanels(
        rest.filter((p) => groupOf(p.lines[0]!.key).id === g.id),
        g.keys,
      ),
    }))
    .filter((g) => g.panels.length && !hiddenGroups.includes(g.group.id));
  return { pinnedPanels, groups };
}

/** The step with rollouts nearest to a clicked step (rollouts may be kept every N steps). */
export function nearestRolloutStep(steps: number[], step: number): number {
  return steps.reduce((best, s) => (Math.abs(s - step) < Math.abs(best - step) ? s : best), steps[0]!);
}
