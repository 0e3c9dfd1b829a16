/** Helpers for families that write Python: literals of TS values, and indentation. */

/** A Python literal for a JSON-like value (True/False/None, lists, dicts, str, int, float). */
export function pyLit(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyLit).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${JSON.stringify(k)}: ${pyLit(x)}`)
    .join(', ')}}`;
}

export function indent(code: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return code
    .split('\n')
    .map((l) => (l.trim() ? pad + l : l))
    .join('\n');
}
