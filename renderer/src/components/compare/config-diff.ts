/** The settings of several runs, flattened to `a.b.c` paths, keeping only the paths whose values differ. */
export type Flat = Record<string, string>;

export function flatten(value: unknown, prefix = '', out: Flat = {}): Flat {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out[prefix] = Array.isArray(value) ? JSON.stringify(value) : String(value);
  }
  return out;
}

/** Rows [path, value per run] where the runs disagree (a path missing from a run reads as '—'). */
export function configDiff(configs: readonly unknown[]): { path: string; values: string[] }[] {
  const flats = configs.map((c) => flatten(c));
  const paths = [...new Set(flats.flatMap((f) => Object.keys(f)))].sort();
  return paths
    .map((path) => ({ path, values: flats.map((f) => f[path] ?? '—') }))
    .filter((row) => new Set(row.values).size > 1);
}
