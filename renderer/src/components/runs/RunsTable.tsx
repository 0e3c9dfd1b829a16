/**
 * The runs table: a name (or a readable title) over the id, results or settings columns, every column
 * sortable, a filter (`tag:`, `state:`, `stage:` or free words), tags as chips that filter when clicked,
 * and a grouping (by stage, tag, training run, suite, policy or state) with a collapsible heading per group.
 * Fixed layout: at 1024 px nothing wraps into tall rows and the page never scrolls sideways.
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { RunListing, RunProgress } from '../../../../electron/domain/runs';
import { onRowKey } from '../common/row-keys';
import { useSort, type SortValue } from '../common/sortable';
import { matchesRunFilter } from './run-filter';
import { GROUP_KEYS, GROUP_LABELS, groupRuns, groupSpreads, type GroupKey, type RunGroup } from './run-groups';
import type { Spread } from '../../../../electron/domain/seed-groups';
import './run-groups.css';
import { formatCount, formatDuration, formatNumber, formatRate, formatStarted } from './run-format';
import { loadRunsTableView, MAX_EXTRA_COLUMNS, saveRunsTableView, type RunsTableView } from './runs-table-view';
import { fieldKeys, formatField } from './run-fields-view';
import { RunsScatter } from './RunsScatter';
import { RunsParallel } from './RunsParallel';
import { displayedRunState } from './run-state';

type View = RunsTableView['columns'];

interface Props {
  runs: RunListing[];
  progress: Record<string, RunProgress>;
  selected: string | null;
  checked: string[];
  onPick(runId: string): void;
  onCheck(runId: string): void;
}

export function RunsTable({ runs, progress, selected, checked, onPick, onCheck }: Props) {
  // Filter, columns, grouping and sort survive a reload (kept in the browser's storage).
  const [stored] = useState(loadRunsTableView);
  const [filter, setFilter] = useState(stored.filter);
  const [view, setView] = useState<View>(stored.columns);
  const [groupBy, setGroupBy] = useState<GroupKey>(stored.groupBy);
  const [sort, setSort] = useState(stored.sort);
  const [extra, setExtra] = useState(stored.extra);
  useEffect(
    () => saveRunsTableView({ filter, columns: view, groupBy, sort, extra }),
    [filter, view, groupBy, sort, extra],
  );
  const [collapsed, setCollapsed] = useState<string[]>([]);
  const stateOf = (r: RunListing) => displayedRunState(r, progress[r.id]);
  const shown = runs.filter((r) => matchesRunFilter(r, filter, stateOf(r)));
  const { sorted, header } = useSort(shown, runSortKeys(extra, stateOf), stored.sort, setSort);
  const addWord = (word: string) => setFilter((f) => (f.split(/\s+/).includes(word) ? f : `${f} ${word}`.trim()));
  const row = (r: RunListing) => (
    <RunRow
      key={r.id}
      run={r}
      done={progress[r.id]?.done ?? r.done}
      state={stateOf(r)}
      view={view}
      extra={extra}
      selected={r.id === selected}
      checked={checked.includes(r.id)}
      onPick={onPick}
      onCheck={onCheck}
      onTag={(t) => addWord(`tag:${t}`)}
    />
  );

  return (
    <div className="runs-table-wrap">
      <RunsToolbar
        filter={filter}
        onFilter={setFilter}
        view={view}
        onView={setView}
        groupBy={groupBy}
        onGroupBy={(g) => {
          setGroupBy(g);
          setCollapsed([]);
        }}
        keys={fieldKeys(runs)}
        extra={extra}
        onAddColumn={(k) => setExtra((x) => [...x, k].slice(0, MAX_EXTRA_COLUMNS))}
        count={shown.length === runs.length ? `${runs.length} runs` : `${shown.length} of ${runs.length} runs`}
      />
      <div className={groupBy === 'none' ? 'runs-list-pane' : 'runs-list-pane grouped'}>
        <table className={`grid runs runs-${view}`} data-testid="runs">
          <RunsColumns view={view} extra={extra} />
          <RunsHead header={header} view={view} extra={extra} />
          {groupBy === 'none' ? (
            <tbody>{sorted.map(row)}</tbody>
          ) : (
            groupRuns(sorted, groupBy, stateOf).map((g) => {
              const closed = collapsed.includes(g.key);
              const toggle = () => setCollapsed((c) => (closed ? c.filter((k) => k !== g.key) : [...c, g.key]));
              return (
                <RunGroupBody
                  key={g.key}
                  group={g}
                  closed={closed}
                  onToggle={toggle}
                  view={view}
                  extra={extra}
                  row={row}
                />
              );
            })
          )}
        </table>
      </div>
      <RunsScatter runs={shown} checked={checked} onPick={onPick} />
      <RunsParallel runs={shown} checked={checked} extra={extra} />
    </div>
  );
}

/** Sort keys by column: the results and settings columns, the added fields (`f:KEY`), stage, tags and state. */
function runSortKeys(
  extra: string[],
  stateOf: (r: RunListing) => string,
): Record<string, (r: RunListing) => SortValue> {
  return {
    run: (r) => r.title.toLowerCase(),
    started: (r) => r.createdAt,
    episodes: (r) => r.done,
    resolved: (r) => r.resolvedRate,
    reward: (r) => r.meanReward,
    turns: (r) => r.meanTurns,
    tokens: (r) => r.tokens,
    duration: (r) => r.durationMs,
    stage: (r) => (r.lineage ? `${r.lineage.stage ?? ''} ${String(r.lineage.step).padStart(9, '0')}` : null),
    tags: (r) => r.tags.join(' ') || null,
    state: stateOf,
    ...Object.fromEntries(extra.map((k) => [`f:${k}`, (r: RunListing) => r.fields?.[k] ?? null])),
    policy: (r) => r.policy,
    suite: (r) => r.suite,
    attempts: (r) => r.attempts,
    temperature: (r) => r.temperature,
    maxTurns: (r) => r.maxTurns,
    seed: (r) => r.seed,
  };
}

interface ToolbarProps {
  filter: string;
  onFilter(filter: string): void;
  view: View;
  onView(view: View): void;
  groupBy: GroupKey;
  onGroupBy(groupBy: GroupKey): void;
  keys: string[];
  extra: string[];
  onAddColumn(key: string): void;
  count: string;
}

/** The filter, the columns (results or settings), the grouping, an added column, and how many runs are shown. */
function RunsToolbar({
  filter,
  onFilter,
  view,
  onView,
  groupBy,
  onGroupBy,
  keys,
  extra,
  onAddColumn,
  count,
}: ToolbarProps) {
  return (
    <div className="toolbar runs-filter-bar">
      <input
        type="search"
        className="runs-filter"
        data-testid="runs-filter"
        placeholder="filter: words, tag:NAME, state:running, stage:sft"
        aria-label="filter runs"
        value={filter}
        onChange={(e) => onFilter(e.target.value)}
      />
      <label className="filter">
        columns
        <select value={view} onChange={(e) => onView(e.target.value as View)} data-testid="runs-columns">
          <option value="results">results</option>
          <option value="settings">settings</option>
        </select>
      </label>
      <label className="filter">
        group
        <select value={groupBy} onChange={(e) => onGroupBy(e.target.value as GroupKey)} data-testid="runs-group">
          {GROUP_KEYS.map((k) => (
            <option key={k} value={k}>
              {GROUP_LABELS[k]}
            </option>
          ))}
        </select>
      </label>
      <label className="filter">
        + column
        <select
          value=""
          onChange={(e) => e.target.value && onAddColumn(e.target.value)}
          disabled={extra.length >= MAX_EXTRA_COLUMNS}
          data-testid="runs-add-column"
          title="a setting (config.…) or a result (summary.…) of the runs as a column: sortable, and filterable as KEY=VALUE, KEY>N, KEY<N"
        >
          <option value="">add…</option>
          {keys
            .filter((k) => !extra.includes(k))
            .map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
        </select>
      </label>
      <span className="muted" data-testid="runs-count">
        {count}
      </span>
    </div>
  );
}

/** Column widths: fixed layout, so that at 1024 px nothing wraps. */
function RunsColumns({ view, extra }: { view: View; extra: string[] }) {
  return (
    <colgroup>
      <col className="c-check" />
      <col className="c-run" />
      <col className="c-started" />
      {view === 'results' ? (
        <>
          <col className="c-num" />
          <col className="c-num" />
          <col className="c-num" />
          <col className="c-num" />
          <col className="c-num" />
          <col className="c-num" />
        </>
      ) : (
        <>
          <col className="c-policy" />
          <col className="c-suite" />
          <col className="c-num" />
          <col className="c-num" />
          <col className="c-num" />
          <col className="c-num" />
        </>
      )}
      {extra.map((k) => (
        <col key={k} className="c-extra" />
      ))}
      <col className="c-stage" />
      <col className="c-tags" />
      <col className="c-state" />
    </colgroup>
  );
}

/** The sortable headers of the shown columns. */
function RunsHead({
  header,
  view,
  extra,
}: {
  header: (key: string, label: string, title?: string) => ReactNode;
  view: View;
  extra: string[];
}) {
  return (
    <thead>
      <tr>
        <th aria-label="compare" />
        {header('run', 'run')}
        {header('started', 'started')}
        {view === 'results' ? (
          <>
            {header('episodes', 'eps')}
            {header('resolved', 'resolved')}
            {header('reward', 'reward')}
            {header('turns', 'turns')}
            {header('tokens', 'tokens')}
            {header('duration', 'time')}
          </>
        ) : (
          <>
            {header('policy', 'policy')}
            {header('suite', 'suite')}
            {header('attempts', 'attempts')}
            {header('temperature', 'temp')}
            {header('maxTurns', 'max turns')}
            {header('seed', 'seed')}
          </>
        )}
        {extra.map((k) => header(`f:${k}`, k.split('.').slice(-1)[0]!, `${k} (click to sort)`))}
        {header('stage', 'stage')}
        {header('tags', 'tags')}
        {header('state', 'state')}
      </tr>
    </thead>
  );
}

/** A group's heading (click to fold): its label and count, then under each metric column the runs' mean over their min..max. */
function RunGroupBody({
  group: g,
  closed,
  onToggle,
  view,
  extra,
  row,
}: {
  group: RunGroup;
  closed: boolean;
  onToggle(): void;
  view: View;
  extra: string[];
  row(r: RunListing): ReactNode;
}) {
  const spreads = groupSpreads(g.runs, extra);
  const n = g.runs.length;
  const cell = (key: string, format: (v: number) => string) => (
    <SpreadCell key={key} columnKey={key} spread={spreads[key] ?? null} runs={n} format={format} />
  );
  return (
    <tbody data-testid="run-group" data-group={g.key} data-count={n}>
      <tr
        className="group-row clickable"
        onClick={onToggle}
        onKeyDown={onRowKey(onToggle)}
        tabIndex={0}
        aria-expanded={!closed}
        data-testid="run-group-head"
      >
        <td
          colSpan={3}
          title={`${g.label}\n${n} run${n === 1 ? '' : 's'}; under each metric: the runs' mean, and their min–max`}
        >
          <span className="group-caret">{closed ? '▸' : '▾'}</span>{' '}
          <strong data-testid="run-group-label">{g.label}</strong>{' '}
          <span className="muted">
            {n} run{n === 1 ? '' : 's'}
            {g.meanResolved !== null ? ` · mean resolved ${formatRate(g.meanResolved)}` : ''}
          </span>
        </td>
        {view === 'results' ? (
          <>
            <td />
            {cell('resolved', formatRate)}
            {cell('reward', (v) => formatNumber(v))}
            {cell('turns', (v) => formatNumber(v, 1))}
            {cell('tokens', (v) => formatCount(Math.round(v)))}
            {cell('duration', formatDuration)}
          </>
        ) : (
          <td colSpan={6} />
        )}
        {extra.map((k) => cell(`f:${k}`, (v) => formatField(v)))}
        <td colSpan={3} />
      </tr>
      {!closed && g.runs.map(row)}
    </tbody>
  );
}

/** A group's metric: the mean, and under it the band (min–max) when the runs differ. */
function SpreadCell({
  columnKey,
  spread,
  runs,
  format,
}: {
  columnKey: string;
  spread: Spread | null;
  runs: number;
  format(v: number): string;
}) {
  if (!spread) return <td data-key={columnKey} />;
  const band = `${format(spread.min)}–${format(spread.max)}`;
  return (
    <td
      data-key={columnKey}
      className="group-spread"
      data-testid="group-spread"
      data-mean={spread.mean}
      data-min={spread.min}
      data-max={spread.max}
      data-n={spread.n}
      title={`mean ${format(spread.mean)} over ${spread.n} of ${runs} runs; min–max ${band}`}
    >
      <div className="spread-mean">{format(spread.mean)}</div>
      {spread.n > 1 && <div className="spread-band">{band}</div>}
    </td>
  );
}

interface RowProps {
  run: RunListing;
  /** Episodes done (the live count while it runs). */
  done: number;
  state: string;
  view: View;
  extra: string[];
  selected: boolean;
  checked: boolean;
  onPick(runId: string): void;
  onCheck(runId: string): void;
  onTag(tag: string): void;
}

/** One run: its check box, title over id, start, the results or settings, the added fields, stage, tag chips and state. */
function RunRow({ run: r, done, state, view, extra, selected, checked, onPick, onCheck, onTag }: RowProps) {
  return (
    <tr
      tabIndex={0}
      className={selected ? 'clickable selected' : 'clickable'}
      onClick={() => onPick(r.id)}
      onKeyDown={onRowKey(() => onPick(r.id))}
      data-testid="run-row"
      data-run={r.id}
    >
      <td onClick={(e) => e.stopPropagation()}>
        <input type="checkbox" aria-label={`compare ${r.id}`} checked={checked} onChange={() => onCheck(r.id)} />
      </td>
      <td data-key="run" title={`${r.title}\n${r.id}${r.notes ? `\n\n${r.notes}` : ''}`}>
        <div className="run-title" data-testid="run-title">
          {r.title}
        </div>
        <div className="run-id" data-testid="run-id">
          {r.id}
        </div>
      </td>
      <td data-key="started" title={new Date(r.createdAt).toLocaleString()}>
        {formatStarted(r.createdAt)}
      </td>
      {view === 'results' ? (
        <>
          <td data-key="episodes">
            {done}/{r.total}
          </td>
          <td data-key="resolved">{formatRate(r.resolvedRate)}</td>
          <td
            data-key="reward"
            title={r.meanFraction === null ? '' : `mean dense reward; ${formatRate(r.meanFraction)} of assertions`}
          >
            {formatNumber(r.meanReward)}
          </td>
          <td data-key="turns">{formatNumber(r.meanTurns, 1)}</td>
          <td data-key="tokens" title={String(r.tokens)}>
            {formatCount(r.tokens)}
          </td>
          <td data-key="duration">{formatDuration(r.durationMs)}</td>
        </>
      ) : (
        <>
          <td data-key="policy" title={r.policy}>
            {r.policy.split('/').slice(-1)[0]}
          </td>
          <td data-key="suite" title={r.suite}>
            {r.suite.split('/').slice(-1)[0]}
          </td>
          <td data-key="attempts">{r.attempts}</td>
          <td data-key="temperature">{r.temperature ?? '—'}</td>
          <td data-key="maxTurns">{r.maxTurns}</td>
          <td data-key="seed">{r.seed}</td>
        </>
      )}
      {extra.map((k) => (
        <td key={k} data-key={`f:${k}`} title={`${k}: ${formatField(r.fields?.[k])}`}>
          {formatField(r.fields?.[k])}
        </td>
      ))}
      <td data-key="stage" title={r.lineage ? `${r.lineage.trainingRun} · step ${r.lineage.step}` : ''}>
        {r.lineage ? `${r.lineage.stage ?? '?'} · ${r.lineage.step}` : '—'}
      </td>
      <td data-key="tags" title={r.tags.join(' ')}>
        <span className="tag-chips">
          {r.tags.map((t) => (
            <button
              key={t}
              type="button"
              className="tag-chip"
              data-testid="tag-chip"
              title={`show runs tagged ${t}`}
              onClick={(e) => {
                e.stopPropagation();
                onTag(t);
              }}
            >
              {t}
            </button>
          ))}
        </span>
      </td>
      <td data-key="state">{state}</td>
    </tr>
  );
}
