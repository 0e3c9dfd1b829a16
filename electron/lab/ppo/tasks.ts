/** Which tasks a PPO step samples: seeded by (run seed, step), so a resumed run samples the same ones. */
import { ResumableRng } from '../../rl/rng';
import type { Task } from '../tasks';

export function sampleTasks(
  tasks: readonly Task[],
  count: number,
  mode: 'uniform' | 'stratified',
  seed: number,
  step: number,
): Task[] {
  const rng = new ResumableRng((seed * 0x9e3779b1 + step * 0x85ebca6b) >>> 0);
  if (mode === 'uniform') {
    const order = rng.shuffle(tasks.map((_, i) => i));
    return Array.from({ length: count }, (_, i) => tasks[order[i % order.length]!]!);
  }
  // Stratified: categories in a shuffled round-robin, a task drawn within each.
  const byCategory = new Map<string, Task[]>();
  for (const t of tasks) byCategory.set(t.metadata.category, [...(byCategory.get(t.metadata.category) ?? []), t]);
  const cats = rng.shuffle([...byCategory.keys()].sort());
  const pools = new Map(cats.map((c) => [c, rng.shuffle([...byCategory.get(c)!])]));
  const used = new Map<string, number>();
  return Array.from({ length: count }, (_, i) => {
    const c = cats[i % cats.length]!;
    const pool = pools.get(c)!;
    const n = used.get(c) ?? 0;
    used.set(c, n + 1);
    return pool[n % pool.length]!;
  });
}
