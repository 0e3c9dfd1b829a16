/** A step's episodes, sortable; the best and the worst marked at a glance. */
import { useState } from 'react';
import type { RolloutEpisode, RolloutStep } from '../../../../electron/domain/training-view';

type SortKey = 'taskId' | 'category' | 'reward' | 'resolved' | 'turns' | 'tokens' | 'aborted';
const COLUMNS: SortKey[] = ['taskId', 'category', 'reward', 'resolved', 'turns', 'tokens', 'aborted'];

function value(e: RolloutEpisode, k: SortKey): string | number {
  const v = e[k];
  return typeof v === 'boolean' ? Number(v) : (v ?? -Infinity);
}

export function RolloutTable({
  step,
  onOpen,
  openKey,
}: {
  step: RolloutStep;
  onOpen: (key: string) => void;
  openKey: string | null;
}) {
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'reward', desc: true });
  const rows = [...step.episodes].sort((a, b) => {
    const [x, y] = [value(a, sort.key), value(b, sort.key)];
    const c = typeof x === 'string' && typeof y === 'string' ? x.localeCompare(y) : Number(x) - Number(y);
    return sort.desc ? -c : c;
  });
  const rewards = step.episodes.map((e) => e.reward ?? -Infinity);
  const [best, worst] = [Math.max(...rewards), Math.min(...rewards)];
  const resolved = step.episodes.filter((e) => e.resolved).length;
  return (
    <div data-testid="rollout-table">
      <p className="muted">
        step {step.step}: {step.episodes.length} episodes · {resolved} resolved · mean reward{' '}
        {(step.episodes.reduce((n, e) => n + (e.reward ?? 0), 0) / Math.max(1, step.episodes.length)).toFixed(2)} ·{' '}
        {step.episodes.filter((e) => e.aborted).length} aborted
      </p>
      <table className="grid selectable">
        <thead>
          <tr>
            {COLUMNS.map((k) => (
              <th
                key={k}
                className="sortable"
                onClick={() => setSort({ key: k, desc: sort.key === k ? !sort.desc : true })}
                data-testid={`sort-${k}`}
                aria-sort={sort.key === k ? (sort.desc ? 'descending' : 'ascending') : 'none'}
              >
                {k === 'taskId' ? 'task' : k}
                {sort.key === k ? (sort.desc ? ' ▼' : ' ▲') : ''}
              </th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr
              key={e.key}
              className={e.key === openKey ? 'selected' : ''}
              onClick={() => onOpen(e.key)}
              data-testid="rollout-row"
              data-key={e.key}
            >
              <td>{e.taskId}</td>
              <td>{e.category}</td>
              <td>{e.reward ?? '—'}</td>
              <td className={e.resolved ? 'ok' : 'muted'}>{e.resolved ? 'yes' : 'no'}</td>
              <td>{e.turns}</td>
              <td>{e.tokens}</td>
              <td className={e.aborted ? 'warn' : 'muted'}>{e.aborted ? 'aborted' : ''}</td>
              <td>
                {e.reward === best && best !== worst ? (
                  <span className="badge verdict-ok">best</span>
                ) : e.reward === worst && best !== worst ? (
                  <span className="badge verdict-error">worst</span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
