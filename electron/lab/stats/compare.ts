/**
 * Two evaluations compared task by task. Outcomes of the same task under two checkpoints are correlated
 * (an easy task is easy for both), so the paired design is far more sensitive than comparing two rates:
 * intervals come from a paired bootstrap over tasks (a task's attempts resampled together). Significance,
 * by design: with one attempt per task in both runs, McNemar's exact test on discordant attempt pairs;
 * with several, the sign-flip permutation test on per-task differences of success shares (attempts of a
 * task are not independent pairs). Runs with no task in common fall back to an unpaired comparison, with a
 * warning.
 */
import type { EpisodeRecord } from '../../domain/runs';
import type { CategoryComparison, CompareResult, CompareTest, McNemar, RunSide } from '../../domain/stats';
import { seededUniform } from '../../../native/util/random';
import { wilson } from '../runs/stats';
import { taskBootstrap } from './bootstrap';
import { exactBinomialTwoSided, normalCdf } from './distributions';
import { pairedShares, signFlip, signFlipName, type TaskPair } from './paired-shares';
import { passAtKCurve } from './pass-at-k';

/** What a comparison reads of an episode: a run's episodes.jsonl or a committed outcomes.jsonl alike. */
export type ComparableEpisode = Pick<EpisodeRecord, 'taskId' | 'category' | 'attempt' | 'resolved'> & {
  reward: { dense: number } | null;
};

export interface RunOutcomes {
  /** How the run is named in the output (its id or folder). */
  run: string;
  episodes: readonly ComparableEpisode[];
}

export interface CompareOptions {
  resamples?: number;
  seed?: number;
}

interface TaskOutcome {
  id: string;
  category: string;
  /** Resolved per attempt, in attempt order. */
  resolved: boolean[];
  rewards: number[];
}

function byTask(episodes: readonly ComparableEpisode[]): Map<string, TaskOutcome> {
  const sorted = [...episodes].sort((x, y) => x.attempt - y.attempt);
  const out = new Map<string, TaskOutcome>();
  for (const e of sorted) {
    const t = out.get(e.taskId) ?? { id: e.taskId, category: e.category, resolved: [], rewards: [] };
    t.resolved.push(e.resolved);
    t.rewards.push(e.reward?.dense ?? 0);
    out.set(e.taskId, t);
  }
  return out;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const rateOf = (t: TaskOutcome) => mean(t.resolved.map(Number));
const rewardOf = (t: TaskOutcome) => mean(t.rewards);

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))]!;
}

/** Percentile interval of mean(d) resampling the paired per-task differences. */
export const pairedBootstrap = taskBootstrap;

/** Percentile interval of mean(b) - mean(a), resampling each run's tasks on its own (the unpaired fallback). */
function unpairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  resamples: number,
  seed: number,
): [number, number] {
  if (a.length === 0 || b.length === 0) return [0, 0];
  const random = seededUniform(seed);
  const draw = (xs: readonly number[]) => {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[Math.floor(random() * xs.length)]!;
    return s / xs.length;
  };
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) diffs[r] = draw(b) - draw(a);
  diffs.sort();
  return [percentile(diffs, 0.025), percentile(diffs, 0.975)];
}

/** McNemar over attempt pairs: attempt i of a task in A against attempt i of the same task in B. */
function mcnemar(pairs: readonly (readonly [TaskOutcome, TaskOutcome])[]): McNemar & { pairs: number } {
  let b = 0;
  let c = 0;
  let n = 0;
  for (const [ta, tb] of pairs) {
    const k = Math.min(ta.resolved.length, tb.resolved.length);
    for (let i = 0; i < k; i++) {
      n++;
      if (ta.resolved[i] && !tb.resolved[i]) b++;
      if (!ta.resolved[i] && tb.resolved[i]) c++;
    }
  }
  return { b, c, p: exactBinomialTwoSided(b, b + c), pairs: n };
}

function side(run: string, tasks: readonly TaskOutcome[], seed: number): RunSide {
  const rate = mean(tasks.map(rateOf));
  return {
    run,
    resolvedRate: rate,
    ci95: wilson(rate, tasks.length),
    meanReward: mean(tasks.map(rewardOf)),
    tasks: tasks.length,
    episodes: tasks.reduce((n, t) => n + t.resolved.length, 0),
    passAtK: passAtKCurve(
      tasks.map((t) => ({ id: t.id, attempts: t.resolved.length, resolved: t.resolved.filter(Boolean).length })),
      1000,
      seed,
    ),
  };
}

type Pair = readonly [TaskOutcome, TaskOutcome];

export function compareRuns(a: RunOutcomes, b: RunOutcomes, options: CompareOptions = {}): CompareResult {
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 1;
  const ta = byTask(a.episodes);
  const tb = byTask(b.episodes);
  const common = [...ta.keys()].filter((id) => tb.has(id)).sort();
  const onlyA = [...ta.keys()].filter((id) => !tb.has(id)).sort();
  const onlyB = [...tb.keys()].filter((id) => !ta.has(id)).sort();
  if (common.length === 0)
    return compareUnpaired(a.run, b.run, [...ta.values()], [...tb.values()], { onlyA, onlyB, resamples, seed });
  const warnings: string[] = [];
  if (onlyA.length || onlyB.length)
    warnings.push(
      `${onlyA.length + onlyB.length} task(s) are in one run only and are left out of the paired comparison`,
    );
  const pairs = common.map((id) => [ta.get(id)!, tb.get(id)!] as const);
  return comparePaired(a.run, b.run, pairs, { onlyA, onlyB, resamples, seed, warnings });
}

interface DesignOptions {
  onlyA: string[];
  onlyB: string[];
  resamples: number;
  seed: number;
}

/** No task in common: independent task bootstrap and a two-proportion z-test, said to need a far larger difference. */
function compareUnpaired(
  runA: string,
  runB: string,
  tasksA: TaskOutcome[],
  tasksB: TaskOutcome[],
  o: DesignOptions,
): CompareResult {
  const { resamples, seed } = o;
  const warnings = [
    `the runs share no task (${tasksA.length} vs ${tasksB.length} tasks): compared unpaired, which needs a far larger difference to detect`,
  ];
  const sa = side(runA, tasksA, seed);
  const sb = side(runB, tasksB, seed);
  const pooled =
    (sa.resolvedRate * tasksA.length + sb.resolvedRate * tasksB.length) / Math.max(1, tasksA.length + tasksB.length);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / Math.max(1, tasksA.length) + 1 / Math.max(1, tasksB.length)));
  const z = se > 0 ? (sb.resolvedRate - sa.resolvedRate) / se : 0;
  return {
    a: sa,
    b: sb,
    tasks: tasksA.length + tasksB.length,
    paired: false,
    pairs: 0,
    onlyA: o.onlyA,
    onlyB: o.onlyB,
    diff: sb.resolvedRate - sa.resolvedRate,
    diffCi95: unpairedBootstrap(tasksA.map(rateOf), tasksB.map(rateOf), resamples, seed),
    design: 'unpaired',
    test: { name: 'two-proportion-z', p: 2 * (1 - normalCdf(Math.abs(z))) },
    mcnemar: null,
    taskShares: null,
    unpairedTest: { z, p: 2 * (1 - normalCdf(Math.abs(z))) },
    reward: {
      a: sa.meanReward,
      b: sb.meanReward,
      diff: sb.meanReward - sa.meanReward,
      ci95: unpairedBootstrap(tasksA.map(rewardOf), tasksB.map(rewardOf), resamples, seed + 1),
    },
    byCategory: {},
    changed: [],
    warnings,
    method: 'unpaired: independent task bootstrap (95% percentile), two-proportion z-test',
  };
}

/**
 * Paired by task. One attempt per task: McNemar exact on attempt pairs. Several: each task's success share is
 * one observation (its attempts are not independent pairs), tested by sign flips.
 */
function comparePaired(
  runA: string,
  runB: string,
  pairs: Pair[],
  o: DesignOptions & { warnings: string[] },
): CompareResult {
  const { resamples, seed, warnings } = o;
  const byShares = pairs.some(([x, y]) => x.resolved.length > 1 || y.resolved.length > 1);
  const uneven = unevenAttempts(pairs, byShares);
  if (uneven) warnings.push(uneven);
  const sa = side(
    runA,
    pairs.map(([x]) => x),
    seed,
  );
  const sb = side(
    runB,
    pairs.map(([, y]) => y),
    seed,
  );
  const rateDiffs = pairs.map(([x, y]) => rateOf(y) - rateOf(x));
  const rewardDiffs = pairs.map(([x, y]) => rewardOf(y) - rewardOf(x));
  const taskPair = ([x, y]: Pair): TaskPair => ({
    id: x.id,
    category: x.category,
    resolvedA: x.resolved,
    resolvedB: y.resolved,
    denseA: x.rewards,
    denseB: y.rewards,
  });
  const shares = byShares ? pairedShares(pairs.map(taskPair), resamples, seed) : null;
  const byCategory = categoryComparisons(pairs, byShares, resamples, seed);
  const { pairs: pairCount, ...mc } = mcnemar(pairs);
  const designTest: CompareTest = shares
    ? { name: signFlipName(shares.test), p: shares.test.p }
    : { name: 'mcnemar-exact', p: mc.p };
  return {
    a: sa,
    b: sb,
    tasks: pairs.length,
    paired: true,
    pairs: shares ? pairs.length : pairCount,
    design: shares ? 'paired-task-shares' : 'paired-attempts',
    test: designTest,
    onlyA: o.onlyA,
    onlyB: o.onlyB,
    diff: mean(rateDiffs),
    diffCi95: pairedBootstrap(rateDiffs, resamples, seed),
    mcnemar: shares ? null : mc,
    taskShares: shares,
    unpairedTest: null,
    reward: {
      a: sa.meanReward,
      b: sb.meanReward,
      diff: mean(rewardDiffs),
      ci95: pairedBootstrap(rewardDiffs, resamples, seed + 1),
    },
    byCategory,
    changed: pairs
      .filter(([x, y]) => rateOf(x) !== rateOf(y))
      .map(([x, y]) => ({ task: x.id, category: x.category, a: rateOf(x), b: rateOf(y) })),
    warnings,
    method: shares
      ? `paired by task (several attempts per task): task bootstrap (${resamples} resamples, 95% percentile; a task's attempts resampled together), sign-flip permutation test on per-task success-share differences (${shares.test.exact ? `exact, all ${shares.test.permutations} sign patterns` : `Monte-Carlo, ${shares.test.permutations} sign patterns, seed ${shares.test.seed}`})`
      : `paired by attempt (one attempt per task): task bootstrap (${resamples} resamples, 95% percentile), McNemar exact on attempt pairs`,
  };
}

/** The warning when the runs' tasks have different numbers of attempts; null when every task has the same. */
function unevenAttempts(pairs: Pair[], byShares: boolean): string | null {
  const attemptsA = new Set(pairs.map(([x]) => x.resolved.length));
  const attemptsB = new Set(pairs.map(([, y]) => y.resolved.length));
  if (attemptsA.size <= 1 && attemptsB.size <= 1 && [...attemptsA][0] === [...attemptsB][0]) return null;
  return byShares
    ? "the runs have different numbers of attempts per task: a share over fewer attempts is noisier, and the sign-flip test's symmetry holds only approximately"
    : 'the runs have different numbers of attempts per task: McNemar pairs only attempts both runs have';
}

/** Per category (sorted): the rates, their paired difference with its interval, and the design's test. */
function categoryComparisons(
  pairs: Pair[],
  byShares: boolean,
  resamples: number,
  seed: number,
): Record<string, CategoryComparison> {
  const categories = new Map<string, Pair[]>();
  for (const p of pairs) categories.set(p[0].category, [...(categories.get(p[0].category) ?? []), p]);
  const byCategory: Record<string, CategoryComparison> = {};
  for (const [name, members] of [...categories.entries()].sort(([x], [y]) => x.localeCompare(y))) {
    const diffs = members.map(([x, y]) => rateOf(y) - rateOf(x));
    const { pairs: _n, ...m } = mcnemar(members);
    const flip = byShares ? signFlip(diffs, seed + 2) : null;
    byCategory[name] = {
      tasks: members.length,
      a: mean(members.map(([x]) => rateOf(x))),
      b: mean(members.map(([, y]) => rateOf(y))),
      diff: mean(diffs),
      diffCi95: pairedBootstrap(diffs, Math.min(resamples, 4000), seed + 2),
      mcnemar: flip ? null : m,
      test: flip ? { name: signFlipName(flip), p: flip.p } : { name: 'mcnemar-exact', p: m.p },
    };
  }
  return byCategory;
}
