/**
 * The runs table's view (filter, columns, grouping, sort, columns of your choosing) kept in the browser's storage, so a reload or a
 * visit to another page comes back to the same table. What is read back is checked: a stored value from
 * an older version, or edited by hand, falls back to the default instead of breaking the page.
 */
import { readStored, writeStored } from '../../lab/stored-list';
import { GROUP_KEYS, type GroupKey } from './run-groups';

export const RUNS_TABLE_VIEW_KEY = 't1lab.runs-table';

export interface RunsTableView {
  filter: string;
  columns: 'results' | 'settings';
  groupBy: GroupKey;
  sort: { key: string; dir: 1 | -1 };
  /** Columns of your choosing: run fields (`config.seed`, `summary.resolvedRate`), in the order added. */
  extra: string[];
}

/** At most this many columns of your choosing (the table keeps a fixed layout at 1024 px). */
export const MAX_EXTRA_COLUMNS = 6;

export const DEFAULT_RUNS_TABLE_VIEW: RunsTableView = {
  filter: '',
  columns: 'results',
  groupBy: 'none',
  sort: { key: 'started', dir: -1 },
  extra: [],
};

/** A stored view, each field checked on its own (a bad one takes its default). */
export function parseRunsTableView(text: string | null): RunsTableView {
  let raw: unknown;
  try {
    raw = text ? JSON.parse(text) : null;
  } catch {
    raw = null;
  }
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const d = DEFAULT_RUNS_TABLE_VIEW;
  const sort = (o.sort && typeof o.sort === 'object' ? o.sort : {}) as Record<string, unknown>;
  return {
    filter: typeof o.filter === 'string' ? o.filter : d.filter,
    columns: o.columns === 'settings' || o.columns === 'results' ? o.columns : d.columns,
    groupBy: GROUP_KEYS.includes(o.groupBy as GroupKey) ? (o.groupBy as GroupKey) : d.groupBy,
    sort:
      typeof sort.key === 'string' && (sort.dir === 1 || sort.dir === -1) ? { key: sort.key, dir: sort.dir } : d.sort,
    extra: Array.isArray(o.extra)
      ? [
          ...new Set(o.extra.filter((k): k is string => typeof k === 'string' && k.length > 0 && k.length <= 200)),
        ].slice(0, MAX_EXTRA_COLUMNS)
      : d.extra,
  };
}

export function loadRunsTableView(): RunsTableView {
  return parseRunsTableView(readStored(RUNS_TABLE_VIEW_KEY));
}

export function saveRunsTableView(view: RunsTableView): void {
  writeStored(RUNS_TABLE_VIEW_KEY, view);
}
