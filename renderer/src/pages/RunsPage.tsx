/**
 * Runs: start an evaluation, follow it (progress, a grid of live read-only terminals of the running
 * episodes), read its results (tables and bar charts with 95% intervals), open any episode.
 */
import { useEffect, useState } from 'react';
import type { LiveEpisode } from '../../../electron/domain/runs';
import { EpisodeViewer } from '../components/runs/EpisodeViewer';
import { LiveTerminal } from '../components/runs/LiveTerminal';
import { NewEvalForm } from '../components/runs/NewEvalForm';
import { RunResults } from '../components/runs/RunResults';
import { getLabApi } from '../lab/api';
import { useRuns } from '../stores/runs';
import { userError } from '../lab/errors';
import './runs.css';

const LIST_REFRESH_MS = 5_000;

function LiveGrid({ runId, running }: { runId: string; running: string[] }) {
  const [live, setLive] = useState<LiveEpisode[]>([]);
  const wanted = running.join('\n');
  useEffect(() => {
    let stale = false;
    getLabApi()
      .methods['runs.live']({ runId })
      .then((r) => !stale && setLive(r.episodes), () => !stale && setLive([]));
    return () => {
      stale = true;
    };
  }, [runId, wanted]);
  if (!live.length) return null;
  return (
    <div className="live-grid" data-testid="live-grid">
      {live.map((e) => (
        <div key={e.key} className="live-cell">
          <div className="live-title">
            {e.taskId} · attempt {e.attempt}
          </div>
          <LiveTerminal runId={runId} episodeKey={e.key} initial={e.buffer} />
        </div>
      ))}
    </div>
  );
}

export function RunsPage() {
  const { runs, selected, detail, progress, episode, error, listError, dismissError, refreshList, select, cancel, resume, openEpisode, closeEpisode, watch } = useRuns();
  useEffect(() => {
    void refreshList();
    const off = watch();
    const timer = setInterval(() => void refreshList(), LIST_REFRESH_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [refreshList, watch]);

  const live = selected ? progress[selected] : undefined;
  const current = live ?? detail?.progress ?? null;
  const listing = runs.find((r) => r.id === selected);

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
      <h2>Runs</h2>
      {runs.length === 0 ? (
        <p className="muted">
          No runs yet. Start an evaluation above, or run <code>t1lab eval --suite tasks/examples --policy oracle</code>.
        </p>
      ) : (
        <table className="grid runs" data-testid="runs">
          <thead>
            <tr>
              <th>run</th>
              <th>suite</th>
              <th>policy</th>
              <th>episodes</th>
              <th>resolved</th>
              <th>state</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} className={r.id === selected ? 'clickable selected' : 'clickable'} onClick={() => void select(r.id)} data-testid="run-row" data-run={r.id}>
                <td>{r.id}</td>
                <td title={r.suite}>{r.suite.split('/').slice(-2).join('/')}</td>
                <td>{r.policy}</td>
                <td>
                  {progress[r.id]?.done ?? r.done}/{r.total}
                </td>
                <td>{r.resolvedRate === null ? '—' : `${(r.resolvedRate * 100).toFixed(1)}%`}</td>
                <td>{progress[r.id]?.state === 'running' ? 'running' : r.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && (
        <div className="run-detail" data-testid="run-detail" data-run={selected}>
          {current && (
            <div className="run-progress" data-testid="run-progress" data-state={current.state}>
              <progress max={current.total} value={current.done} />
              <span>
                {current.done}/{current.total} episodes · {current.resolved} resolved{current.cut ? ` · ${current.cut} cut at the deadline` : ''} · {current.state}
              </span>
              {current.message && <span className="muted">{current.message}</span>}
              {current.state === 'running' && <button onClick={() => void cancel(selected)}>Cancel</button>}
            </div>
          )}
          {listing?.state === 'incomplete' && current?.state !== 'running' && (
            <button onClick={() => void resume(selected)} data-testid="resume">
              Resume
            </button>
          )}
          {current?.state === 'running' && (
            <>
              <ul className="running-list">
                {current.running.map((r) => (
                  <li key={r.key}>
                    {r.key}: turn {r.turns}
                    {r.lastAction ? ` · ${r.lastAction}` : ''}
                  </li>
                ))}
              </ul>
              <LiveGrid runId={selected} running={current.running.map((r) => r.key)} />
            </>
          )}
          {episode && episode.runId === selected && <EpisodeViewer episode={episode} onClose={closeEpisode} />}
          {detail && detail.episodes.length > 0 && <RunResults stats={detail.stats} episodes={detail.episodes} onOpen={(key) => void openEpisode(selected, key)} />}
        </div>
      )}
    </section>
  );
}
