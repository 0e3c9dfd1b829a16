/**
 * Ablation grids: `"reward=dense,binary tito=exact,retokenize r3=on,off"` names axes and their values; the
 * cells are every combination, and the baseline is the cell of each axis's first value (the paper's
 * recipe when written first). Cell names are stable folder names, so a rerun finds its cells again.
 */
export interface GridAxis {
  key: string;
  values: string[];
}

export type Cell = Record<string, string>;

const KEY = /^[a-z][a-z0-9_]*$/;
const VALUE = /^[A-Za-z0-9._-]+$/;

export function parseGrid(spec: string): GridAxis[] {
  const axes: GridAxis[] = [];
  for (const part of spec.trim().split(/\s+/).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`--grid: '${part}' is not KEY=V1,V2`);
    const key = part.slice(0, eq);
    const values = part.slice(eq + 1).split(',');
    if (!KEY.test(key)) throw new Error(`--grid: '${key}' is not a config key (lowercase letters, digits, _)`);
    if (axes.some((a) => a.key === key)) throw new Error(`--grid: axis '${key}' is given twice`);
    for (const v of values)
      if (!VALUE.test(v))
        throw new Error(
          `--grid: value '${v}' of '${key}' is empty or has characters other than letters, digits, '.', '_', '-'`,
        );
    if (new Set(values).size !== values.length) throw new Error(`--grid: axis '${key}' repeats a value`);
    axes.push({ key, values });
  }
  if (axes.length === 0) throw new Error('--grid: no axis given (e.g. "reward=dense,binary")');
  return axes;
}

export function gridCells(axes: readonly GridAxis[]): Cell[] {
  let cells: Cell[] = [{}];
  for (const axis of axes) cells = cells.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.key]: v })));
  return cells;
}

export function baselineCell(axes: readonly GridAxis[]): Cell {
  return Object.fromEntries(axes.map((a) => [a.key, a.values[0]!]));
}

/** `reward-dense_tito-exact`: a folder name that reads as the cell. */
export function cellName(cell: Cell): string {
  return Object.entries(cell)
    .map(([k, v]) => `${k}-${v}`)
    .join('_');
}

export function cellLabel(cell: Cell): string {
  return Object.entries(cell)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
