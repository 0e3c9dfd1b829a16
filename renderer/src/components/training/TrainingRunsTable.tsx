/** Training runs (the app's and the CLI's: they share the data folder): state, stage, step/total, ETA, last figure, start. */
import type { TrainingRunSummary } from '../../../../electron/domain/training-view';
import { useTraining, MAX_OVERLAY } from '../../stores/training';
import { formatY } from './MetricChart';
import { stableRunColour } from './palette';

export function formatEta(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '—';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

export function TrainingRunsTable({ runs }: { runs: TrainingRunSummary[] }) {
  const { primary, charted, selectPrimary, toggleOverlay } = useTraining();
  if (!runs.length)
    return (
      <p className="muted">
        No training runs yet. Start one above, or from a shell: <code>t1lab train lm --config FILE</code>.
      </p>
    );
  return (
    <table className="grid training-runs" data-testid="training-runs">
      <thead>
        <tr>
          <th title={`overlay on the charts (up to ${MAX_OVERLAY})`}>chart</th>
          <th>run</th>
          <th>stage</th>
          <th>state</th>
          <th>step</th>
          <th>ETA</th>
          <th>last</th>
          <th>started</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => {
          const i = charted.indexOf(r.id);
          return (
            <tr
              key={r.id}
              className={r.id === primary ? 'clickable selected' : 'clickable'}
              onClick={() => void selectPrimary(r.id)}
              data-testid="training-run-row"
              data-run={r.id}
              data-state={r.state}
            >
              <td onClick={(e) => e.stopPropagation()}>
                <input
                  type="checkbox"
                  checked={i >= 0}
                  disabled={r.id === primary}
                  onChange={() => void toggleOverlay(r.id)}
                  aria-label={`overlay ${r.id}`}
                  data-testid="overlay-toggle"
                />
                {i >= 0 && <span className="swatch" style={{ background: stableRunColour(r.id, runs) }} />}
              </td>
              <td className="training-run-name" title={`${r.id}${r.notes ? `\n\n${r.notes}` : ''}`}>
                {r.name ? (
                  <>
                    <div data-testid="training-run-name">{r.name}</div>
                    <div className="run-id">{r.id}</div>
                  </>
                ) : (
                  r.id
                )}
                {r.tags?.length ? <div className="muted small">{r.tags.join(' · ')}</div> : null}
              </td>
              <td>{r.stage}</td>
              <td className={`state state-${r.state}`} title={r.message ?? ''}>
                {r.state}
              </td>
              <td data-testid="run-step">
                {r.step}
                {r.totalSteps !== null ? `/${r.totalSteps}` : ''}
              </td>
              <td>{formatEta(r.etaS)}</td>
              <td>{r.lastFigure ? `${r.lastFigure.key} ${formatY(r.lastFigure.value)}` : '—'}</td>
              <td>{r.startedAt ? new Date(r.startedAt).toLocaleString() : '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
