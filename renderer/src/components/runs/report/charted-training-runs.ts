/** The training runs a report charts: what the report chart (report-chart.ts) takes of each chosen run. */
import type { ReportTrainingRun } from '../../../../../electron/domain/report-chart';
import type { SeriesPoints } from '../../../../../electron/domain/training-metrics';
import type { TrainingRunSummary } from '../../../../../electron/domain/training-view';

/** A run's series by metric, by run id. */
export type SeriesByRun = Record<string, Record<string, SeriesPoints>>;

/** The chosen runs whose series have been read, in the order chosen, named as the list names them. */
export function chartedTrainingRuns(
  ids: readonly string[],
  series: SeriesByRun,
  runs: readonly TrainingRunSummary[],
): ReportTrainingRun[] {
  return ids.flatMap((id) => {
    const runSeries = series[id];
    if (!runSeries) return [];
    const r = runs.find((t) => t.id === id);
    return [
      {
        id,
        label: r?.name || id,
        ...(r?.settingsKey !== undefined ? { settingsKey: r.settingsKey } : {}),
        series: runSeries,
      },
    ];
  });
}
