/** The runs' fields as the table and the scatter plot show them: the keys the runs have, values as text. */
import type { RunListing } from '../../../../electron/domain/runs';

/** Every field key of the runs, results (`summary.…`) first, each once, sorted within its kind. */
export function fieldKeys(runs: readonly RunListing[]): string[] {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.fields ?? {})))];
  const rank = (k: string) => (k.startsWith('summary.') ? 0 : 1);
  return keys.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The keys whose values are numbers in some run (what a scatter plot can place). */
export function numericKeys(runs: readonly RunListing[]): string[] {
  return fieldKeys(runs).filter((k) => runs.some((r) => typeof r.fields?.[k] === 'number'));
}

export { formatField } from '../../../../electron/domain/run-fields';
