/**
 * The results of a run, in the pieces the run detail's tabs show: the summary (headline figures, breakdown
 * tables and bar charts with 95% intervals, histograms, exports) and the episode list with its filters.
 */
import type { EpisodeRecord, GroupStats, RunManifest, RunStats } from '../../../../electron/domain/runs';
import { onRowKey } from '../common/row-keys';
import { useSort } from '../common/sortable';
import { download } from './export';
import { episodesCsv, runJson } from './export-format';
import { Histogram } from './Histogram';
import { KeyValue } from '../KeyValue';
import { IntervalBars } from './IntervalBars';
import { difficultyRank } from '../common/difficulty';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ci = (c: readonly [number, number]) => `[${pct(c[0])}, ${pct(c[1])}]`;

function Breakdown({ title, groups }: { title: string; groups: Record<string, GroupStats> }) {
  const entries = Object.entries(groups).sort(
    ([a], [b]) => (title === 'Difficulty' ? difficultyRank(a) - difficultyRank(b) : 0) || a.localeCompare(b),
  );
  return (
    <div className="breakdown">
      <table className="grid" data-testid={`by-${title.toLowerCase()}`}>
        <thead>
          <tr>
            <th>{title.toLowerCase()}</th>
            <th>tasks</th>
            <th>episodes</th>
            <th>resolved</th>
            <th>95% CI</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([name, g]) => (
            <tr key={name}>
              <td>{name}</td>
              <td>{g.tasks}</td>
              <td>{g.episodes}</td>
              <td>{pct(g.resolvedRate)}</td>
              <td>{ci(g.ci95)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <IntervalBars
        title={`Resolved by ${title.toLowerCase()}`}
        bars={entries.map(([label, g]) => ({
          label,
          value: g.resolvedRate,
          ci: g.ci95,
          note: `${g.tasks} task${g.tasks === 1 ? '' : 's'}`,
        }))}
      />
    </div>
  );
}

export function RunSummary({
  stats,
  episodes,
  manifest,
}: {
  stats: RunStats;
  episodes: EpisodeRecord[];
  manifest: RunManifest;
}) {
  const errors = Object.entries(stats.errors).filter(([, n]) => n > 0);
  const base = manifest.id;
  return (
    <section className="run-results" data-testid="run-results">
      <div className="toolbar">
        <button
          type="button"
          onClick={() => download(`${base}.episodes.csv`, episodesCsv(episodes), 'text/csv')}
          data-testid="export-csv"
        >
          Export CSV
        </button>
        <button
          type="button"
          onClick={() => download(`${base}.json`, runJson(manifest, stats, episodes), 'application/json')}
          data-testid="export-json"
        >
          Export JSON
        </button>
      </div>
      <KeyValue
        rows={[
          ['resolved', `${pct(stats.resolvedRate)} of ${stats.tasks} tasks (95% Wilson ${ci(stats.ci95)})`],
          ...(stats.ci95Bootstrap ? [['task-clustered bootstrap', ci(stats.ci95Bootstrap)] as [string, string]] : []),
          [
            'pass@k',
            Object.entries(stats.passAtK)
              .map(([k, v]) => `pass@${k} ${pct(v)}`)
              .join(' · ') || '—',
          ],
          ['mean reward', `${stats.meanReward.toFixed(2)} assertions (${pct(stats.meanFraction)} of them)`],
          ['episodes', String(stats.episodes)],
          ['errors', errors.length ? errors.map(([k, n]) => `${k}: ${n}`).join(', ') : 'none'],
          [
            'stop reasons',
            Object.entries(stats.stopReasons)
              .map(([k, n]) => `${k}: ${n}`)
              .join(', ') || '—',
          ],
          [
            'tokens',
            `${stats.tokens.prompt.toLocaleString()} prompt · ${stats.tokens.completion.toLocaleString()} completion${stats.costUsd !== null ? ` · $${stats.costUsd.toFixed(4)}` : ''}`,
          ],
        ]}
      />
      <div className="breakdowns">
        <Breakdown title="Category" groups={stats.byCategory} />
        <Breakdown title="Difficulty" groups={stats.byDifficulty} />
      </div>
      <div className="histograms">
        <Histogram
          title="Reward (share of assertions passed)"
          values={episodes.map((e) => e.reward?.fraction ?? 0)}
          format={(v) => `${Math.round(v * 100)}%`}
          count={5}
          range={[0, 1]}
        />
        <Histogram title="Turns" values={episodes.map((e) => e.turns)} format={(v) => v.toFixed(0)} />
        <Histogram
          title="Duration"
          values={episodes.map((e) => e.durationMs / 1000)}
          format={(v) => `${v.toFixed(0)} s`}
        />
      </div>
    </section>
  );
}

/** The episode list's filters, held by the run detail so that they survive switching tabs. */
export interface EpisodeFilters {
  failedOnly: boolean;
  stop: string;
}

export function EpisodeList({
  episodes,
  filters,
  onFilters,
  selectedKey,
  onOpen,
}: {
  episodes: EpisodeRecord[];
  filters: EpisodeFilters;
  onFilters: (f: EpisodeFilters) => void;
  selectedKey: string | null;
  onOpen: (key: string) => void;
}) {
  const { failedOnly, stop } = filters;
  const stops = [...new Set(episodes.map((e) => e.stopReason))].sort();
  const shown = episodes.filter((e) => (!failedOnly || !e.resolved) && (!stop || e.stopReason === stop));
  const { sorted, header } = useSort(
    shown,
    {
      task: (e) => e.key,
      attempt: (e) => e.attempt,
      resolved: (e) => e.resolved,
      reward: (e) => e.reward?.fraction ?? null,
      turns: (e) => e.turns,
      stop: (e) => e.stopReason,
      error: (e) => e.error?.kind ?? null,
      time: (e) => e.durationMs,
    },
    { key: 'task', dir: 1 },
  );
  return (
    <section className="episode-list" data-testid="episode-list">
      <div className="toolbar episode-filters">
        <label className="filter">
          <input
            type="checkbox"
            checked={failedOnly}
            onChange={(e) => onFilters({ ...filters, failedOnly: e.target.checked })}
            data-testid="episodes-failed-only"
          />{' '}
          failed only
        </label>
        <label className="filter">
          stop reason
          <select
            value={stop}
            onChange={(e) => onFilters({ ...filters, stop: e.target.value })}
            data-testid="episodes-stop"
          >
            <option value="">any</option>
            {stops.map((s) => (
              <option key={s} value={s}>
                {s} ({episodes.filter((e) => e.stopReason === s).length})
              </option>
            ))}
          </select>
        </label>
        <span className="muted" data-testid="episodes-count">
          {shown.length} of {episodes.length} episodes
        </span>
      </div>
      <table className="grid episodes" data-testid="episodes">
        <thead>
          <tr>
            {header('task', 'task')}
            {header('attempt', 'attempt')}
            {header('resolved', 'resolved')}
            {header('reward', 'reward')}
            {header('turns', 'turns')}
            {header('stop', 'stop')}
            {header('error', 'error')}
            {header('time', 'time')}
          </tr>
        </thead>
        <tbody>
          {sorted.map((e) => (
            <tr
              key={e.key}
              className={e.key === selectedKey ? 'clickable selected' : 'clickable'}
              tabIndex={0}
              onClick={() => onOpen(e.key)}
              onKeyDown={onRowKey(() => onOpen(e.key))}
              data-testid="episode-row"
              data-key={e.key}
            >
              <td>{e.taskId}</td>
              <td>{e.attempt}</td>
              <td className={e.resolved ? 'ok' : 'warn'}>{e.resolved ? 'yes' : 'no'}</td>
              <td>{e.reward ? `${e.reward.dense} (${pct(e.reward.fraction)})` : '—'}</td>
              <td>{e.turns}</td>
              <td>{e.stopReason}</td>
              <td title={e.error?.message}>{e.error ? `${e.error.kind}: ${e.error.message.slice(0, 60)}` : ''}</td>
              <td>{(e.durationMs / 1000).toFixed(1)} s</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
