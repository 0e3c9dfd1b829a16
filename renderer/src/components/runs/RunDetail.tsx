/**
 * One run in four tabs (overview with the machine during the run, tasks × attempts, episodes with filters, statistics), the tab in the address
 * (run-tabs.ts). The episode viewer opens inside the episodes tab, above the list it was opened from.
 */
import { useEffect, useRef, useState } from 'react';
import type { RunListing, RunProgress } from '../../../../electron/domain/runs';
import { useNav } from '../../stores/nav';
import { useRuns, type RunDetail as RunDetailData } from '../../stores/runs';
import { PassMatrix } from './PassMatrix';
import { NoEpisodes, RunEpisodesTab } from './RunEpisodesTab';
import { RunOverviewTab } from './RunOverviewTab';
import type { EpisodeFilters } from './RunResults';
import { RunStatistics } from './RunStatistics';
import { parseRunView, RUN_TAB_LABELS, RUN_TABS, type RunTab } from './run-tabs';

const NO_FILTERS: EpisodeFilters = { failedOnly: false, stop: '' };

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
  const { detail, progress, episode, cancel, resume } = useRuns();
  const { params, link } = useNav();
  const view = parseRunView(params[0] === runId ? params : [runId]);
  const [filters, setFilters] = useState<EpisodeFilters>(NO_FILTERS);
  const rootRef = useRevealedRun(runId, detail);
  useEffect(() => setFilters(NO_FILTERS), [runId]);

  const current = progress[runId] ?? detail?.progress ?? null;
  const listing = runs.find((r) => r.id === runId);
  const episodes = detail?.episodes ?? [];
  const tab = (t: RunTab) => link('runs', t === 'overview' ? [runId] : [runId, t]);
  const open = (key: string) => link('runs', [runId, key]);
  const counts: Partial<Record<RunTab, string>> = {
    tasks: detail ? String(new Set(episodes.map((e) => e.taskId)).size) : undefined,
    episodes: detail ? String(episodes.length) : undefined,
  };
  const finished = detail !== null && episodes.length > 0;

  return (
    <div className="run-detail" ref={rootRef} data-testid="run-detail" data-run={runId} data-tab={view.tab}>
      {current && (
        <RunProgressBar progress={current} state={shownState(current, detail)} onCancel={() => void cancel(runId)} />
      )}
      {listing?.state === 'incomplete' && current?.state !== 'running' && (
        <button onClick={() => void resume(runId)} data-testid="resume">
          Resume
        </button>
      )}
      <RunTabs selected={view.tab} counts={counts} onTab={tab} />
      <div className="run-tab-panel" role="tabpanel" aria-label={RUN_TAB_LABELS[view.tab]}>
        {view.tab === 'overview' && (
          <RunOverviewTab
            runId={runId}
            detail={detail}
            current={current}
            listing={listing}
            onChanged={onChanged}
            onRemoved={onRemoved}
          />
        )}
        {view.tab === 'tasks' &&
          (finished ? (
            <PassMatrix episodes={episodes} attempts={detail.manifest.config.attempts} onOpen={open} />
          ) : (
            <NoEpisodes />
          ))}
        {view.tab === 'episodes' && (
          <RunEpisodesTab
            runId={runId}
            detail={detail}
            episode={episode}
            view={view}
            filters={filters}
            onFilters={setFilters}
            onOpen={open}
            onClose={() => tab('episodes')}
          />
        )}
        {view.tab === 'statistics' &&
          (finished ? <RunStatistics runId={runId} runs={runs} stats={detail.stats} /> : <NoEpisodes />)}
      </div>
    </div>
  );
}

/** The bar says "done" only once the results hold every episode (they are read after the event). */
function shownState(current: RunProgress, detail: RunDetailData | null): string | undefined {
  return current.state !== 'running' && detail && detail.episodes.length < current.done ? 'finishing' : current.state;
}

/**
 * A run just started from the form sits below the form and the table: once its detail is read, bring its
 * progress and live terminals into view (xterm also draws nothing while it is off screen). Returns the ref
 * for the detail's root.
 */
function useRevealedRun(runId: string, detail: RunDetailData | null) {
  const { reveal, revealed } = useRuns();
  const rootRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (reveal !== runId || !detail) return;
    rootRef.current?.scrollIntoView({ block: 'start' });
    revealed();
  }, [reveal, runId, detail]);
  return rootRef;
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
