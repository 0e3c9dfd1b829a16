/**
 * A report of chosen runs, live: a title and notes (Markdown, shown as they will read), charts of the chosen
 * training runs' metrics by step (pooled over seeds when asked: mean over a min–max band), and the checked
 * evaluation runs' resolved rates and table with the table's columns of your choosing. While it is open the
 * charts are re-read every few seconds, so a run still training draws its new steps; the evaluation runs
 * follow the page's list. Export writes the same charts and tables as one HTML file that opens offline
 * (report-html.ts), as `t1lab runs report` does from a shell. The draft is kept in the browser's storage.
 * Saved under a name, the report (its checked evaluation runs included) is a file of the data folder with an
 * address of its own (`#/runs/report/ID`): opened there it shows the saved report, and Save writes the
 * changes over it; `t1lab runs reports` lists the same reports.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ReportContent, SavedReport } from '../../../../electron/domain/reports';
import type { RunListing } from '../../../../electron/domain/runs';
import type { SeriesPoints } from '../../../../electron/domain/training-metrics';
import type { TrainingRunSummary } from '../../../../electron/domain/training-view';
import { markdownToHtml, reportHtml, resolvedChart } from '../../../../electron/domain/report-html';
import { reportChartSvg, reportCharts, type ReportTrainingRun } from '../../../../electron/domain/report-chart';
import { getLabApi } from '../../lab/api';
import { readStored, writeStored } from '../../lab/stored-list';
import { download } from './export';
import { loadRunsTableView } from './runs-table-view';
import { useReports } from '../../stores/reports';

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

/** A saved report as the form edits it. */
const draftOf = (r: SavedReport): Draft => ({
  title: r.title,
  notes: r.notes,
  trainingIds: r.trainingRuns,
  metrics: r.metrics.join(', '),
  poolSeeds: r.poolSeeds,
});

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

interface ReportFormProps {
  /** The checked evaluation runs (the report's) as listed, and their ids (listed or not yet). */
  runs: readonly RunListing[];
  checkedIds: readonly string[];
  /** A saved report's id (its address), or null for the draft. */
  reportId: string | null;
  onClose: () => void;
  /** A saved report was read: the page checks its evaluation runs. */
  onOpened: (report: SavedReport) => void;
  /** The draft was saved under a name: the page goes to its address. */
  onSaved: (report: SavedReport) => void;
}

export function ReportForm({ runs, checkedIds, reportId, onClose, onOpened, onSaved }: ReportFormProps) {
  const [draft, setDraft] = useState(loadDraft);
  const [saved, setSaved] = useState<SavedReport | null>(null);
  const [name, setName] = useState('');
  const [unreadable, setUnreadable] = useState<string | null>(null);
  const reports = useReports();
  useEffect(() => {
    if (!reportId) writeStored(DRAFT_KEY, draft);
  }, [draft, reportId]);
  // A saved report's address: read it once, then the form edits it until Save.
  useEffect(() => {
    if (!reportId) return;
    let live = true;
    setUnreadable(null);
    void reports.get(reportId).then((r) => {
      if (!live) return;
      if (!r) return setUnreadable(useReports.getState().error ?? `cannot read report '${reportId}'`);
      setSaved(r);
      setDraft(draftOf(r));
      onOpened(r);
    });
    return () => {
      live = false;
    };
    // Read when the address names another report only.
  }, [reportId]);
  const change = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const metrics = useMemo(() => parseMetrics(draft.metrics), [draft.metrics]);
  const { runs: trainingRuns, series } = useTrainingSeries(draft.trainingIds, metrics);
  const columns = loadRunsTableView().extra;
  const content = (): ReportContent => ({
    title: draft.title,
    notes: draft.notes,
    evalRuns: [...checkedIds],
    trainingRuns: draft.trainingIds,
    metrics,
    poolSeeds: draft.poolSeeds,
    columns,
  });
  const savedName = saved ? (reports.reports.find((r) => r.id === saved.id)?.name ?? saved.name) : null;
  const changed =
    saved !== null &&
    JSON.stringify({ ...content(), columns: [] }) !==
      JSON.stringify({
        title: saved.title,
        notes: saved.notes,
        evalRuns: saved.evalRuns,
        trainingRuns: saved.trainingRuns,
        metrics: saved.metrics,
        poolSeeds: saved.poolSeeds,
        columns: [],
      });
  const save = async () => {
    if (saved) {
      const r = await reports.update(saved.id, content());
      if (r) setSaved(r);
    } else {
      const r = await reports.create(name, content());
      if (r) {
        setName('');
        onSaved(r);
      }
    }
  };
  const missing = checkedIds.filter((id) => !runs.some((r) => r.id === id));
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
  if (reportId && (!saved || saved.id !== reportId))
    return (
      <section className="report-form" data-testid="report-form" data-report="">
        {unreadable ? (
          <div className="error" role="alert" data-testid="report-unreadable">
            {unreadable}
          </div>
        ) : (
          <p className="muted">Reading the report…</p>
        )}
        <div className="toolbar">
          <button type="button" className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </section>
    );
  return (
    <section className="report-form" data-testid="report-form" data-report={saved?.id ?? ''}>
      {savedName !== null && (
        <p className="report-saved-name" data-testid="report-saved-name">
          Saved report <strong>{savedName}</strong>
          <span className="muted small">{changed ? ' · changed since saved' : ' · as saved'}</span>
        </p>
      )}
      {missing.length > 0 && (
        <p className="muted small" data-testid="report-missing">
          Not in the runs list now (removed, or still loading): {missing.join(', ')}
        </p>
      )}
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
        {saved ? (
          <button
            type="button"
            onClick={() => void save()}
            disabled={!changed}
            data-testid="report-save"
            title="write the changes over the saved report (its name and address stay)"
          >
            Save
          </button>
        ) : (
          <form
            className="report-save-as"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <input
              value={name}
              maxLength={120}
              placeholder="name"
              onChange={(e) => setName(e.target.value)}
              data-testid="report-name"
              aria-label="report name"
            />{' '}
            <button
              type="submit"
              disabled={!name.trim()}
              data-testid="report-save"
              title="save this report under a name: it gets an address of its own, and `t1lab runs reports` lists it"
            >
              Save as
            </button>
          </form>
        )}
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
