/** Compare two runs: headline figures side by side and a per-task diff (gained, lost, unchanged). */
import { useEffect, useState } from 'react';
import type { EpisodeRecord, RunManifest, RunStats } from '../../../../../electron/domain/runs';
import { getLabApi } from '../../../lab/api';
import { userError } from '../../../lab/errors';
import { useSort } from '../../common/sortable';
import { PairedTest } from './PairedTest';
import { diffRuns, type TaskDiff } from './task-diff';

interface Loaded {
  manifest: RunManifest;
  stats: RunStats;
  episodes: EpisodeRecord[];
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const cell = (o: TaskDiff['a']) => (o ? `${o.resolved}/${o.episodes} (${pct(o.rate)})` : '—');
const CHANGE_ORDER = { lost: 0, gained: 1, 'only-a': 2, 'only-b': 3, same: 4 } as const;

export function RunCompare({ a, b, onClose }: { a: string; b: string; onClose: () => void }) {
  const [runs, setRuns] = useState<[Loaded, Loaded] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    const get = (runId: string) => getLabApi().methods['runs.get']({ runId });
    Promise.all([get(a), get(b)]).then(
      ([x, y]) => !stale && setRuns([x, y]),
      (e: unknown) => !stale && setError(userError(e).message),
    );
    return () => {
      stale = true;
    };
  }, [a, b]);
  const diffs = runs ? diffRuns(runs[0].episodes, runs[1].episodes) : [];
  const { sorted, header } = useSort(
    diffs,
    { task: (d) => d.taskId, a: (d) => d.a?.rate ?? null, b: (d) => d.b?.rate ?? null, delta: (d) => d.delta, change: (d) => CHANGE_ORDER[d.change] },
    { key: 'change', dir: 1 },
  );
  const count = (c: TaskDiff['change']) => diffs.filter((d) => d.change === c).length;
  return (
    <section className="run-compare" data-testid="run-compare">
      <div className="toolbar">
        <h2>Compare runs</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {error && <div className="error">{error}</div>}
      {runs && (
        <>
          <table className="grid">
            <thead>
              <tr>
                <th />
                <th>A: {a}</th>
                <th>B: {b}</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">policy</th>
                <td>{runs[0].manifest.config.policy}</td>
                <td>{runs[1].manifest.config.policy}</td>
              </tr>
              <tr>
                <th scope="row">resolved</th>
                <td>{`${pct(runs[0].stats.resolvedRate)} of ${runs[0].stats.tasks} tasks`}</td>
                <td>{`${pct(runs[1].stats.resolvedRate)} of ${runs[1].stats.tasks} tasks`}</td>
              </tr>
              <tr>
                <th scope="row">mean reward</th>
                <td>{pct(runs[0].stats.meanFraction)}</td>
                <td>{pct(runs[1].stats.meanFraction)}</td>
              </tr>
            </tbody>
          </table>
          <p data-testid="compare-summary">{`B gains ${count('gained')} task(s), loses ${count('lost')}, ${count('same')} unchanged; ${count('only-a')} only in A, ${count('only-b')} only in B.`}</p>
          <PairedTest diffs={diffs} />
          <table className="grid" data-testid="task-diff">
            <thead>
              <tr>
                {header('task', 'task')}
                {header('a', 'A resolved')}
                {header('b', 'B resolved')}
                {header('delta', 'Δ')}
                {header('change', 'change')}
              </tr>
            </thead>
            <tbody>
              {sorted.map((d) => (
                <tr key={d.taskId} data-task={d.taskId} data-change={d.change}>
                  <td>{d.taskId}</td>
                  <td>{cell(d.a)}</td>
                  <td>{cell(d.b)}</td>
                  <td className={d.delta === null || d.delta === 0 ? '' : d.delta > 0 ? 'ok' : 'bad'}>{d.delta === null ? '—' : `${d.delta > 0 ? '+' : ''}${(d.delta * 100).toFixed(0)} pts`}</td>
                  <td>{d.change}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
