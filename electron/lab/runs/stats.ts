/**
 * Results that survive scrutiny: the resolved rate over tasks with a 95% Wilson interval (each task weighs
 * the same however many attempts it had), a task-clustered bootstrap interval when attempts > 1 (attempts of
 * one task are not independent), the unbiased pass@k estimator, breakdowns by category and difficulty, and
 * errors counted by kind. Episodes that errored count as unresolved with zero reward, never dropped.
 */
import type { ErrorCounts, EpisodeRecord, GroupStats, RunStats } from '../../domain/runs';
import { seededUniform } from '../../../native/util/random';
import { avgAtK } from '../stats/avg-at-k';

const Z95 = 1.959963984540054;

/** Wilson score interval for a proportion `p` observed over `n` trials. */
export function wilson(p: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k), computed as a stable product. */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass@${k} needs at least ${k} attempts, got ${n}`);
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}

/** Percentile interval of the mean of per-task rates, resampling tasks (clusters) with replacement. */
export function clusteredBootstrap(taskRates: readonly number[], resamples = 4000, seed = 1): [number, number] {
  const n = taskRates.length;
  if (n === 0) return [0, 1];
  const random = seededUniform(seed);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += taskRates[Math.floor(random() * n)]!;
    means[b] = sum / n;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return [at(0.025), at(0.975)];
}

interface TaskTally {
  id: string;
  category: string;
  difficulty: string;
  attempts: number;
  resolved: number;
  denseSum: number;
}

function tally(episodes: readonly EpisodeRecord[]): TaskTally[] {
  const byTask = new Map<string, TaskTally>();
  for (const e of episodes) {
    const t = byTask.get(e.taskId) ?? {
      id: e.taskId,
      category: e.category,
      difficulty: e.difficulty,
      attempts: 0,
      resolved: 0,
      denseSum: 0,
    };
    t.attempts++;
    if (e.resolved) t.resolved++;
    t.denseSum += e.reward?.dense ?? 0;
    byTask.set(e.taskId, t);
  }
  return [...byTask.values()];
}

const rate = (t: TaskTally) => t.resolved / t.attempts;
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function groupStats(tasks: TaskTally[], key: 'category' | 'difficulty'): Record<string, GroupStats> {
  const groups = new Map<string, TaskTally[]>();
  for (const t of tasks) groups.set(t[key], [...(groups.get(t[key]) ?? []), t]);
  const out: Record<string, GroupStats> = {};
  for (const [name, members] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const r = mean(members.map(rate));
    out[name] = {
      tasks: members.length,
      episodes: members.reduce((n, t) => n + t.attempts, 0),
      resolvedRate: r,
      ci95: wilson(r, members.length),
    };
  }
  return out;
}

export function computeStats(all: readonly EpisodeRecord[], seed = 1): RunStats {
  // An episode no engine host could run says nothing about the policy: counted as such, left out of the rest.
  const infrastructure = all.filter((e) => e.error?.kind === 'infrastructure').length;
  const episodes = infrastructure ? all.filter((e) => e.error?.kind !== 'infrastructure') : all;
  const tasks = tally(episodes);
  const rates = tasks.map(rate);
  const resolvedRate = mean(rates);
  const minAttempts = tasks.length ? Math.min(...tasks.map((t) => t.attempts)) : 0;
  const maxAttempts = tasks.length ? Math.max(...tasks.map((t) => t.attempts)) : 0;
  const passAt: Record<string, number> = {};
  for (let k = 1; k <= minAttempts; k++) passAt[String(k)] = mean(tasks.map((t) => passAtK(t.attempts, t.resolved, k)));
  const errors: ErrorCounts = { policy: 0, sandbox: 0, verifier: 0, timeout: 0 };
  const stopReasons: Record<string, number> = {};
  if (infrastructure) errors.infrastructure = infrastructure;
  for (const e of episodes) {
    if (e.error) errors[e.error.kind as Exclude<typeof e.error.kind, 'infrastructure'>]++;
    stopReasons[e.stopReason] = (stopReasons[e.stopReason] ?? 0) + 1;
  }
  const costs = episodes.map((e) => e.costUsd).filter((c): c is number => c !== null);
  return {
    tasks: tasks.length,
    episodes: episodes.length,
    resolvedRate,
    ci95: wilson(resolvedRate, tasks.length),
    ci95Bootstrap: maxAttempts > 1 ? clusteredBootstrap(rates, 4000, seed) : null,
    meanReward: mean(episodes.map((e) => e.reward?.dense ?? 0)),
    meanFraction: mean(episodes.map((e) => e.reward?.fraction ?? 0)),
    passAtK: passAt,
    avgAtK: avgAtK(tasks, 4000, seed),
    byCategory: groupStats(tasks, 'category'),
    byDifficulty: groupStats(tasks, 'difficulty'),
    errors,
    stopReasons,
    tokens: {
      prompt: episodes.reduce((n, e) => n + e.tokens.prompt, 0),
      completion: episodes.reduce((n, e) => n + e.tokens.completion, 0),
    },
    costUsd: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
  };
}
