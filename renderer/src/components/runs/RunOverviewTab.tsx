/** A run's overview tab: its config, the episodes running now, its name and notes, its summary and the machine. */
import type { RunListing, RunProgress } from '../../../../electron/domain/runs';
import type { RunDetail } from '../../stores/runs';
import { LiveGrid } from './LiveGrid';
import { RunConfigPanel } from './RunConfig';
import { RunMetaEditor } from './RunMetaEditor';
import { RunSummary } from './RunResults';
import { RunSystem } from './RunSystem';

export function RunOverviewTab({
  runId,
  detail,
  current,
  listing,
  onChanged,
  onRemoved,
}: {
  runId: string;
  detail: RunDetail | null;
  /** The run's progress (live, else as read with the detail). */
  current: RunProgress | null;
  listing: RunListing | undefined;
  onChanged: () => void;
  onRemoved: () => void;
}) {
  const running = current?.state === 'running';
  const episodes = detail?.episodes ?? [];
  return (
    <>
      {detail && <RunConfigPanel manifest={detail.manifest} episodes={detail.episodes} running={running} />}
      {current?.state === 'running' && <RunningEpisodes runId={runId} running={current.running} />}
      {listing && (
        <RunMetaEditor
          runId={listing.id}
          name={listing.name}
          tags={listing.tags}
          notes={listing.notes}
          running={listing.state === 'running' || running}
          onChanged={onChanged}
          onRemoved={onRemoved}
        />
      )}
      {detail && episodes.length > 0 && (
        <RunSummary stats={detail.stats} episodes={episodes} manifest={detail.manifest} />
      )}
      {detail && <RunSystem runId={runId} running={running} />}
    </>
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
