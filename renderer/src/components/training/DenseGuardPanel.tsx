/**
 * The dense-reward guard of the primary PPO run (issue 13): partial credit invites farming the easy
 * assertions, so the assertions whose pass rate rose while their task's binary reward did not are flagged
 * first, then the dense, fraction and binary rewards per category side by side, then every assertion's pass
 * rate (top by rise, sortable). Read again whenever the run logs a step.
 */
import { useEffect, useState } from 'react';
import type { AssertionTrend, DenseGuard } from '../../../../electron/domain/dense-guard';
import { getLabApi } from '../../lab/api';
import { RUN_COLOURS } from './palette';
import { Sparkline } from './Sparkline';

/** Assertions shown before "show all". */
const TOP = 10;
const PASS = RUN_COLOURS[1];
const BINARY = RUN_COLOURS[0];

const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 100)}%`);
const num = (x: number | null) => (x === null ? '—' : x.toFixed(2));
const arrow = (f: (x: number | null) => string, before: number | null, after: number) => `${f(before)} → ${f(after)}`;

type SortKey = 'rise' | 'passRateAfter' | 'taskId' | 'category';
const SORTS: { key: SortKey; label: string }[] = [
  { key: 'taskId', label: 'task · assertion' },
  { key: 'category', label: 'category' },
  { key: 'passRateAfter', label: 'pass rate' },
  { key: 'rise', label: 'rise' },
];

function sortValue(a: AssertionTrend, k: SortKey): string | number {
  if (k === 'taskId') return `${a.taskId}::${a.assertion}`;
  return a[k] ?? -Infinity;
}

function AssertionTable({ guard }: { guard: DenseGuard }) {
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'rise', desc: true });
  const [all, setAll] = useState(false);
  const rows = [...guard.assertions].sort((a, b) => {
    const [x, y] = [sortValue(a, sort.key), sortValue(b, sort.key)];
    const c = typeof x === 'string' && typeof y === 'string' ? x.localeCompare(y) : Number(x) - Number(y);
    return sort.desc ? -c : c;
  });
  const shown = all ? rows : rows.slice(0, TOP);
  return (
    <>
      <table className="grid guard-assertions" data-testid="guard-assertions">
        <thead>
          <tr>
            {SORTS.map(({ key, label }) => (
              <th
                key={key}
                className="sortable"
                onClick={() =>
                  setSort({ key, desc: sort.key === key ? !sort.desc : key !== 'taskId' && key !== 'category' })
                }
                data-testid={`guard-sort-${key}`}
                aria-sort={sort.key === key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
              >
                {label}
                {sort.key === key ? (sort.desc ? ' ▼' : ' ▲') : ''}
              </th>
            ))}
            <th>binary</th>
            <th>pass rate by step</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((a) => (
            <tr
              key={`${a.taskId}::${a.assertion}`}
              className={a.flagged ? 'guard-flagged' : ''}
              data-testid="guard-assertion"
              data-task={a.taskId}
              data-assertion={a.assertion}
              data-flagged={a.flagged}
            >
              <td>
                {a.taskId} · <span className="metric-name">{a.assertion}</span>{' '}
                {a.flagged && <span className="badge verdict-flaky">flagged</span>}
              </td>
              <td>{a.category}</td>
              <td>{arrow(pct, a.passRateBefore, a.passRateAfter)}</td>
              <td>{a.rise === null ? '—' : `${a.rise >= 0 ? '+' : ''}${Math.round(a.rise * 100)} pp`}</td>
              <td>{arrow(pct, a.binaryBefore, a.binaryAfter)}</td>
              <td>
                <Sparkline lines={[{ values: a.series, colour: PASS, label: 'pass rate' }]} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > TOP && (
        <button onClick={() => setAll(!all)} data-testid="guard-show-all">
          {all ? `Top ${TOP} only` : `Show all ${rows.length}`}
        </button>
      )}
    </>
  );
}

function GuardView({ guard }: { guard: DenseGuard }) {
  if (!guard.steps.length)
    return <p className="muted">No trained step with rollouts yet: the guard fills in as the run trains.</p>;
  return (
    <>
      <p className="muted small">
        {guard.steps.length} trained steps, {guard.episodes} episodes. Before → after: the first and second half of the
        steps a task was sampled in. An assertion is flagged when its pass rate rises by ≥ {pct(guard.minRise)} while
        its task’s binary reward does not.
      </p>
      <h3>Flagged assertions</h3>
      {!guard.flags.length ? (
        <p className="muted" data-testid="guard-no-flags">
          No assertion flagged: no pass rate rose by {pct(guard.minRise)} or more without the binary reward rising with
          it.
        </p>
      ) : (
        <table className="grid guard-flags" data-testid="guard-flags">
          <thead>
            <tr>
              <th>task</th>
              <th>assertion</th>
              <th>pass rate</th>
              <th>binary</th>
            </tr>
          </thead>
          <tbody>
            {guard.flags.map((f) => (
              <tr
                key={`${f.taskId}::${f.assertion}`}
                className="guard-flagged"
                data-testid="guard-flag"
                data-task={f.taskId}
                data-assertion={f.assertion}
              >
                <td>{f.taskId}</td>
                <td className="metric-name">{f.assertion}</td>
                <td>{arrow(pct, f.passRateBefore, f.passRateAfter)}</td>
                <td>{arrow(pct, f.binaryBefore, f.binaryAfter)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Dense vs binary reward per category</h3>
      <table className="grid" data-testid="guard-categories">
        <thead>
          <tr>
            <th>category</th>
            <th>episodes</th>
            <th>dense (assertions passed)</th>
            <th>fraction</th>
            <th>binary</th>
            <th>
              by step: <span style={{ color: PASS }}>fraction</span> · <span style={{ color: BINARY }}>binary</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {guard.categories.map((c) => (
            <tr key={c.category} data-testid="guard-category" data-category={c.category}>
              <td>{c.category}</td>
              <td>{c.episodes}</td>
              <td>{arrow(num, c.dense.before, c.dense.after)}</td>
              <td>{arrow(pct, c.fraction.before, c.fraction.after)}</td>
              <td>{arrow(pct, c.binary.before, c.binary.after)}</td>
              <td>
                <Sparkline
                  lines={[
                    { values: c.series.fraction, colour: PASS, label: 'fraction' },
                    { values: c.series.binary, colour: BINARY, label: 'binary' },
                  ]}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Pass rate per assertion</h3>
      <AssertionTable guard={guard} />
    </>
  );
}

export function DenseGuardPanel({ runId, step }: { runId: string; step: number }) {
  const [guard, setGuard] = useState<{ runId: string; guard: DenseGuard } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    getLabApi()
      .methods['training.guard']({ runId })
      .then(
        (g) => live && (setGuard({ runId, guard: g }), setError(null)),
        (e: Error) => live && setError(e.message),
      );
    return () => {
      live = false;
    };
  }, [runId, step]);
  return (
    <section className="guard-panel" data-testid="guard-panel" data-run={runId}>
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      {guard?.runId === runId ? (
        <GuardView guard={guard.guard} />
      ) : (
        !error && <p className="muted">Reading the rollouts…</p>
      )}
    </section>
  );
}
