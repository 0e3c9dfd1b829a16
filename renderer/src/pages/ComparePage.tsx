/**
 * One compare view for two or more runs (evaluations, checkpoint evaluations): the first run is the
 * baseline A; each other run is paired with it task by task (McNemar, paired bootstrap, forest plot by
 * category, as `t1lab compare A B`), with a per-task table and the settings that differ. Reached from the
 * Runs page (checked runs, a run's Compare box) and the Training page's checkpoints; the address
 * (`#/compare/A/B/…`) names the runs.
 */
import { useEffect, useState } from 'react';
import type { EpisodeRecord, RunListing, RunManifest } from '../../../electron/domain/runs';
import type { CompareResult } from '../../../electron/domain/stats';
import { PairedComparison } from '../components/compare/PairedComparison';
import { configDiff } from '../components/compare/config-diff';
import { compareRows, pairSummary } from '../components/runs/compare/compare-rows';
import { TaskDiffTable } from '../components/compare/TaskDiffTable';
import { getLabApi } from '../lab/api';
import { userError } from '../lab/errors';
import { useNav } from '../stores/nav';
import { useRuns } from '../stores/runs';
import { SideBySide, SIDE_BY_SIDE_PREFIX, sideBySideTask } from '../components/compare/SideBySide';
import './runs.css';

interface Loaded {
  runId: string;
  manifest: RunManifest;
  episodes: EpisodeRecord[];
}

function useCompareData(ids: string[]) {
  const [loaded, setLoaded] = useState<Loaded[]>([]);
  const [pairs, setPairs] = useState<CompareResult[]>([]);
  const [error, setError] = useState<string | null>(null);
  const key = ids.join('\n');
  useEffect(() => {
    let stale = false;
    setError(null);
    const api = getLabApi().methods;
    Promise.all(
      ids.map((runId) =>
        api['runs.get']({ runId }).then((r) => ({ runId, manifest: r.manifest, episodes: r.episodes })),
      ),
    )
      .then((runs) => !stale && setLoaded(runs))
      .catch((e: unknown) => !stale && setError(userError(e).message));
    if (ids.length >= 2)
      Promise.all(ids.slice(1).map((b) => api['stats.compare']({ runA: ids[0]!, runB: b })))
        .then((r) => !stale && setPairs(r))
        .catch((e: unknown) => !stale && setError(userError(e).message));
    else setPairs([]);
    return () => {
      stale = true;
    };
  }, [key]);
  return { loaded: loaded.filter((l) => ids.includes(l.runId)), pairs, error };
}

export function ComparePage() {
  const { params, link } = useNav();
  const { runs, refreshList } = useRuns();
  // The runs, then (optionally) the task whose episodes are shown side by side.
  const ids = [...new Set(params.filter((p) => !p.startsWith(SIDE_BY_SIDE_PREFIX)))];
  const sideTask = sideBySideTask(params);
  const { loaded, pairs, error } = useCompareData(ids);
  useEffect(() => void refreshList(), [refreshList]);
  const title = (id: string) => runs.find((r) => r.id === id)?.title ?? id;
  const letter = (i: number) => String.fromCharCode(65 + i);
  const ready = loaded.length === ids.length && ids.length >= 2;
  const baseline = ready ? loaded[0]! : null;
  const rows = ready
    ? compareRows(
        baseline!.episodes,
        loaded.slice(1).map((other) => other.episodes),
      )
    : [];
  const letters = ids.map((_, i) => letter(i));
  const sideRow = sideTask ? (rows.find((r) => r.taskId === sideTask) ?? null) : null;
  /** Run i's tasks against A (i >= 1). */
  const pairChanges = (i: number) => rows.map((row) => row.changes[i - 1]!);
  const settings = ready
    ? configDiff(
        loaded.map((l) => ({ ...l.manifest.config, tasks: l.manifest.config.tasks.length, containers: undefined })),
      )
    : [];

  return (
    <section className="compare-page" data-testid="page-compare" data-runs={ids.join(',')}>
      <ComparedRuns ids={ids} runs={runs} letter={letter} title={title} onRuns={(next) => link('compare', next)} />
      {ids.length < 2 && (
        <p className="muted">
          Pick two or more runs: the first is the baseline (A). Or check runs on the Runs page and press Compare.
        </p>
      )}
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      {pairs
        .filter((r) => ids.indexOf(r.b.run) > 0)
        .map((r) => {
          const i = ids.indexOf(r.b.run);
          return (
            <section key={r.b.run} className="run-compare" data-testid="run-compare" data-letter={letter(i)}>
              <h2>{letter(i)} vs A: paired tests</h2>
              <PairedComparison r={r} letter={letter(i)} changes={ready ? pairChanges(i) : undefined} />
            </section>
          );
        })}
      {ready && (
        <>
          <h2>Tasks</h2>
          <div data-testid="compare-summary">
            {ids.slice(1).map((id, k) => (
              <p key={id} data-testid="pair-summary" data-letter={letter(k + 1)}>
                {pairSummary(pairChanges(k + 1), letter(k + 1))}
              </p>
            ))}
          </div>
          {sideRow && <SideBySide ids={ids} letters={letters} row={sideRow} onClose={() => link('compare', ids)} />}
          <TaskDiffTable ids={ids} letters={letters} rows={rows} />
          <h2>Settings that differ</h2>
          <SettingsDiff ids={ids} letter={letter} settings={settings} />
        </>
      )}
    </section>
  );
}

/** The compared runs, lettered from A (the baseline), each removable, and a picker that adds one. */
function ComparedRuns({
  ids,
  runs,
  letter,
  title,
  onRuns,
}: {
  ids: string[];
  runs: RunListing[];
  letter(i: number): string;
  title(id: string): string;
  onRuns(ids: string[]): void;
}) {
  return (
    <div className="toolbar">
      <ol className="compare-runs">
        {ids.map((id, i) => (
          <li key={id} data-testid="compare-run" data-run={id}>
            <b>{letter(i)}</b> {title(id)} <span className="run-id">{id}</span>{' '}
            <button type="button" aria-label={`remove ${id}`} onClick={() => onRuns(ids.filter((x) => x !== id))}>
              ×
            </button>
          </li>
        ))}
      </ol>
      <select
        value=""
        onChange={(e) => e.target.value && onRuns([...ids, e.target.value])}
        data-testid="compare-add"
        aria-label="add a run"
      >
        <option value="">add a run…</option>
        {runs
          .filter((r) => !ids.includes(r.id) && r.done > 0)
          .map((r) => (
            <option key={r.id} value={r.id}>
              {r.title} · {r.id}
            </option>
          ))}
      </select>
    </div>
  );
}

/** The settings whose values differ between the runs, a column per run (long values cut from the left). */
function SettingsDiff({
  ids,
  letter,
  settings,
}: {
  ids: string[];
  letter(i: number): string;
  settings: { path: string; values: string[] }[];
}) {
  if (settings.length === 0)
    return (
      <p className="muted" data-testid="config-diff">
        Same settings.
      </p>
    );
  return (
    <table className="grid" data-testid="config-diff">
      <thead>
        <tr>
          <th>setting</th>
          {ids.map((id, i) => (
            <th key={id}>{letter(i)}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {settings.map((s) => (
          <tr key={s.path} data-path={s.path}>
            <td>{s.path}</td>
            {s.values.map((v, i) => (
              <td key={i} title={v}>
                {v.length > 60 ? `…${v.slice(-59)}` : v}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
