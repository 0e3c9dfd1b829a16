/**
 * One run in four tabs (overview with the machine during the run, tasks × attempts, episodes with filters, statistics), the tab in the address
 * (run-tabs.ts). The episode viewer opens inside the episodes tab, above the list it was opened from.
 */
import { useEffect, useRef, useState } from 'react';
import type { RunListing, RunProgress } from '../../../../electron/domain/runs';
import { useNav } from '../../stores/nav';
import { useRuns } from '../../stores/runs';
import { EpisodeViewer } from './EpisodeViewer';
import { LiveGrid } from './LiveGrid';
import { PassMatrix } from './PassMatrix';
import { RunConfigPanel } from './RunConfig';
import { RunMetaEditor } from './RunMetaEditor';
import { EpisodeList, RunSummary, type EpisodeFilters } from './RunResults';
import { RunStatistics } from './RunStatistics';
import { RunSystem } from './RunSystem';
import { parseRunView, RUN_TAB_LABELS, RUN_TABS, type RunTab } from './run-tabs';

export function RunDetail({
  runId,
  runs,
  onRemoved,
  onChanged,
}: {
  runId: string;
  runs: RunListing[];
  onRemoved: () => void;
  onChanged: () => void;
}) {
  const { detail, progress, episode, cancel, resume, reveal, revealed } = useRuns();
  const { params, link } = useNav();
  const view = parseRunView(params[0] === runId ? params : [runId]);
  const [filters, setFilters] = useState<EpisodeFilters>({ failedOnly: false, stop: '' });
  const viewerRef = useRef<HTMLDivElement>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => setFilters({ failedOnly: false, stop: '' }), [runId]);
  // An episode opened from the matrix or a link: bring the viewer (top of the episodes tab) into view.
  useEffect(() => {
    if (view.episodeKey) viewerRef.current?.scrollIntoView({ block: 'nearest' });
  }, [view.episodeKey, episode?.key]);
  // A run just started from the form sits below the form and the table: bring its progress and live
  // terminals into view (xterm also draws nothing while it is off screen).
  useEffect(() => {
    if (reveal !== runId || !detail) return;
    rootRef.current?.scrollIntoView({ block: 'start' });
    revealed();
  }, [reveal, runId, detail]);

  const live = progress[runId];
  const current = live ?? detail?.progress ?? null;
  const listing = runs.find((r) => r.id === runId);
  // The bar says "done" only once the results hold every episode (they are read after the event).
  const shownState =
    current && current.state !== 'running' && detail && detail.episodes.length < current.done
      ? 'finishing'
      : current?.state;
  const episodes = detail?.episodes ?? [];
  const tab = (t: RunTab) => link('runs', t === 'overview' ? [runId] : [runId, t]);
  const open = (key: string) => link('runs', [runId, key]);
  const counts: Partial<Record<RunTab, string>> = {
    tasks: detail ? String(new Set(episodes.map((e) => e.taskId)).size) : undefined,
    episodes: detail ? String(episodes.length) : undefined,
  };

  return (
    <div className="run-detail" ref={rootRef} data-testid="run-detail" data-run={runId} data-tab={view.tab}>
      {current && <RunProgressBar progress={current} state={shownState} onCancel={() => void cancel(runId)} />}
      {listing?.state === 'incomplete' && current?.state !== 'running' && (
        <button onClick={() => void resume(runId)} data-testid="resume">
          Resume
        </button>
      )}
      <RunTabs selected={view.tab} counts={counts} onTab={tab} />
      <div className="run-tab-panel" role="tabpanel" aria-label={RUN_TAB_LABELS[view.tab]}>
        {view.tab === 'overview' && (
          <>
            {detail && (
              <RunConfigPanel
                manifest={detail.manifest}
                episodes={detail.episodes}
                running={current?.state === 'running'}
              />
            )}
            {current?.state === 'running' && <RunningEpisodes runId={runId} running={current.running} />}
            {listing && (
              <RunMetaEditor
                runId={listing.id}
                name={listing.name}
                tags={listing.tags}
                notes={listing.notes}
                running={listing.state === 'running' || current?.state === 'running'}
                onChanged={onChanged}
                onRemoved={onRemoved}
              />
            )}
            {detail && episodes.length > 0 && (
              <RunSummary stats={detail.stats} episodes={episodes} manifest={detail.manifest} />
            )}
            {detail && <RunSystem runId={runId} running={current?.state === 'running'} />}
          </>
        )}
        {view.tab === 'tasks' &&
          (detail && episodes.length > 0 ? (
            <PassMatrix episodes={episodes} attempts={detail.manifest.config.attempts} onOpen={open} />
          ) : (
            <p className="muted">No finished episode yet.</p>
          ))}
        {view.tab === 'episodes' && (
          <>
            <div ref={viewerRef}>
              {episode && episode.runId === runId && view.episodeKey === episode.key && (
                <EpisodeViewer
                  episode={episode}
                  turn={view.turn !== null ? view.turn - 1 : 0}
                  onTurn={(index) => link('runs', [runId, episode.key, index + 1], { replace: true })}
                  onClose={() => tab('episodes')}
                />
              )}
            </div>
            {detail && episodes.length > 0 ? (
              <EpisodeList
                episodes={episodes}
                filters={filters}
                onFilters={setFilters}
                selectedKey={view.episodeKey}
                onOpen={open}
              />
            ) : (
              <p className="muted">No finished episode yet.</p>
            )}
          </>
        )}
        {view.tab === 'statistics' &&
          (detail && episodes.length > 0 ? (
            <RunStatistics runId={runId} runs={runs} stats={detail.stats} />
          ) : (
            <p className="muted">No finished episode yet.</p>
          ))}
      </div>
    </div>
  );
}

/** The run's progress: episodes done and resolved, cut at the deadline, its state and message; Cancel while it runs. */
function RunProgressBar({
  progress: current,
  state,
  onCancel,
}: {
  progress: RunProgress;
  state: string | undefined;
  onCancel(): void;
}) {
  return (
    <div className="run-progress" data-testid="run-progress" data-state={state}>
      <progress max={current.total} value={current.done} />
      <span>
        {current.done}/{current.total} episodes · {current.resolved} resolved
        {current.cut ? ` · ${current.cut} cut at the deadline` : ''} · {state}
      </span>
      {current.message && <span className="muted">{current.message}</span>}
      {current.state === 'running' && <button onClick={onCancel}>Cancel</button>}
    </div>
  );
}

/** The detail's tabs, each with its count where it has one. */
function RunTabs({
  selected,
  counts,
  onTab,
}: {
  selected: RunTab;
  counts: Partial<Record<RunTab, string>>;
  onTab(t: RunTab): void;
}) {
  return (
    <div className="run-tabs" role="tablist" aria-label="Run detail">
      {RUN_TABS.map((t) => (
        <button
          key={t}
          type="button"
          role="tab"
          aria-selected={selected === t}
          className={selected === t ? 'tab selected' : 'tab'}
          onClick={() => onTab(t)}
          data-testid={`run-tab-${t}`}
        >
          {RUN_TAB_LABELS[t]}
          {counts[t] !== undefined ? ` (${counts[t]})` : ''}
        </button>
      ))}
    </div>
  );
}

/** The episodes running now (turn, last action) and their live terminals. */
function RunningEpisodes({ runId, running }: { runId: string; running: RunProgress['running'] }) {
  return (
    <>
      <ul className="running-list">
        {running.map((r) => (
          <li key={r.key}>
            {r.key}: turn {r.turns}
            {r.lastAction ? ` · ${r.lastAction}` : ''}
          </li>
        ))}
      </ul>
      <LiveGrid runId={runId} running={running.map((r) => r.key)} />
    </>
  );
}
