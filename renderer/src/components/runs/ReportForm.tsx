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
import { useMemo } from 'react';
import type { SavedReport } from '../../../../electron/domain/reports';
import type { RunListing } from '../../../../electron/domain/runs';
import { reportCharts } from '../../../../electron/domain/report-chart';
import { loadRunsTableView } from './runs-table-view';
import { useReports } from '../../stores/reports';
import { changedSinceSaved, parseMetrics, reportContent, type ReportDraft } from './report/report-draft';
import { downloadReport } from './report/download-report';
import { useReportDraft } from './report/use-report-draft';
import { REPORT_REFRESH_MS, useTrainingSeries } from './report/use-training-series';
import { chartedTrainingRuns } from './report/charted-training-runs';
import { ReportTrainingFields } from './report/ReportTrainingFields';
import { ReportPreview } from './report/ReportPreview';
import { CloseButton, ReportActions } from './report/ReportActions';

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
  const { draft, change, saved, setSaved, unreadable } = useReportDraft(reportId, onOpened);
  const reports = useReports();
  const metrics = useMemo(() => parseMetrics(draft.metrics), [draft.metrics]);
  const { runs: trainingRuns, series } = useTrainingSeries(draft.trainingIds, metrics);
  const columns = loadRunsTableView().extra;
  const content = () => reportContent(draft, checkedIds, metrics, columns);
  const changed = saved !== null && changedSinceSaved(content(), saved);
  const charts = reportCharts(chartedTrainingRuns(draft.trainingIds, series, trainingRuns), metrics, draft.poolSeeds);
  const saveOver = async () => {
    if (!saved) return;
    const r = await reports.update(saved.id, content());
    if (r) setSaved(r);
  };
  const saveAs = async (name: string) => {
    const r = await reports.create(name, content());
    if (r) onSaved(r);
    return r !== null;
  };
  if (reportId && (!saved || saved.id !== reportId)) return <ReportPending unreadable={unreadable} onClose={onClose} />;
  return (
    <section className="report-form" data-testid="report-form" data-report={saved?.id ?? ''}>
      <ReportStatus
        savedName={saved ? (reports.reports.find((r) => r.id === saved.id)?.name ?? saved.name) : null}
        changed={changed}
        missing={checkedIds.filter((id) => !runs.some((r) => r.id === id))}
      />
      <h3>{reportHeading(runs.length, draft.trainingIds.length)}</h3>
      <ReportTextFields draft={draft} change={change} />
      <ReportTrainingFields runs={trainingRuns} draft={draft} change={change} />
      <ReportPreview title={draft.title} notes={draft.notes} charts={charts} runs={runs} />
      <p className="muted small">
        Live while open: the charts re-read their runs every {REPORT_REFRESH_MS / 1000} s. Export writes one HTML file
        that opens offline with these charts, the notes and a table of the evaluation runs with the table’s added
        columns.
      </p>
      <ReportActions
        isSaved={saved !== null}
        changed={changed}
        onExport={() => downloadReport({ title: draft.title, notes: draft.notes, runs, columns, charts })}
        onSave={saveOver}
        onSaveAs={saveAs}
        onClose={onClose}
      />
    </section>
  );
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const reportHeading = (evalRuns: number, trainingRuns: number) =>
  `Report: ${plural(evalRuns, 'checked evaluation run')}, ${plural(trainingRuns, 'training run')}`;

/** A saved report's address while the report is read, or why it cannot be. */
function ReportPending({ unreadable, onClose }: { unreadable: string | null; onClose: () => void }) {
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
        <CloseButton onClose={onClose} />
      </div>
    </section>
  );
}

/** Which saved report the form shows and whether it was changed; the checked runs the list does not have. */
function ReportStatus({
  savedName,
  changed,
  missing,
}: {
  savedName: string | null;
  changed: boolean;
  missing: readonly string[];
}) {
  return (
    <>
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
    </>
  );
}

/** The report's title and its notes (Markdown). */
function ReportTextFields({ draft, change }: { draft: ReportDraft; change: (patch: Partial<ReportDraft>) => void }) {
  return (
    <>
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
    </>
  );
}
