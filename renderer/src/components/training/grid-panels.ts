/**
 * What the chart grid draws, worked out from the charted runs' series: the panels the search and the pins
 * keep, the user's combined charts, the pools of seeds, each panel's lines, the panels hidden as constant, and
 * the one x range every panel shares.
 */
import type { RunSeries, XAxis } from '../../../../electron/domain/training-metrics';
import type { TrainingRunSummary } from '../../../../electron/domain/training-view';
import { shortId, type ChartRun } from './MetricChart';
import { categoryColour, RUN_DASHES, runColour, stableRunColour } from './palette';
import { combinedPanel, isConstantPanel, panelMatcher, toPanels, type Panel } from './panels';
import { xExtentOf } from './panel-layout';
import { poolSeries, seedGroups } from './seed-pool';

export interface GridInput {
  /** The training runs listed, and the runs charted in their order; `loaded`: the charted runs with series. */
  runs: TrainingRunSummary[];
  charted: string[];
  loaded: string[];
  series: Record<string, RunSeries>;
  xAxis: XAxis;
  panelFilter: string;
  pinned: string[];
  combined: string[];
  poolSeeds: boolean;
  showConstant: boolean;
}

export function gridPanels(input: GridInput) {
  const { runs, charted, loaded, series, pinned } = input;
  // A listed run keeps its colour whatever else is charted; a run not listed (yet) takes its place's.
  const colourOf = (runId: string) =>
    runs.some((r) => r.id === runId) ? stableRunColour(runId, runs) : runColour(charted.indexOf(runId));
  const keys = [...new Set(loaded.flatMap((r) => Object.keys(series[r]!.series)))];
  const matcher = panelMatcher(input.panelFilter);
  const matching = toPanels(keys).filter((p) => matcher.test(p.id) || pinned.includes(p.id));
  // One x range for every panel: the extent of every charted run's x values, all metrics.
  const xExtent = xExtentOf(
    loaded.map((r) => series[r]!),
    input.xAxis,
  );
  // Charts of several metrics the user made (their own section, never hidden by the search or as constant).
  const combinedPanels = input.combined.map((id) => combinedPanel(id, keys)).filter((p): p is Panel => !!p);
  const pools = input.poolSeeds ? seedGroups(loaded, runs) : loaded.map((r) => [r]);
  const panelLines = new Map(
    [...matching, ...combinedPanels].map((p) => [p.id, linesOf(p, loaded, series, colourOf, pools)]),
  );
  // A panel that holds one value throughout (lr without schedule, a drift that stays 0) is hidden unless asked
  // for or pinned.
  const constant = matching.filter(
    (p) => !pinned.includes(p.id) && isConstantPanel(panelLines.get(p.id)!.map((l) => l.points.raw)),
  );
  const panels = input.showConstant ? matching : matching.filter((p) => !constant.includes(p));
  return { colourOf, matching, combinedPanels, pools, panelLines, constant, panels, xExtent };
}

/**
 * A panel's lines: for a family, a line per category per run (colour: category, dashes: run); else one per
 * pool of runs in its first run's colour: a run alone as logged, runs pooled over seeds as their mean over
 * a min–max band.
 */
function linesOf(
  panel: Panel,
  loaded: string[],
  series: Record<string, RunSeries>,
  colourOf: (runId: string) => string,
  pools: string[][],
): ChartRun[] {
  const lines: ChartRun[] = [];
  if (panel.family) {
    loaded.forEach((r, ri) =>
      panel.lines.forEach((line, li) => {
        const points = series[r]!.series[line.key];
        if (points)
          lines.push({
            runId: r,
            label: loaded.length > 1 ? `${line.label} · ${shortId(r)}` : line.label,
            colour: categoryColour(li),
            dash: RUN_DASHES[ri % RUN_DASHES.length],
            showRaw: false,
            points,
          });
      }),
    );
  } else {
    for (const pool of pools) {
      const members = pool.filter((r) => series[r]!.series[panel.id]);
      if (members.length === 1)
        lines.push({
          runId: members[0]!,
          colour: colourOf(members[0]!),
          points: series[members[0]!]!.series[panel.id]!,
        });
      if (members.length < 2) continue;
      const pooled = poolSeries(members.map((r) => series[r]!.series[panel.id]!));
      lines.push({
        runId: members[0]!,
        label: `${shortId(members[0]!)} +${members.length - 1} (mean)`,
        colour: colourOf(pool[0]!),
        points: pooled.points,
        band: { lo: pooled.lo, hi: pooled.hi, n: pooled.n, runs: members },
      });
    }
  }
  return lines;
}
