/**
 * The compare view's tasks: each run's resolved rate and mean reward on the task, each a link to that run's
 * episode (so A's and B's episodes of a task sit side by side in its row), and one change column per pair
 * against the baseline. Rows with the largest changes (resolved, then reward) come first.
 */
import { hashFor } from '../../stores/nav';
import type { CompareRow } from '../runs/compare/compare-rows';
import { SIDE_BY_SIDE_PREFIX } from './SideBySide';
import { changeText } from '../runs/compare/task-diff';

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

export function TaskDiffTable({
  ids,
  letters,
  rows,
}: {
  ids: readonly string[];
  letters: readonly string[];
  rows: readonly CompareRow[];
}) {
  return (
    <div className="table-scroll">
      <table className="grid" data-testid="task-diff">
        <thead>
          <tr>
            <th>task</th>
            <th>category</th>
            {ids.map((id, i) => (
              <th key={id} title={`${id}: resolved · mean reward; opens the episode`}>
                {letters[i]}
              </th>
            ))}
            {ids.slice(1).map((id, i) => (
              <th key={id} data-testid="change-header">{`change (${letters[i + 1]} vs A)`}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.taskId}
              data-task={row.taskId}
              data-change={row.changes[0]?.change}
              data-changes={row.changes.map((c) => c.change).join(',')}
            >
              <td>
                {row.taskId}
                {row.outcomes.filter(Boolean).length > 1 && (
                  <>
                    {' '}
                    <a
                      href={hashFor('compare', [...ids, `${SIDE_BY_SIDE_PREFIX}${row.taskId}`])}
                      className="small"
                      data-testid="side-by-side-link"
                      title="the runs' episodes of this task side by side"
                    >
                      side by side
                    </a>
                  </>
                )}
              </td>
              <td>{row.category}</td>
              {row.outcomes.map((o, i) => {
                const change = i === 0 ? null : row.changes[i - 1]!.change;
                const tone =
                  change === 'gained' || change === 'reward-up'
                    ? 'ok'
                    : change === 'lost' || change === 'reward-down'
                      ? 'bad'
                      : '';
                return (
                  <td key={ids[i]} className={tone} data-run={ids[i]}>
                    {o ? (
                      <a
                        href={hashFor('runs', [ids[i]!, o.firstKey])}
                        data-testid="task-episode"
                        title={`${ids[i]}: episode ${o.firstKey} (${o.resolved}/${o.episodes} resolved)`}
                      >
                        {pct(o.rate)}
                        {o.meanReward !== null && ` · ${o.meanReward.toFixed(2)}`}
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                );
              })}
              {row.changes.map((c, i) => (
                <td key={ids[i + 1]} data-testid="task-change" data-pair={letters[i + 1]}>
                  {c.a || c.b ? changeText(c, 'A', letters[i + 1]) : '—'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
