/**
 * The saved reports on the Runs page: each by name, a link to its address (`#/runs/report/ID`, which opens it
 * here after a reload or pasted into another tab), with rename and delete. A report file that cannot be read
 * is shown by its path and what is wrong with it (it is left for a person to fix or remove); an action the
 * host refuses (a name another report has) says why and changes nothing.
 */
import { useEffect, useState } from 'react';
import { reportHash, type SavedReport } from '../../../../electron/domain/reports';
import { useReports } from '../../stores/reports';

function ReportRow({ report, open, onRemoved }: { report: SavedReport; open: boolean; onRemoved: () => void }) {
  const { rename, remove } = useReports();
  const [naming, setNaming] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const runs = report.evalRuns.length + report.trainingRuns.length;
  const saveName = async () => {
    if (naming === null) return;
    if (naming.trim() && naming.trim() !== report.name && !(await rename(report.id, naming))) return;
    setNaming(null);
  };
  return (
    <li
      className={open ? 'saved-report open' : 'saved-report'}
      data-testid="saved-report"
      data-id={report.id}
      data-name={report.name}
    >
      {naming === null ? (
        <a href={reportHash(report.id)} title={`${report.title} · ${reportHash(report.id)}`} data-testid="report-link">
          {report.name}
        </a>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void saveName();
          }}
        >
          <input
            autoFocus
            value={naming}
            maxLength={120}
            onChange={(e) => setNaming(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setNaming(null);
            }}
            aria-label={`new name for report ${report.name}`}
            data-testid="report-rename-input"
          />
        </form>
      )}
      <span className="muted small">
        {runs} run{runs === 1 ? '' : 's'} · {report.updatedAt.slice(0, 10)}
      </span>
      {naming === null && !confirming && (
        <>
          <button
            type="button"
            className="link small"
            onClick={() => setNaming(report.name)}
            data-testid="report-rename"
            aria-label={`rename report ${report.name}`}
          >
            rename
          </button>
          <button
            type="button"
            className="link small"
            onClick={() => setConfirming(true)}
            data-testid="report-delete"
            aria-label={`delete report ${report.name}`}
          >
            delete
          </button>
        </>
      )}
      {confirming && (
        <span className="small">
          delete “{report.name}”?{' '}
          <button
            type="button"
            className="link small danger"
            onClick={() =>
              void remove(report.id).then((removed) => {
                setConfirming(false);
                if (removed) onRemoved();
              })
            }
            data-testid="report-delete-confirm"
          >
            delete
          </button>{' '}
          <button type="button" className="link small" onClick={() => setConfirming(false)}>
            keep
          </button>
        </span>
      )}
    </li>
  );
}

export function ReportsList({ openId, onRemoved }: { openId: string | null; onRemoved: (id: string) => void }) {
  const { reports, problems, error, refresh, dismissError } = useReports();
  useEffect(() => void refresh(), [refresh]);
  if (!reports.length && !problems.length && !error) return null;
  return (
    <section className="saved-reports" data-testid="saved-reports" aria-label="saved reports">
      <h3>Saved reports</h3>
      {error && (
        <div className="error dismissable" role="alert" data-testid="reports-error">
          <span>{error}</span>
          <button type="button" className="dismiss" aria-label="Dismiss" onClick={dismissError}>
            ×
          </button>
        </div>
      )}
      <ul>
        {reports.map((r) => (
          <ReportRow key={r.id} report={r} open={r.id === openId} onRemoved={() => onRemoved(r.id)} />
        ))}
      </ul>
      {problems.map((p) => (
        <p key={p.file} className="error small" data-testid="report-problem">
          Cannot read a saved report: {p.message}
        </p>
      ))}
    </section>
  );
}
