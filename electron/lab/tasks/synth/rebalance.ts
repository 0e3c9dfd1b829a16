/**
 * Stratified subsets: choose `count` tasks whose category and difficulty mix comes as close as the
 * source allows to a target mix. Quotas by largest remainder over what the source has; tasks are taken
 * in a seeded order, first where both the category and the difficulty quota have room, then (to reach
 * the count) where one of them does, then anywhere.
 */
import { createFamilyRng } from '../../../../tasks/families/rng';
import type { TargetMix } from './targets';
import type { StatsTask } from './corpus-mix';

/** Integer quotas summing to `total`, proportional to `weights` (largest remainder), capped by `available`. */
export function quotas(
  weights: Record<string, number>,
  available: Map<string, number>,
  total: number,
): Map<string, number> {
  const keys = Object.keys(weights).filter((k) => (available.get(k) ?? 0) > 0 && (weights[k] ?? 0) > 0);
  const out = new Map<string, number>(keys.map((k) => [k, 0]));
  let left = total;
  // Repeat: spread what is left over the keys that still have room, in proportion to their weight.
  while (left > 0) {
    const open = keys.filter((k) => out.get(k)! < available.get(k)!);
    if (!open.length) break;
    const sum = open.reduce((s, k) => s + weights[k]!, 0);
    const share = open.map((k) => ({ k, exact: (left * weights[k]!) / sum }));
    let given = 0;
    for (const s of share) {
      const room = available.get(s.k)! - out.get(s.k)!;
      const n = Math.min(room, Math.floor(s.exact));
      out.set(s.k, out.get(s.k)! + n);
      given += n;
    }
    const rest = share.sort((a, b) => (b.exact % 1) - (a.exact % 1) || (a.k < b.k ? -1 : 1));
    for (const s of rest) {
      if (given >= left) break;
      if (out.get(s.k)! < available.get(s.k)!) {
        out.set(s.k, out.get(s.k)! + 1);
        given++;
      }
    }
    if (given === 0) break;
    left -= given;
  }
  return out;
}

export function rebalance<T extends StatsTask>(tasks: readonly T[], target: TargetMix, count: number, seed = 1): T[] {
  const catOf = (t: T) => t.metadata.category;
  const diffOf = (t: T) => t.metadata.difficulty ?? 'unknown';
  const tally = (f: (t: T) => string) => {
    const m = new Map<string, number>();
    for (const t of tasks) m.set(f(t), (m.get(f(t)) ?? 0) + 1);
    return m;
  };
  const cats = tally(catOf);
  const diffs = tally(diffOf);
  const n = Math.min(count, tasks.length);
  const catQ = quotas(target.categories ?? Object.fromEntries(cats), cats, n);
  const diffQ = quotas(target.difficulties ?? Object.fromEntries(diffs), diffs, n);
  const order = createFamilyRng(seed).shuffle(tasks.map((_, i) => i));
  const chosen = new Set<number>();
  const catN = new Map<string, number>();
  const diffN = new Map<string, number>();
  const room = (q: Map<string, number>, have: Map<string, number>, k: string) => (have.get(k) ?? 0) < (q.get(k) ?? 0);
  const take = (i: number) => {
    const t = tasks[i]!;
    chosen.add(i);
    catN.set(catOf(t), (catN.get(catOf(t)) ?? 0) + 1);
    diffN.set(diffOf(t), (diffN.get(diffOf(t)) ?? 0) + 1);
  };
  // Only the parts the target names constrain; the difficulty mix wins over the category mix when both cannot hold.
  const catOk = (t: T) => !target.categories || room(catQ, catN, catOf(t));
  const diffOk = (t: T) => !target.difficulties || room(diffQ, diffN, diffOf(t));
  const passes: ((t: T) => boolean)[] = [(t) => catOk(t) && diffOk(t), diffOk, catOk, () => true];
  // First, both quotas at once, serving the category furthest below its quota each time: a plain pass in
  // random order would fill the difficulty quotas with whatever categories come first.
  if (target.categories) {
    const byCat = new Map<string, number[]>();
    for (const i of order) byCat.set(catOf(tasks[i]!), [...(byCat.get(catOf(tasks[i]!)) ?? []), i]);
    while (chosen.size < n) {
      let best: { cat: string; index: number; deficit: number } | null = null;
      for (const [cat, list] of byCat) {
        const quota = catQ.get(cat) ?? 0;
        if ((catN.get(cat) ?? 0) >= quota) continue;
        const index = list.find((i) => !chosen.has(i) && diffOk(tasks[i]!));
        if (index === undefined) continue;
        const deficit = (quota - (catN.get(cat) ?? 0)) / quota;
        if (!best || deficit > best.deficit || (deficit === best.deficit && cat < best.cat))
          best = { cat, index, deficit };
      }
      if (!best) break;
      take(best.index);
    }
  }
  for (const pass of passes) {
    for (const i of order) {
      if (chosen.size >= n) break;
      if (!chosen.has(i) && pass(tasks[i]!)) take(i);
    }
  }
  // Source order, so a rebalanced pack reads like its source.
  return [...chosen].sort((a, b) => a - b).map((i) => tasks[i]!);
}
