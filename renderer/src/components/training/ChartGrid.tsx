/**
 * Every metric the charted runs log, grouped as issue 14 lists them, with the toolbar: x axis, smoothing,
 * groups, panel search and pins. A metric family (`reward_dense/<category>`) is one chart with a line per
 * category; every panel shares one x range; rates sit on [0, 1]; each run keeps its colour.
 */
import {
  METRIC_GROUPS,
  OTHER_GROUP,
  prefersLogScale,
  XAxis,
  type RunSeries,
} from '../../../../electron/domain/training-metrics';
import { useTraining } from '../../stores/training';
import { MetricChart, type ChartRun } from './MetricChart';
import { RUN_DASHES } from './palette';
import { useState } from 'react';
import { combinedPanel, COMBINE_SEPARATOR, panelMatcher, parseCombined, yRangeFor, type Panel } from './panels';
import { arrangePanels, nearestRolloutStep, type xExtentOf } from './panel-layout';
import { gridPanels } from './grid-panels';
import type { TrainingRunSummary } from '../../../../electron/domain/training-view';

export function ChartToolbar() {
  const {
    xAxis,
    setXAxis,
    smoothing,
    setSmoothing,
    hiddenGroups,
    toggleGroup,
    panelFilter,
    setPanelFilter,
    poolSeeds,
    setPoolSeeds,
  } = useTraining();
  const { error } = panelMatcher(panelFilter);
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
        smoothing{' '}
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={smoothing}
          onChange={(e) => setSmoothing(Number(e.target.value))}
          data-testid="smoothing"
        />{' '}
        <span className="muted">{smoothing.toFixed(2)}</span>
      </label>
      <label>
        panels{' '}
        <input
          type="search"
          value={panelFilter}
          placeholder="regex: ^reward|kl"
          onChange={(e) => setPanelFilter(e.target.value)}
          data-testid="panel-search"
          aria-label="search panels"
        />
      </label>
      {error && <span className="warn small">{error}</span>}
      <label title="charted runs that differ only in seed: one line, their mean, over a band from the lowest to the highest run at each step">
        <input
          type="checkbox"
          checked={poolSeeds}
          onChange={(e) => setPoolSeeds(e.target.checked)}
          data-testid="pool-seeds"
        />{' '}
        pool seeds (mean, min–max band)
      </label>
      <span className="group-toggles">
        {[...METRIC_GROUPS, OTHER_GROUP].map((g) => (
          <label key={g.id} title={g.title}>
            <input type="checkbox" checked={!hiddenGroups.includes(g.id)} onChange={() => toggleGroup(g.id)} /> {g.id}
          </label>
        ))}
      </span>
      <CombineInput />
      <span className="muted small">
        drag to zoom · double-click to reset · click a point to open that step’s rollouts · ☆ pins a panel
      </span>
    </div>
  );
}

/** Put several metrics on one chart: their names joined with + (or commas), offered from the logged metrics. */
function CombineInput() {
  const { charted, series, addCombined } = useTraining();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const keys = [...new Set(charted.flatMap((r) => Object.keys(series[r]?.series ?? {})))].sort();
  const add = () => {
    const panel = combinedPanel(text, keys);
    const unknown = parseCombined(text).filter((k) => !keys.includes(k));
    if (!panel) return setError(unknown.length ? `not logged: ${unknown.join(', ')}` : 'name two metrics or more');
    setError(unknown.length ? `not logged: ${unknown.join(', ')}` : null);
    addCombined(panel.id);
    setText('');
  };
  return (
    <span className="combine">
      <label>
        one chart of{' '}
        <input
          list="metric-names"
          value={text}
          placeholder={`pg_loss ${COMBINE_SEPARATOR} vf_loss`}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && add()}
          data-testid="combine-input"
          aria-label="metrics to chart together"
        />
      </label>
      <datalist id="metric-names">
        {keys.map((k) => (
          <option
            key={k}
            value={
              text.includes(COMBINE_SEPARATOR)
                ? `${text.slice(0, text.lastIndexOf(COMBINE_SEPARATOR) + 1).trim()} ${k}`
                : k
            }
          />
        ))}
      </datalist>
      <button type="button" onClick={add} data-testid="combine-add">
        chart together
      </button>
      {error && (
        <span className="warn small" data-testid="combine-error">
          {error}
        </span>
      )}
    </span>
  );
}

export function ChartGrid() {
  const { runs, charted, series, hiddenGroups, panelFilter, pinned, showConstant, setShowConstant } = useTraining();
  const { combined, removeCombined, poolSeeds, xAxis } = useTraining();
  const loaded = charted.filter((r) => series[r]);
  if (!loaded.length) return <p className="muted">No metrics yet.</p>;
  const grid = gridPanels({
    runs,
    charted,
    loaded,
    series,
    xAxis,
    panelFilter,
    pinned,
    combined,
    poolSeeds,
    showConstant,
  });
  const { colourOf, matching, combinedPanels, pools, constant, panels } = grid;
  const chartFor = (panel: Panel, onRemove?: () => void) => (
    <PanelChart
      key={panel.id}
      panel={panel}
      lines={grid.panelLines.get(panel.id)!}
      xExtent={grid.xExtent}
      loaded={loaded}
      colourOf={colourOf}
      onRemove={onRemove}
    />
  );
  const { pinnedPanels, groups } = arrangePanels(panels, pinned, hiddenGroups);
  const bad = loaded.flatMap((r) => series[r]!.badLines.map((b) => `${r}: metrics.jsonl line ${b.line}: ${b.problem}`));
  return (
    <div className="chart-grid" data-testid="chart-grid" data-panels={panels.length}>
      {bad.length > 0 && <div className="warn small">{bad.join(' · ')}</div>}
      <RunLegend runs={loaded} series={series} colourOf={colourOf} />
      {poolSeeds && <PoolLegend pools={pools} runs={runs} colourOf={colourOf} />}
      {constant.length > 0 && (
        <label
          className="small muted show-constant"
          data-testid="show-constant"
          title={constant.map((p) => p.id).join(' ')}
        >
          <input type="checkbox" checked={showConstant} onChange={(e) => setShowConstant(e.target.checked)} />{' '}
          {`show constant metrics (${constant.length})`}
        </label>
      )}
      {combinedPanels.length > 0 && (
        <section className="metric-group" data-testid="group-combined">
          <h3>Combined</h3>
          <div className="charts">{combinedPanels.map((p) => chartFor(p, () => removeCombined(p.id)))}</div>
        </section>
      )}
      {pinnedPanels.length > 0 && (
        <section className="metric-group" data-testid="group-pinned">
          <h3>Pinned</h3>
          <div className="charts">{pinnedPanels.map((p) => chartFor(p))}</div>
        </section>
      )}
      {groups.map(({ group, panels: groupPanels }) => (
        <section key={group.id} className="metric-group" data-testid={`group-${group.id}`}>
          <h3>{group.title}</h3>
          <div className="charts">{groupPanels.map((p) => chartFor(p))}</div>
        </section>
      ))}
      {matching.length === 0 && <p className="muted">No panel matches “{panelFilter}”.</p>}
    </div>
  );
}

/** One panel's chart: its lines, y range and log scale, a click opening the nearest rollout step, its pin. */
function PanelChart({
  panel,
  lines,
  xExtent,
  loaded,
  colourOf,
  onRemove,
}: {
  panel: Panel;
  lines: ChartRun[];
  xExtent: ReturnType<typeof xExtentOf>;
  loaded: string[];
  colourOf: (runId: string) => string;
  /** A combined chart's remove button. */
  onRemove: (() => void) | undefined;
}) {
  const { xAxis, logScale, setLog, openStep, rolloutSteps, pinned, togglePin } = useTraining();
  const y = yRangeFor(
    panel.id,
    lines.flatMap((l) => l.points.raw),
  );
  return (
    <MetricChart
      metric={panel.id}
      runs={lines}
      xAxis={xAxis}
      log={logScale[panel.id] ?? prefersLogScale(panel.id)}
      onLog={(on) => setLog(panel.id, on)}
      onPickStep={rolloutSteps.length ? (step) => void openStep(nearestRolloutStep(rolloutSteps, step)) : undefined}
      yRange={y}
      xExtent={xExtent}
      pinned={pinned.includes(panel.id)}
      onPin={() => togglePin(panel.id)}
      onRemove={onRemove}
      runKey={
        panel.family
          ? loaded.map((r, ri) => ({ runId: r, colour: colourOf(r), dash: RUN_DASHES[ri % RUN_DASHES.length] }))
          : undefined
      }
    />
  );
}

/** Which charted runs each pooled line stands for (runs alone are left out), and their seeds. */
function PoolLegend({
  pools,
  runs,
  colourOf,
}: {
  pools: string[][];
  runs: TrainingRunSummary[];
  colourOf: (runId: string) => string;
}) {
  const pooled = pools.filter((p) => p.length > 1);
  if (!pooled.length)
    return (
      <p className="muted small" data-testid="pool-legend">
        No two charted runs differ only in seed: each is drawn alone.
      </p>
    );
  const seedOf = (id: string) => runs.find((r) => r.id === id)?.seed ?? '?';
  return (
    <div className="legend small" data-testid="pool-legend">
      {pooled.map((p) => (
        <span key={p[0]} className="legend-item" data-testid="pool-item" data-runs={p.join(' ')}>
          <span className="swatch" style={{ background: colourOf(p[0]!) }} />{' '}
          {`mean of ${p.length} runs (seeds ${p.map(seedOf).join(', ')}), band min–max`}
        </span>
      ))}
    </div>
  );
}

/** The charted runs with their colours (and how many steps a decimated series stands for). */
function RunLegend({
  runs,
  series,
  colourOf,
}: {
  runs: string[];
  series: Record<string, RunSeries>;
  colourOf: (runId: string) => string;
}) {
  return (
    <div className="legend" data-testid="run-legend">
      {runs.map((r) => (
        <span key={r} className="legend-item" data-testid="legend-run" data-run={r} data-colour={colourOf(r)}>
          <span className="swatch" style={{ background: colourOf(r) }} /> {r}
          {series[r]!.decimated ? (
            <span className="muted"> ({series[r]!.rows.toLocaleString()} steps, decimated)</span>
          ) : null}
        </span>
      ))}
    </div>
  );
}
