/**
 * Statistics beside a run's results: compare it with another run (paired test task by task: the
 * difference with its bootstrap interval, McNemar's exact p, per category as a forest plot) and the power
 * of a benchmark this size (what difference it could detect at all).
 */
import { useEffect, useState } from 'react';
import type { RunListing, RunStats } from '../../../../electron/domain/runs';
import type { CompareResult, PowerResult } from '../../../../electron/domain/stats';
import { getLabApi } from '../../lab/api';
import { KeyValue } from '../KeyValue';
import { ForestPlot } from './ForestPlot';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pp = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} pp`;
const ci = (c: readonly [number, number], f: (x: number) => string) => `[${f(c[0])}, ${f(c[1])}]`;
const pValue = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

function ComparisonView({ r }: { r: CompareResult }) {
  const test = r.mcnemar ? `McNemar exact p = ${pValue(r.mcnemar.p)} (A only ${r.mcnemar.b}, B only ${r.mcnemar.c})` : `two-proportion z-test p = ${pValue(r.unpairedTest!.p)}`;
  return (
    <div data-testid="comparison">
      {r.warnings.map((w) => (
        <p key={w} className="warn" role="status">
          {w}
        </p>
      ))}
      <KeyValue
        rows={[
          [`A · ${r.a.run}`, `${pct(r.a.resolvedRate)} ${ci(r.a.ci95, pct)} · reward ${r.a.meanReward.toFixed(2)}`],
          [`B · ${r.b.run}`, `${pct(r.b.resolvedRate)} ${ci(r.b.ci95, pct)} · reward ${r.b.meanReward.toFixed(2)}`],
          ['B − A', `${pp(r.diff)} ${ci(r.diffCi95, pp)} over ${r.tasks} ${r.paired ? 'paired' : 'unpaired'} tasks`],
          ['test', test],
          ['reward B − A', `${r.reward.diff >= 0 ? '+' : ''}${r.reward.diff.toFixed(2)} [${r.reward.ci95[0].toFixed(2)}, ${r.reward.ci95[1].toFixed(2)}]`],
          ['changed tasks', r.changed.length ? r.changed.map((c) => `${c.task} ${pct(c.a)}→${pct(c.b)}`).join(', ') : 'none'],
        ]}
      />
      {Object.keys(r.byCategory).length > 0 && (
        <ForestPlot
          title="B − A by category (points, 95% paired bootstrap)"
          rows={Object.entries(r.byCategory).map(([label, c]) => ({ label, diff: c.diff, ci: c.diffCi95, note: `${c.tasks} tasks, p = ${c.mcnemar ? pValue(c.mcnemar.p) : '-'}` }))}
        />
      )}
      <p className="muted">{r.method}</p>
    </div>
  );
}

function PowerView({ tasks, base }: { tasks: number; base: number }) {
  const [alpha, setAlpha] = useState(0.05);
  const [power, setPower] = useState(0.8);
  const [rho, setRho] = useState(0.5);
  const [result, setResult] = useState<PowerResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Rates of exactly 0 or 1 have no variance to plan with: clamp into the open interval.
  const p = Math.min(0.99, Math.max(0.01, base));
  useEffect(() => {
    let stale = false;
    if (tasks < 2) return;
    getLabApi()
      .methods['stats.power']({ tasks, base: p, alpha, power, rho })
      .then(
        (r) => !stale && (setResult(r), setError(null)),
        (e: Error) => !stale && setError(e.message),
      );
    return () => {
      stale = true;
    };
  }, [tasks, p, alpha, power, rho]);
  const mde = (x: number | null | undefined) => (x === null || x === undefined ? 'not detectable' : pp(x));
  return (
    <div data-testid="power">
      <div className="power-inputs">
        <label>
          alpha <input type="number" step="0.01" min="0.001" max="0.5" value={alpha} onChange={(e) => setAlpha(Number(e.target.value) || 0.05)} />
        </label>
        <label>
          power <input type="number" step="0.05" min="0.5" max="0.99" value={power} onChange={(e) => setPower(Number(e.target.value) || 0.8)} />
        </label>
        <label title="correlation of two checkpoints' outcomes on the same task">
          rho <input type="number" step="0.1" min="0" max="0.95" value={rho} onChange={(e) => setRho(Number(e.target.value))} />
        </label>
      </div>
      {error && <p className="error">{error}</p>}
      {result && (
        <KeyValue
          rows={[
            ['benchmark', `${result.tasks} tasks at ${pct(result.base)}`],
            ['detectable, paired', `${mde(result.paired.mde)} (discordance ${result.paired.discordance === null ? '—' : pct(result.paired.discordance)})`],
            ['detectable, independent', mde(result.independent.mde)],
          ]}
        />
      )}
    </div>
  );
}

export function RunStatistics({ runId, runs, stats }: { runId: string; runs: RunListing[]; stats: RunStats }) {
  const others = runs.filter((r) => r.id !== runId && r.done > 0);
  const [other, setOther] = useState('');
  const [result, setResult] = useState<CompareResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setResult(null);
    setError(null);
    if (!other) return;
    let stale = false;
    getLabApi()
      .methods['stats.compare']({ runA: other, runB: runId })
      .then(
        (r) => !stale && setResult(r),
        (e: Error) => !stale && setError(e.message),
      );
    return () => {
      stale = true;
    };
  }, [other, runId]);
  return (
    <section className="run-statistics" data-testid="run-statistics">
      <h2>Compare</h2>
      <label>
        baseline (A){' '}
        <select value={other} onChange={(e) => setOther(e.target.value)} data-testid="compare-with">
          <option value="">choose a run…</option>
          {others.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id} · {r.policy}
            </option>
          ))}
        </select>{' '}
        against this run (B)
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {result && <ComparisonView r={result} />}
      <h2>Power</h2>
      <PowerView tasks={stats.tasks} base={stats.resolvedRate} />
    </section>
  );
}
