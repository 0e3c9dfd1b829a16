/** The results of a run: headline figures, breakdown tables and bar charts with 95% intervals, the episodes. */
import type { EpisodeRecord, GroupStats, RunStats } from '../../../../electron/domain/runs';
import { KeyValue } from '../KeyValue';
import { IntervalBars } from './IntervalBars';
import { difficultyRank } from '../common/difficulty';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ci = (c: readonly [number, number]) => `[${pct(c[0])}, ${pct(c[1])}]`;

function Breakdown({ title, groups }: { title: string; groups: Record<string, GroupStats> }) {
  const entries = Object.entries(groups).sort(([a], [b]) => (title === 'Difficulty' ? difficultyRank(a) - difficultyRank(b) : 0) || a.localeCompare(b));
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
      <IntervalBars title={`Resolved by ${title.toLowerCase()}`} bars={entries.map(([label, g]) => ({ label, value: g.resolvedRate, ci: g.ci95, note: `${g.tasks} task${g.tasks === 1 ? '' : 's'}` }))} />
    </div>
  );
}

export function RunResults({ stats, episodes, onOpen }: { stats: RunStats; episodes: EpisodeRecord[]; onOpen: (key: string) => void }) {
  const errors = Object.entries(stats.errors).filter(([, n]) => n > 0);
  return (
    <section className="run-results" data-testid="run-results">
      <KeyValue
        rows={[
          ['resolved', `${pct(stats.resolvedRate)} of ${stats.tasks} tasks (95% Wilson ${ci(stats.ci95)})`],
          ...(stats.ci95Bootstrap ? [['task-clustered bootstrap', ci(stats.ci95Bootstrap)] as [string, string]] : []),
          ['pass@k', Object.entries(stats.passAtK).map(([k, v]) => `pass@${k} ${pct(v)}`).join(' · ') || '—'],
          ['mean reward', `${stats.meanReward.toFixed(2)} assertions (${pct(stats.meanFraction)} of them)`],
          ['episodes', String(stats.episodes)],
          ['errors', errors.length ? errors.map(([k, n]) => `${k}: ${n}`).join(', ') : 'none'],
          ['stop reasons', Object.entries(stats.stopReasons).map(([k, n]) => `${k}: ${n}`).join(', ') || '—'],
          ['tokens', `${stats.tokens.prompt.toLocaleString()} prompt · ${stats.tokens.completion.toLocaleString()} completion${stats.costUsd !== null ? ` · $${stats.costUsd.toFixed(4)}` : ''}`],
        ]}
      />
      <div className="breakdowns">
        <Breakdown title="Category" groups={stats.byCategory} />
        <Breakdown title="Difficulty" groups={stats.byDifficulty} />
      </div>
      <h2>Episodes</h2>
      <table className="grid episodes" data-testid="episodes">
        <thead>
          <tr>
            <th>task</th>
            <th>attempt</th>
            <th>resolved</th>
            <th>reward</th>
            <th>turns</th>
            <th>stop</th>
            <th>error</th>
            <th>time</th>
          </tr>
        </thead>
        <tbody>
          {[...episodes]
            .sort((a, b) => a.key.localeCompare(b.key))
            .map((e) => (
              <tr key={e.key} className="clickable" onClick={() => onOpen(e.key)} data-testid="episode-row" data-key={e.key}>
                <td>{e.taskId}</td>
                <td>{e.attempt}</td>
                <td className={e.resolved ? 'ok' : 'warn'}>{e.resolved ? 'yes' : 'no'}</td>
                <td>{e.reward ? `${e.reward.dense} (${pct(e.reward.fraction)})` : '—'}</td>
                <td>{e.turns}</td>
                <td>{e.stopReason}</td>
                <td>{e.error ? `${e.error.kind}: ${e.error.message.slice(0, 60)}` : ''}</td>
                <td>{(e.durationMs / 1000).toFixed(1)} s</td>
              </tr>
            ))}
        </tbody>
      </table>
    </section>
  );
}
