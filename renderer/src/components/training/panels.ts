/**
 * From metric keys to chart panels: a family (`reward_dense/<category>` for every category) is one panel
 * with a line per category, a plain key is a panel of its own; the panel search (a regular expression)
 * keeps the panels whose name matches; rates get a [0, 1] axis.
 */

export interface Panel {
  /** `reward_dense/*` for a family, else the metric key. */
  id: string;
  /** The keys drawn, with their line labels (the category for a family). */
  lines: { key: string; label: string }[];
  family: boolean;
}

/** Families need at least this many members; a lone `a/b` stays a panel of its own. */
const MIN_FAMILY = 2;

export function toPanels(keys: readonly string[]): Panel[] {
  const families = new Map<string, string[]>();
  for (const k of keys) {
    const slash = k.indexOf('/');
    if (slash <= 0) continue;
    const family = k.slice(0, slash);
    families.set(family, [...(families.get(family) ?? []), k]);
  }
  const panels: Panel[] = [];
  const done = new Set<string>();
  for (const k of keys) {
    if (done.has(k)) continue;
    const slash = k.indexOf('/');
    const members = slash > 0 ? families.get(k.slice(0, slash)) : undefined;
    if (members && members.length >= MIN_FAMILY) {
      const family = k.slice(0, slash);
      const sorted = [...members].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      for (const m of sorted) done.add(m);
      panels.push({
        id: `${family}/*`,
        family: true,
        lines: sorted.map((m) => ({ key: m, label: m.slice(family.length + 1) })),
      });
    } else {
      done.add(k);
      panels.push({ id: k, family: false, lines: [{ key: k, label: k }] });
    }
  }
  return panels;
}

/** The panel search as a test: a regular expression (case-insensitive), or the plain text when it is not one. */
export function panelMatcher(filter: string): { test(id: string): boolean; error: string | null } {
  const f = filter.trim();
  if (!f) return { test: () => true, error: null };
  try {
    const re = new RegExp(f, 'i');
    return { test: (id) => re.test(id), error: null };
  } catch (e) {
    const needle = f.toLowerCase();
    return {
      test: (id) => id.toLowerCase().includes(needle),
      error: `not a regular expression (${(e as Error).message}): matching the text instead`,
    };
  }
}

const RATE_NAME = /(resolved|fraction|binary|rate|clipfrac|share|agreement|accuracy|pass)/i;

/**
 * A y range for values that uPlot would stretch badly: a rate (by name, every value in [0, 1]) or an
 * all-zero series gets [0, 1]; another constant series a band around its value; else null (automatic).
 */
export function yRangeFor(id: string, values: Iterable<number>): [number, number] | null {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  if (min === Infinity) return [0, 1];
  if (min >= 0 && max <= 1 && (RATE_NAME.test(id) || max === 0)) return [0, 1];
  if (min === max) {
    const pad = Math.abs(min) * 0.5 || 1;
    return [min - pad, max + pad];
  }
  return null;
}

/** Tick steps for an x axis whose values are whole numbers (steps, tokens, seconds): never 1.5 steps. */
export const INTEGER_INCRS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8,
  2e8, 5e8, 1e9, 2e9, 5e9, 1e10,
];
export const SECOND_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/**
 * A panel whose every line holds one value (a learning rate without schedule, a drift that stays 0, a
 * counter never hit) says nothing a glance at one number would not: the grid hides it unless asked.
 * A line with no finite value counts as constant; a panel with no line at all is not hidden.
 */
export function isConstantPanel(lines: readonly (readonly number[])[]): boolean {
  if (!lines.length) return false;
  let first: number | null = null;
  for (const values of lines)
    for (const v of values) {
      if (!Number.isFinite(v)) continue;
      if (first === null) first = v;
      else if (v !== first) return false;
    }
  return true;
}

/** A chart of several metrics, named by its keys joined with `+` (`pg_loss+vf_loss`), as the address keeps it. */
export const COMBINE_SEPARATOR = '+';

/** The metric keys a combined chart's text names (`pg_loss + vf_loss`, `pg_loss,vf_loss`): trimmed, each once. */
export function parseCombined(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[+,]/)
        .map((k) => k.trim())
        .filter(Boolean),
    ),
  ];
}

/**
 * A combined chart: one line per named metric the runs log (colour = metric, dashes = runs, as a family), or
 * null when fewer than two of them are logged.
 */
export function combinedPanel(id: string, keys: readonly string[]): Panel | null {
  const known = new Set(keys);
  const lines = parseCombined(id)
    .filter((k) => known.has(k))
    .map((k) => ({ key: k, label: k }));
  return lines.length >= 2 ? { id: lines.map((l) => l.key).join(COMBINE_SEPARATOR), family: true, lines } : null;
}
