/** One task across the lab's runs: which policy, each attempt's outcome, a link to the episode. */
import { useEffect, useState } from 'react';
import type { TaskRunHistory } from '../../../../electron/domain/runs';
import { getLabApi } from '../../lab/api';
import { hashFor } from '../../stores/nav';
import { useTasks } from '../../stores/tasks';

export function TaskHistory({ taskId }: { taskId: string }) {
  const [history, setHistory] = useState<TaskRunHistory[] | null>(null);
  // The same runs as the pass rate: the page's policy, model and suite filter.
  const filter = useTasks((s) => s.runFilter);
  useEffect(() => {
    let stale = false;
    getLabApi()
      .methods['runs.taskHistory']({ taskId, filter })
      .then(
        (h) => !stale && setHistory(h),
        () => !stale && setHistory([]),
      );
    return () => {
      stale = true;
    };
  }, [taskId, filter]);
  if (!history) return <p className="muted">Reading the runs…</p>;
  if (!history.length)
    return (
      <p className="muted">
        No run {filter.policy || filter.model || filter.suite ? 'of the chosen policy, model and suite ' : ''}has
        included this task yet.
      </p>
    );
  return (
    <table className="grid task-history" data-testid="task-history">
      <thead>
        <tr>
          <th>run</th>
          <th>policy</th>
          <th>attempts</th>
        </tr>
      </thead>
      <tbody>
        {history.map((h) => (
          <tr key={h.runId} data-testid="task-history-run" data-run={h.runId}>
            <td title={`${h.runId}\n${new Date(h.createdAt).toLocaleString()}`}>
              <a href={hashFor('runs', [h.runId])}>{h.title}</a>
            </td>
            <td title={h.policy}>{h.policy.length > 40 ? `…${h.policy.slice(-39)}` : h.policy}</td>
            <td className="attempt-cells">
              {h.episodes.length === 0 && <span className="muted">not run</span>}
              {h.episodes.map((e) => (
                <a
                  key={e.key}
                  href={hashFor('runs', [h.runId, e.key])}
                  className={e.resolved ? 'attempt pass' : 'attempt fail'}
                  title={`attempt ${e.attempt}: ${e.resolved ? 'resolved' : 'not resolved'}, ${e.fraction === null ? 'no reward' : `${(e.fraction * 100).toFixed(0)}% of assertions`}, ${e.turns} turns, ${e.stopReason}, ${(e.durationMs / 1000).toFixed(1)} s`}
                >
                  {e.resolved ? '✓' : '✗'}
                </a>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
