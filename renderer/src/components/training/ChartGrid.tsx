/** Every metric the charted runs log, grouped as issue 14 lists them, with the toolbar: x axis, smoothing, groups. */
import { groupOf, METRIC_GROUPS, OTHER_GROUP, prefersLogScale, XAxis } from '../../../../electron/domain/training-metrics';
import { useTraining } from '../../stores/training';
import { MetricChart, type ChartRun } from './MetricChart';
import { runColour } from './palette';

function orderKeys(keys: string[], groupKeys: readonly string[]): string[] {
  const rank = (k: string) => (groupKeys.includes(k) ? groupKeys.indexOf(k) : groupKeys.length);
  return [...keys].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b, undefined, { numeric: true }));
}

export function ChartToolbar() {
  const { xAxis, setXAxis, smoothing, setSmoothing, hiddenGroups, toggleGroup } = useTraining();
  return (
    <div className="toolbar chart-toolbar" data-testid="chart-toolbar">
      <label>
        x axis{' '}
        <select value={xAxis} onChange={(e) => setXAxis(XAxis.parse(e.target.value))} data-testid="x-axis">
          <option value="step">step</option>
          <option value="wall">wall time</option>
          <option value="tokens">tokens</option>
        </select>
      </label>
      <label>
        smoothing <input type="range" min={0} max={0.99} step={0.01} value={smoothing} onChange={(e) => setSmoothing(Number(e.target.value))} data-testid="smoothing" />{' '}
        <span className="muted">{smoothing.toFixed(2)}</span>
      </label>
      <span className="group-toggles">
        {[...METRIC_GROUPS, OTHER_GROUP].map((g) => (
          <label key={g.id} title={g.title}>
            <input type="checkbox" checked={!hiddenGroups.includes(g.id)} onChange={() => toggleGroup(g.id)} /> {g.id}
          </label>
        ))}
      </span>
      <span className="muted small">drag to zoom · double-click to reset · click a point to open that step’s rollouts</span>
    </div>
  );
}

export function ChartGrid() {
  const { charted, series, xAxis, logScale, setLog, hiddenGroups, openStep, rolloutSteps } = useTraining();
  const loaded = charted.filter((r) => series[r]);
  if (!loaded.length) return <p className="muted">No metrics yet.</p>;
  const keys = [...new Set(loaded.flatMap((r) => Object.keys(series[r]!.series)))];
  const groups = [...METRIC_GROUPS, OTHER_GROUP].map((g) => ({ group: g, keys: orderKeys(keys.filter((k) => groupOf(k).id === g.id), g.keys) })).filter((g) => g.keys.length && !hiddenGroups.includes(g.group.id));
  const bad = loaded.flatMap((r) => series[r]!.badLines.map((b) => `${r}: metrics.jsonl line ${b.line}: ${b.problem}`));
  return (
    <div className="chart-grid" data-testid="chart-grid">
      {bad.length > 0 && <div className="warn small">{bad.join(' · ')}</div>}
      <div className="legend" data-testid="run-legend">
        {loaded.map((r) => (
          <span key={r} className="legend-item">
            <span className="swatch" style={{ background: runColour(charted.indexOf(r)) }} /> {r}
            {series[r]!.decimated ? <span className="muted"> ({series[r]!.rows.toLocaleString()} steps, decimated)</span> : null}
          </span>
        ))}
      </div>
      {groups.map(({ group, keys: groupKeys }) => (
        <section key={group.id} className="metric-group" data-testid={`group-${group.id}`}>
          <h3>{group.title}</h3>
          <div className="charts">
            {groupKeys.map((key) => {
              const runs: ChartRun[] = loaded.filter((r) => series[r]!.series[key]).map((r) => ({ runId: r, colour: runColour(charted.indexOf(r)), points: series[r]!.series[key]! }));
              return (
                <MetricChart
                  key={key}
                  metric={key}
                  runs={runs}
                  xAxis={xAxis}
                  log={logScale[key] ?? prefersLogScale(key)}
                  onLog={(on) => setLog(key, on)}
                  onPickStep={rolloutSteps.length ? (step) => void openStep(nearest(rolloutSteps, step)) : undefined}
                />
              );
            })}
          </div>
        </section>
      ))}
    </div>
  );
}

/** The step with rollouts nearest to a clicked step (rollouts may be kept every N steps). */
function nearest(steps: number[], step: number): number {
  return steps.reduce((best, s) => (Math.abs(s - step) < Math.abs(best - step) ? s : best), steps[0]!);
}
