/** The skew of a corpus: counts by category, difficulty and family, and the share of the top 5 categories. */
import type { Task } from '../model';

export interface CorpusStats {
  count: number;
  categories: Record<string, number>;
  difficulties: Record<string, number>;
  families: Record<string, number>;
  /** Share of the corpus in its five largest categories (the paper's pool: 0.679). */
  top5Share: number;
}

export type StatsTask = Pick<Task, 'metadata'>;

export function familyOf(task: StatsTask): string {
  const f = task.metadata.extra.family;
  return typeof f === 'string' && f ? f : '(none)';
}

/** Counts sorted by count (largest first), then name, so JSON output reads as a ranking. */
export function ranked(counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

export function corpusStats(tasks: Iterable<StatsTask>): CorpusStats {
  const cats = new Map<string, number>();
  const diffs = new Map<string, number>();
  const fams = new Map<string, number>();
  let count = 0;
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const t of tasks) {
    count++;
    bump(cats, t.metadata.category);
    bump(diffs, t.metadata.difficulty ?? 'unknown');
    bump(fams, familyOf(t));
  }
  const top5 = [...cats.values()]
    .sort((a, b) => b - a)
    .slice(0, 5)
    .reduce((a, b) => a + b, 0);
  return {
    count,
    categories: ranked(cats),
    difficulties: ranked(diffs),
    families: ranked(fams),
    top5Share: count ? Math.round((top5 / count) * 10000) / 10000 : 0,
  };
}
