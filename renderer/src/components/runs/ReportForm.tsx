/**
 * A report of chosen runs, live: a title and notes (Markdown, shown as they will read), charts of the chosen
 * training runs' metrics by step (pooled over seeds when asked: mean over a min–max band), and the checked
 * evaluation runs' resolved rates and table with the table's columns of your choosing. While it is open the
 * charts are re-read every few seconds, so a run still training draws its new steps; the evaluation runs
 * follow the page's list. Export writes the same charts and tables as one HTML file that opens offline
 * (report-html.ts), as `t1lab runs report` does from a shell. The draft is kept in the browser's storage.
 */
import { useEffect, useMemo, useState } from 'react';
import type { RunListing } from '../../../../electron/domain/runs';
import type { SeriesPoints } from '../../../../electron/domain/training-metrics';
import type { TrainingRunSummary } from '../../../../electron/domain/training-view';
import { markdownToHtml, reportHtml, resolvedChart } from '../../../../electron/domain/report-html';
import { reportChartSvg, reportCharts, type ReportTrainingRun } from '../../../../electron/domain/report-chart';
import { getLabApi } from '../../lab/api';
import { readStored, writeStored } from '../../lab/stored-list';
import { download } from './export';
import { loadRunsTableView } from './runs-table-view';

/** How often an open report re-reads its training runs' metrics (and the list of training runs). */
export const REPORT_REFRESH_MS = 2_000;
/** Points per series a report chart draws (a report is read, not zoomed). */
const REPORT_POINTS = 500;
const DRAFT_KEY = 't1lab.report-draft';
const DEFAULT_METRICS = 'reward_dense, resolved';

interface Draft {
  title: string;
  notes: string;
  trainingIds: string[];
  metrics: string;
  poolSeeds: boolean;
}

function loadDraft(): Draft {
  const d: Draft = {
    title: 'Evaluation report',
    notes: '',
    trainingIds: [],
    metrics: DEFAULT_METRICS,
    poolSeeds: false,
  };
  try {
    const o = JSON.parse(readStored(DRAFT_KEY) ?? '{}') as Partial<Draft>;
    return {
      title: typeof o.title === 'string' ? o.title : d.title,
      notes: typeof o.notes === 'string' ? o.notes : d.notes,
      trainingIds: Array.isArray(o.trainingIds)
        ? o.trainingIds.filter((x): x is string => typeof x === 'string')
        : d.trainingIds,
      metrics: typeof o.metrics === 'string' ? o.metrics : d.metrics,
      poolSeeds: o.poolSeeds === true,
    };
  } catch {
    return d;
  }
}

export const parseMetrics = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/** The training runs and the chosen ones' series, re-read every REPORT_REFRESH_MS while the report is open. */
function useTrainingSeries(ids: readonly string[], metrics: readonly string[]) {
  const [runs, setRuns] = useState<TrainingRunSummary[]>([]);
  const [series, setSeries] = useState<Record<string, Record<string, SeriesPoints>>>({});
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

export function ReportForm({ runs, onClose }: { runs: readonly RunListing[]; onClose: () => void }) {
  const [draft, setDraft] = useState(loadDraft);
  useEffect(() => writeStored(DRAFT_KEY, draft), [draft]);
  const change = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const metrics = useMemo(() => parseMetrics(draft.metrics), [draft.metrics]);
  const { runs: trainingRuns, series } = useTrainingSeries(draft.trainingIds, metrics);
  const chosen: ReportTrainingRun[] = draft.trainingIds
    .filter((id) => series[id])
    .map((id) => {
      const r = trainingRuns.find((t) => t.id === id);
      return {
        id,
        label: r?.name || id,
        ...(r?.settingsKey !== undefined ? { settingsKey: r.settingsKey } : {}),
        series: series[id]!,
      };
    });
  const charts = reportCharts(chosen, metrics, draft.poolSeeds);
  const columns = loadRunsTableView().extra;
  const toggleRun = (id: string) =>
    change({
      trainingIds: draft.trainingIds.includes(id)
        ? draft.trainingIds.filter((x) => x !== id)
        : [...draft.trainingIds, id],
    });
  const exportNow = () => {
    const now = new Date();
    const html = reportHtml({
      title: draft.title.trim() || 'Report',
      notes: draft.notes,
      runs,
      columns,
      generatedAt: now.toISOString(),
      charts,
    });
    download(`report-${now.toISOString().slice(0, 10)}.html`, html, 'text/html');
  };
  return (
    <section className="report-form" data-testid="report-form">
      <h3>{`Report: ${runs.length} checked evaluation run${runs.length === 1 ? '' : 's'}, ${draft.trainingIds.length} training run${draft.trainingIds.length === 1 ? '' : 's'}`}</h3>
      <label>
        title{' '}
        <input
          value={draft.title}
          onChange={(e) => change({ title: e.target.value })}
          data-testid="report-title"
          aria-label="report title"
        />
      </label>
      <textarea
        value={draft.notes}
        onChange={(e) => change({ notes: e.target.value })}
        rows={5}
        placeholder="notes (Markdown: # headings, - lists, **bold**, `code`)"
        data-testid="report-notes"
        aria-label="report notes"
      />
      <fieldset className="report-training" data-testid="report-training">
        <legend>training runs charted</legend>
        {trainingRuns.length === 0 && <span className="muted small">no training runs</span>}
        {trainingRuns.map((t) => (
          <label
            key={t.id}
            title={`${t.id} · ${t.state} · step ${t.step}${t.seed !== undefined && t.seed !== null ? ` · seed ${t.seed}` : ''}`}
          >
            <input
              type="checkbox"
              checked={draft.trainingIds.includes(t.id)}
              onChange={() => toggleRun(t.id)}
              aria-label={`report ${t.id}`}
            />{' '}
            {t.name || t.id}
            {t.state === 'running' ? <span className="muted small"> (running)</span> : null}
          </label>
        ))}
        <label>
          metrics{' '}
          <input
            value={draft.metrics}
            onChange={(e) => change({ metrics: e.target.value })}
            placeholder={DEFAULT_METRICS}
            data-testid="report-metrics"
            aria-label="report metrics"
          />
        </label>
        <label title="runs that differ only in seed as one line: their mean over a band from the lowest to the highest run at each step">
          <input
            type="checkbox"
            checked={draft.poolSeeds}
            onChange={(e) => change({ poolSeeds: e.target.checked })}
            data-testid="report-pool-seeds"
          />{' '}
          pool seeds
        </label>
      </fieldset>
      <div className="report-preview" data-testid="report-preview">
        <h1>{draft.title}</h1>
        {/* Markdown rendered by report-html.ts, which escapes everything the notes contain. */}
        <div className="notes" dangerouslySetInnerHTML={{ __html: markdownToHtml(draft.notes) }} />
        {charts.map((c) => (
          <figure
            key={c.metric}
            className="report-chart"
            data-testid="report-chart"
            data-metric={c.metric}
            dangerouslySetInnerHTML={{ __html: reportChartSvg(c) }}
          />
        ))}
        {runs.length > 0 && (
          <div className="report-resolved" dangerouslySetInnerHTML={{ __html: resolvedChart(runs) }} />
        )}
      </div>
      <p className="muted small">
        Live while open: the charts re-read their runs every {REPORT_REFRESH_MS / 1000} s. Export writes one HTML file
        that opens offline with these charts, the notes and a table of the evaluation runs with the table’s added
        columns.
      </p>
      <div className="toolbar">
        <button type="button" onClick={exportNow} data-testid="report-export">
          Export HTML
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
