/** Sortable table columns: click a header (or Enter on it) to sort by it, again to reverse. */
import { useMemo, useState } from 'react';

export type SortValue = string | number | boolean | null;

export interface SortState {
  key: string;
  dir: 1 | -1;
}

/** `onSort`: told each new sort (a table that keeps its view across reloads stores it). */
export function useSort<T>(
  rows: readonly T[],
  columns: Record<string, (row: T) => SortValue>,
  initial: SortState,
  onSort?: (sort: SortState) => void,
) {
  const [sort, setSortState] = useState(initial);
  const setSort = (next: SortState) => {
    setSortState(next);
    onSort?.(next);
  };
  const sorted = useMemo(() => {
    const get = columns[sort.key];
    if (!get) return [...rows];
    return [...rows].sort((a, b) => {
      const x = get(a);
      const y = get(b);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sort.dir;
    });
    // `columns` is rebuilt each render: the rows and the sort key decide the order.
  }, [rows, sort]);
  const header = (key: string, label: string, title?: string) => (
    <th
      key={key}
      title={title}
      aria-sort={sort.key === key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}
      className="sortable"
      tabIndex={0}
      data-sort={key}
      onClick={() => setSort({ key, dir: sort.key === key ? (-sort.dir as 1 | -1) : 1 })}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          setSort({ key, dir: sort.key === key ? (-sort.dir as 1 | -1) : 1 });
        }
      }}
    >
      {label}
      {sort.key === key ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}
    </th>
  );
  return { sorted, header };
}
