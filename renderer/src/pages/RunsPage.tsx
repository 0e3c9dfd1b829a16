/**
 * Runs: start an evaluation, follow it (progress, a grid of live read-only terminals of the running
 * episodes), read its results (tables and bar charts with 95% intervals), open any episode; write reports of
 * chosen runs and keep them under a name (`#/runs/report/ID` opens one).
 */
import { useEffect, useState } from 'react';
import { NewEvalForm } from '../components/runs/NewEvalForm';
import { RunDetail } from '../components/runs/RunDetail';
import { isRunTab } from '../components/runs/run-tabs';
import { useRuns } from '../stores/runs';
import { useNav } from '../stores/nav';
import { RunsTable } from '../components/runs/RunsTable';
import { ReportForm } from '../components/runs/ReportForm';
import { ReportsList } from '../components/runs/ReportsList';
import type { RunListing } from '../../../electron/domain/runs';
import { userError } from '../lab/errors';
import './runs.css';

const LIST_REFRESH_MS = 5_000;
/** `#/runs/report/ID` is a saved report's address, not a run's. */
const REPORT_SEGMENT = 'report';

export function RunsPage() {
  const {
    runs,
    selected,
    progress,
    error,
    listError,
    dismissError,
    refreshList,
    select,
    openEpisode,
    closeEpisode,
    watch,
  } = useRuns();
  const { params, link } = useNav();
  const [compare, setCompare] = useState<string[]>([]);
  const [reporting, setReporting] = useState(false);
  // #/runs/report/ID: a saved report is open (no run is).
  const reportRoute = params[0] === REPORT_SEGMENT;
  const reportId = reportRoute ? (params[1] ?? null) : null;
  useEffect(() => {
    void refreshList();
    const off = watch();
    const timer = setInterval(() => void refreshList(), LIST_REFRESH_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [refreshList, watch]);
  // The address decides what is open: #/runs/RUN[/TAB | /EPISODE[/TURN]] (run-tabs.ts).
  useEffect(() => {
    if (params[0] === REPORT_SEGMENT) return;
    const [runId, second] = params;
    const key = second && !isRunTab(second) ? second : undefined;
    if (runId && runId !== useRuns.getState().selected)
      void select(runId).then(() => {
        if (key) void openEpisode(runId, key);
      });
    else if (runId && key && useRuns.getState().episode?.key !== key) void openEpisode(runId, key);
    else if (runId && !key && useRuns.getState().episode) closeEpisode();
    // Follows the address only; selecting below updates the address.
  }, [params]);

  // Another run opens on the tab the previous one showed (an open episode belongs to its run: episodes tab).
  const pick = (runId: string) => {
    const second = params[1];
    const tab = second === undefined ? null : isRunTab(second) ? second : 'episodes';
    link('runs', tab && tab !== 'overview' ? [runId, tab] : [runId]);
  };
  const toggleCompare = (runId: string) =>
    setCompare((c) => (c.includes(runId) ? c.filter((x) => x !== runId) : [...c, runId]));

  return (
    <section data-testid="page-runs" className="runs-page">
      <NewEvalForm />
      {error && (
        <div className="error dismissable" role="alert" data-testid="runs-error">
          <span>{userError({ message: error }).message}</span>
          <button type="button" className="dismiss" aria-label="Dismiss" onClick={dismissError}>
            ×
          </button>
        </div>
      )}
      {listError && (
        <div className="error" role="alert">
          Cannot list the runs: {listError}
        </div>
      )}
      <div className="toolbar">
        <h2>Runs</h2>
        <button
          type="button"
          disabled={compare.length < 2}
          onClick={() => link('compare', compare)}
          data-testid="compare-runs"
          title="the first run checked is the baseline (A)"
        >
          {compare.length >= 2
            ? `Compare the ${compare.length} checked runs`
            : 'Check two or more runs to compare them'}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            if (reportRoute) link('runs', []);
            setReporting(!(reporting || reportRoute));
          }}
          data-testid="report-open"
          title="a live report of the checked runs and chosen training runs, exported as one HTML file that opens offline"
        >
          Report…
        </button>
      </div>
      <ReportsList
        openId={reportId}
        onRemoved={(id) => {
          if (id !== reportId) return;
          setReporting(false);
          link('runs', []);
        }}
      />
      {(reporting || reportRoute) && (
        <ReportForm
          key={reportId ?? ''}
          runs={compare.map((id) => runs.find((r) => r.id === id)).filter((r): r is RunListing => !!r)}
          checkedIds={compare}
          reportId={reportId}
          onClose={() => {
            setReporting(false);
            if (reportRoute) link('runs', []);
          }}
          onOpened={(report) => setCompare(report.evalRuns)}
          onSaved={(report) => link('runs', [REPORT_SEGMENT, report.id])}
        />
      )}
      {runs.length === 0 ? (
        <p className="muted">
          No runs yet. Start an evaluation above, or run <code>t1lab eval --suite tasks/examples --policy oracle</code>.
        </p>
      ) : (
        <RunsTable
          runs={runs}
          progress={progress}
          selected={selected}
          checked={compare}
          onPick={pick}
          onCheck={toggleCompare}
        />
      )}
      {selected && (
        <RunDetail
          runId={selected}
          runs={runs}
          onChanged={() => void refreshList()}
          onRemoved={() => {
            setCompare((c) => c.filter((x) => x !== selected));
            void select(null);
            link('runs', []);
            void refreshList();
          }}
        />
      )}
    </section>
  );
}
