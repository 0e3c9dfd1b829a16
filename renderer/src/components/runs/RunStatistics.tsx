/**
 * Statistics beside a run's results: compare it with another run (paired test task by task: the
 * difference with its bootstrap interval, McNemar's exact p, per category as a forest plot) and the power
 * of a benchmark this size (what difference it could detect at all).
 */
import { useEffect, useState } from 'react';
import type { RunListing, RunStats } from '../../../../electron/domain/runs';
import type { PowerResult } from '../../../../electron/domain/stats';
import { useNav } from '../../stores/nav';
import { getLabApi } from '../../lab/api';
import { KeyValue } from '../KeyValue';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pp = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} pp`;

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
          alpha{' '}
          <input
            type="number"
            step="0.01"
            min="0.001"
            max="0.5"
            value={alpha}
            onChange={(e) => setAlpha(Number(e.target.value) || 0.05)}
          />
        </label>
        <label>
          power{' '}
          <input
            type="number"
            step="0.05"
            min="0.5"
            max="0.99"
            value={power}
            onChange={(e) => setPower(Number(e.target.value) || 0.8)}
          />
        </label>
        <label title="correlation of two checkpoints' outcomes on the same task">
          rho{' '}
          <input
            type="number"
            step="0.1"
            min="0"
            max="0.95"
            value={rho}
            onChange={(e) => setRho(Number(e.target.value))}
          />
        </label>
      </div>
      {error && <p className="error">{error}</p>}
      {result && (
        <KeyValue
          rows={[
            ['benchmark', `${result.tasks} tasks at ${pct(result.base)}`],
            [
              'detectable, paired',
              `${mde(result.paired.mde)} (discordance ${result.paired.discordance === null ? '—' : pct(result.paired.discordance)})`,
            ],
            ['detectable, independent', mde(result.independent.mde)],
          ]}
        />
      )}
    </div>
  );
}

export function RunStatistics({ runId, runs, stats }: { runId: string; runs: RunListing[]; stats: RunStats }) {
  const others = runs.filter((r) => r.id !== runId && r.done > 0);
  const { link } = useNav();
  return (
    <section className="run-statistics" data-testid="run-statistics">
      <h2>Compare</h2>
      <label>
        baseline (A){' '}
        <select
          value=""
          onChange={(e) => e.target.value && link('compare', [e.target.value, runId])}
          data-testid="compare-with"
        >
          <option value="">choose a run…</option>
          {others.map((r) => (
            <option key={r.id} value={r.id}>
              {r.title} · {r.id}
            </option>
          ))}
        </select>{' '}
        against this run (B): opens the compare view
      </label>
      <h2>Power</h2>
      <PowerView tasks={stats.tasks} base={stats.resolvedRate} />
    </section>
  );
}
