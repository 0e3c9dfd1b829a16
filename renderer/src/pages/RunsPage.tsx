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
import { RunStatistics } from '../components/runs/RunStatistics';
import { getLabApi } from '../lab/api';
import { useRuns } from '../stores/runs';
import { useNav } from '../stores/nav';
import { RunsTable } from '../components/runs/RunsTable';
import { RunMetaEditor } from '../components/runs/RunMetaEditor';
import { RunConfigPanel } from '../components/runs/RunConfig';
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
  const { params, link } = useNav();
  const [compare, setCompare] = useState<string[]>([]);
  useEffect(() => {
    void refreshList();
    const off = watch();
    const timer = setInterval(() => void refreshList(), LIST_REFRESH_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [refreshList, watch]);
  // The address decides what is open: #/runs/RUN[/EPISODE[/TURN]].
  useEffect(() => {
    const [runId, key] = params;
    if (runId && runId !== useRuns.getState().selected) void select(runId).then(() => {
        if (key) void openEpisode(runId, key);
      });
    else if (runId && key && useRuns.getState().episode?.key !== key) void openEpisode(runId, key);
    else if (runId && !key && useRuns.getState().episode) closeEpisode();
    // Follows the address only; selecting below updates the address.
  }, [params]);

  const live = selected ? progress[selected] : undefined;
  const current = live ?? detail?.progress ?? null;
  const listing = runs.find((r) => r.id === selected);
  // The bar says "done" only once the results below hold every episode (they are read after the event).
  const shownState = current && current.state !== 'running' && detail && detail.episodes.length < current.done ? 'finishing' : current?.state;
  const pick = (runId: string) => link('runs', [runId]);
  const toggleCompare = (runId: string) => setCompare((c) => (c.includes(runId) ? c.filter((x) => x !== runId) : [...c, runId]));

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
        <button type="button" disabled={compare.length < 2} onClick={() => link('compare', compare)} data-testid="compare-runs" title="the first run checked is the baseline (A)">
          {compare.length >= 2 ? `Compare the ${compare.length} checked runs` : 'Check two or more runs to compare them'}
        </button>
      </div>
      {runs.length === 0 ? (
        <p className="muted">
          No runs yet. Start an evaluation above, or run <code>t1lab eval --suite tasks/examples --policy oracle</code>.
        </p>
      ) : (
        <RunsTable runs={runs} progress={progress} selected={selected} checked={compare} onPick={pick} onCheck={toggleCompare} />
      )}
      {selected && (
        <div className="run-detail" data-testid="run-detail" data-run={selected}>
          {current && (
            <div className="run-progress" data-testid="run-progress" data-state={shownState}>
              <progress max={current.total} value={current.done} />
              <span>
                {current.done}/{current.total} episodes · {current.resolved} resolved{current.cut ? ` · ${current.cut} cut at the deadline` : ''} · {shownState}
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
          {detail && <RunConfigPanel manifest={detail.manifest} episodes={detail.episodes} running={current?.state === 'running'} />}
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
          {listing && (
            <RunMetaEditor
              runId={listing.id}
              name={listing.name}
              tags={listing.tags}
              notes={listing.notes}
              running={listing.state === 'running' || current?.state === 'running'}
              onChanged={() => void refreshList()}
              onRemoved={() => {
                setCompare((c) => c.filter((x) => x !== listing.id));
                void select(null);
                link('runs', []);
                void refreshList();
              }}
            />
          )}
          {episode && episode.runId === selected && (
            <EpisodeViewer
              episode={episode}
              turn={params[0] === selected && params[1] === episode.key && params[2] !== undefined ? Number(params[2]) - 1 : 0}
              onTurn={(index) => link('runs', [selected, episode.key, index + 1], { replace: true })}
              onClose={() => link('runs', [selected])}
            />
          )}
          {detail && detail.episodes.length > 0 && (
            <RunResults stats={detail.stats} episodes={detail.episodes} manifest={detail.manifest} onOpen={(key) => link('runs', [selected, key])} />
          )}
          {detail && detail.episodes.length > 0 && <RunStatistics runId={selected} runs={runs} stats={detail.stats} />}
        </div>
      )}
    </section>
  );
}
