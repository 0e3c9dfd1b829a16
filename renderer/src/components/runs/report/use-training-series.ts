/** The training runs a report can chart, and the chosen ones' series: live while the report is open. */
import { useEffect, useState } from 'react';
import type { SeriesByRun } from './charted-training-runs';
import type { TrainingRunSummary } from '../../../../../electron/domain/training-view';
import { getLabApi } from '../../../lab/api';

/** How often an open report re-reads its training runs' metrics (and the list of training runs). */
export const REPORT_REFRESH_MS = 2_000;
/** Points per series a report chart draws (a report is read, not zoomed). */
const REPORT_POINTS = 500;

/** The training runs and the chosen ones' series, re-read every REPORT_REFRESH_MS while the report is open. */
export function useTrainingSeries(ids: readonly string[], metrics: readonly string[]) {
  const [runs, setRuns] = useState<TrainingRunSummary[]>([]);
  const [series, setSeries] = useState<SeriesByRun>({});
  // The effect re-starts when the ids or metrics change, not when an equal array is passed again.
  const idsKey = ids.join(' ');
  const metricsKey = metrics.join(' ');
  useEffect(() => {
    let live = true;
    const api = getLabApi().methods;
    const read = async () => {
      const listed = await api['training.runs']({}).catch(() => null);
      if (!live) return;
      if (listed) setRuns(listed);
      const chosen = idsKey ? idsKey.split(' ') : [];
      const keys = metricsKey ? metricsKey.split(' ') : [];
      const read = await Promise.all(
        chosen.map((runId) =>
          api['training.series']({ runId, keys, maxPoints: REPORT_POINTS, smoothing: 0 }).catch(() => null),
        ),
      );
      if (!live) return;
      setSeries(Object.fromEntries(read.filter((s) => s !== null).map((s) => [s.runId, s.series])));
    };
    void read();
    const timer = setInterval(() => void read(), REPORT_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [idsKey, metricsKey]);
  return { runs, series };
}
