/**
 * Runs: start an evaluation, follow it (progress, a grid of live read-only terminals of the running
 * episodes), read its results (tables and bar charts with 95% intervals), open any episode; write reports of
 * chosen runs and keep them under a name (`#/runs/report/ID` opens one).
 */
import { useState } from 'react';
import { NewEvalForm } from '../components/runs/NewEvalForm';
import { RunDetail } from '../components/runs/RunDetail';
import { useRuns } from '../stores/runs';
import { useNav } from '../stores/nav';
import { RunsTable } from '../components/runs/RunsTable';
import { ReportForm } from '../components/runs/ReportForm';
import { ReportsList } from '../components/runs/ReportsList';
import { RunsErrors } from '../components/runs/RunsErrors';
import { RunsToolbar } from '../components/runs/RunsToolbar';
import { REPORT_SEGMENT, reportRouteOf, runAddress } from '../components/runs/runs-address';
import { useRunFromAddress, useRunsListRefresh } from '../components/runs/use-runs-address';
import type { RunListing } from '../../../electron/domain/runs';
import './runs.css';

export function RunsPage() {
  const { runs, selected, progress, error, listError, dismissError, refreshList, select, watch } = useRuns();
  const { params, link } = useNav();
  // The checked runs, in the order checked (the first is the comparison's baseline).
  const [compare, setCompare] = useState<string[]>([]);
  const [reporting, setReporting] = useState(false);
  const { reportRoute, reportId } = reportRouteOf(params);
  useRunsListRefresh(refreshList, watch);
  useRunFromAddress(params);

  const toggleCompare = (runId: string) =>
    setCompare((c) => (c.includes(runId) ? c.filter((x) => x !== runId) : [...c, runId]));
  const closeReport = () => {
    setReporting(false);
    if (reportRoute) link('runs', []);
  };

  return (
    <section data-testid="page-runs" className="runs-page">
      <NewEvalForm />
      <RunsErrors error={error} listError={listError} onDismiss={dismissError} />
      <RunsToolbar
        checked={compare}
        onCompare={() => link('compare', compare)}
        onToggleReport={() => {
          if (reportRoute) link('runs', []);
          setReporting(!(reporting || reportRoute));
        }}
      />
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
          onClose={closeReport}
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
          onPick={(runId) => link('runs', runAddress(runId, params))}
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
