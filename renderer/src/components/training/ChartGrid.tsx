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
import { MetricChart, shortId, type ChartRun } from './MetricChart';
import { categoryColour, RUN_DASHES, runColour, stableRunColour } from './palette';
import { useState } from 'react';
import {
  combinedPanel,
  COMBINE_SEPARATOR,
  isConstantPanel,
  panelMatcher,
  parseCombined,
  toPanels,
  yRangeFor,
  type Panel,
} from './panels';
import { arrangePanels, nearestRolloutStep, xExtentOf } from './panel-layout';
import { poolSeries, seedGroups } from './seed-pool';
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
  const {
    runs,
    charted,
    series,
    xAxis,
    logScale,
    setLog,
    hiddenGroups,
    openStep,
    rolloutSteps,
    panelFilter,
    pinned,
    togglePin,
    showConstant,
    setShowConstant,
    combined,
    removeCombined,
    poolSeeds,
  } = useTraining();
  const loaded = charted.filter((r) => series[r]);
  if (!loaded.length) return <p className="muted">No metrics yet.</p>;
  const colourOf = (runId: string) =>
    runs.some((r) => r.id === runId) ? stableRunColour(runId, runs) : runColour(charted.indexOf(runId));
  const keys = [...new Set(loaded.flatMap((r) => Object.keys(series[r]!.series)))];
  const matcher = panelMatcher(panelFilter);
  const matching = toPanels(keys).filter((p) => matcher.test(p.id) || pinned.includes(p.id));
  // One x range for every panel: the extent of every charted run's x values, all metrics.
  const xExtent = xExtentOf(
    loaded.map((r) => series[r]!),
    xAxis,
  );
  // Charts of several metrics the user made (their own section, never hidden by the search or as constant).
  const combinedPanels = combined.map((id) => combinedPanel(id, keys)).filter((p): p is Panel => !!p);
  const pools = poolSeeds ? seedGroups(loaded, runs) : loaded.map((r) => [r]);
  const panelLines = new Map(
    [...matching, ...combinedPanels].map((p) => [p.id, linesOf(p, loaded, series, colourOf, pools)]),
  );
  // A panel that holds one value throughout (lr without schedule, a drift that stays 0) is hidden unless asked
  // for or pinned.
  const constant = matching.filter(
    (p) => !pinned.includes(p.id) && isConstantPanel(panelLines.get(p.id)!.map((l) => l.points.raw)),
  );
  const panels = showConstant ? matching : matching.filter((p) => !constant.includes(p));

  const chartFor = (panel: Panel, onRemove?: () => void) => {
    const lines = panelLines.get(panel.id)!;
    const y = yRangeFor(
      panel.id,
      lines.flatMap((l) => l.points.raw),
    );
    return (
      <MetricChart
        key={panel.id}
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
  };

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

/**
 * A panel's lines: for a family, a line per category per run (colour: category, dashes: run); else one per
 * pool of runs in its first run's colour: a run alone as logged, runs pooled over seeds as their mean over
 * a min–max band.
 */
function linesOf(
  panel: Panel,
  loaded: string[],
  series: Record<string, RunSeries>,
  colourOf: (runId: string) => string,
  pools: string[][],
): ChartRun[] {
  const lines: ChartRun[] = [];
  if (panel.family) {
    loaded.forEach((r, ri) =>
      panel.lines.forEach((line, li) => {
        const points = series[r]!.series[line.key];
        if (points)
          lines.push({
            runId: r,
            label: loaded.length > 1 ? `${line.label} · ${shortId(r)}` : line.label,
            colour: categoryColour(li),
            dash: RUN_DASHES[ri % RUN_DASHES.length],
            showRaw: false,
            points,
          });
      }),
    );
  } else {
    for (const pool of pools) {
      const members = pool.filter((r) => series[r]!.series[panel.id]);
      if (members.length === 1)
        lines.push({
          runId: members[0]!,
          colour: colourOf(members[0]!),
          points: series[members[0]!]!.series[panel.id]!,
        });
      if (members.length < 2) continue;
      const pooled = poolSeries(members.map((r) => series[r]!.series[panel.id]!));
      lines.push({
        runId: members[0]!,
        label: `${shortId(members[0]!)} +${members.length - 1} (mean)`,
        colour: colourOf(pool[0]!),
        points: pooled.points,
        band: { lo: pooled.lo, hi: pooled.hi, n: pooled.n, runs: members },
      });
    }
  }
  return lines;
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
