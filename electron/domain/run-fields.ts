/**
 * A run's settings and results as flat fields (`config.policySettings.temperature`, `summary.resolvedRate`),
 * so the runs table can show, sort and filter any of them as a column and plot one against another.
 */
import { z } from 'zod';

export const RunFieldValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type RunFieldValue = z.infer<typeof RunFieldValue>;
export const RunFields = z.record(z.string(), RunFieldValue);
export type RunFields = z.infer<typeof RunFields>;

/** Config entries too long or too nested to be a column: the task list is counted, the rest left out. */
const COUNTED = new Set(['tasks']);
const LEFT_OUT = new Set(['containers']);

function flattenInto(value: unknown, path: string, out: RunFields): void {
  if (value === undefined) return;
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    out[path] = value;
  else if (Array.isArray(value)) out[path] = JSON.stringify(value);
  else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) flattenInto(v, `${path}.${k}`, out);
}

/** `config.*` from the run's settings (run.json's config) and `summary.*` from its results. */
export function runFields(config: Record<string, unknown>, summary: Record<string, number | null>): RunFields {
  const out: RunFields = {};
  for (const [k, v] of Object.entries(config)) {
    if (LEFT_OUT.has(k)) continue;
    if (COUNTED.has(k) && Array.isArray(v)) out[`config.${k}`] = v.length;
    else flattenInto(v, `config.${k}`, out);
  }
  for (const [k, v] of Object.entries(summary)) out[`summary.${k}`] = v;
  return out;
}

/** A field condition of the runs filter: `KEY=VALUE`, `KEY>N` or `KEY<N` on a dotted key; null for another word. */
export function parseFieldCondition(word: string): { key: string; op: '=' | '>' | '<'; value: string } | null {
  const m = /^([a-z][\w]*(?:\.[\w]+)+)(=|>|<)(.*)$/i.exec(word);
  return m ? { key: m[1]!, op: m[2] as '=' | '>' | '<', value: m[3]! } : null;
}

/** Whether a run's fields meet a condition (keys compared case-insensitively; > and < on numbers only). */
export function meetsFieldCondition(
  fields: RunFields,
  c: { key: string; op: '=' | '>' | '<'; value: string },
): boolean {
  const key = Object.keys(fields).find((k) => k.toLowerCase() === c.key.toLowerCase());
  if (key === undefined) return false;
  const v = fields[key];
  if (c.op === '=') return String(v).toLowerCase() === c.value.toLowerCase();
  const n = Number(c.value);
  if (typeof v !== 'number' || !Number.isFinite(n)) return false;
  return c.op === '>' ? v > n : v < n;
}

/** A field's value as a table cell shows it: numbers to 4 significant digits, none as a dash. */
export function formatField(v: RunFieldValue | undefined): string {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  return String(v);
}
