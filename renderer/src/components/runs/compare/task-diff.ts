/**
 * Two runs, task by task: each run's resolved rate and mean dense reward on the task (over its attempts),
 * and the change. A task whose resolved rate stayed but whose passing assertions moved changed too.
 */
import type { EpisodeRecord } from '../../../../../electron/domain/runs';

export interface TaskOutcome {
  resolved: number;
  episodes: number;
  rate: number;
  meanFraction: number | null;
  /** Mean dense reward (passing assertions) over the attempts that have one. */
  meanReward: number | null;
  /** The first attempt's episode key, which the compare table links to. */
  firstKey: string;
}

export type TaskChange = 'gained' | 'lost' | 'reward-up' | 'reward-down' | 'same' | 'only-a' | 'only-b';

export interface TaskDiff {
  taskId: string;
  category: string;
  difficulty: string;
  /** Null when the run does not hold the task (or has not run it yet). */
  a: TaskOutcome | null;
  b: TaskOutcome | null;
  /** b.rate - a.rate when both ran it. */
  delta: number | null;
  /** b.meanReward - a.meanReward when both have rewards. */
  rewardDelta: number | null;
  change: TaskChange;
}

/** Rewards are sums of assertion counts over a few attempts: anything smaller is float noise. */
const EPSILON = 1e-9;

const mean = (xs: number[]) => (xs.length ? xs.reduce((x, y) => x + y, 0) / xs.length : null);

function outcome(episodes: EpisodeRecord[]): TaskOutcome | null {
  if (!episodes.length) return null;
  const resolved = episodes.filter((e) => e.resolved).length;
  const rewards = episodes.map((e) => e.reward).filter((r) => r !== null && r !== undefined);
  const first = [...episodes].sort((x, y) => x.attempt - y.attempt)[0]!;
  return {
    resolved,
    episodes: episodes.length,
    rate: resolved / episodes.length,
    meanFraction: mean(rewards.map((r) => r.fraction)),
    meanReward: mean(rewards.map((r) => r.dense)),
    firstKey: first.key,
  };
}

function changeOf(
  oa: TaskOutcome | null,
  ob: TaskOutcome | null,
  delta: number | null,
  rewardDelta: number | null,
): TaskChange {
  if (!oa) return 'only-b';
  if (!ob) return 'only-a';
  if (delta! > EPSILON) return 'gained';
  if (delta! < -EPSILON) return 'lost';
  if (rewardDelta !== null && rewardDelta > EPSILON) return 'reward-up';
  if (rewardDelta !== null && rewardDelta < -EPSILON) return 'reward-down';
  return 'same';
}

export function diffRuns(a: EpisodeRecord[], b: EpisodeRecord[]): TaskDiff[] {
  const ids = [...new Set([...a, ...b].map((e) => e.taskId))].sort();
  return ids.map((taskId) => {
    const ea = a.filter((e) => e.taskId === taskId);
    const eb = b.filter((e) => e.taskId === taskId);
    const any = ea[0] ?? eb[0]!;
    const oa = outcome(ea);
    const ob = outcome(eb);
    const delta = oa && ob ? ob.rate - oa.rate : null;
    const rewardDelta = oa?.meanReward != null && ob?.meanReward != null ? ob.meanReward - oa.meanReward : null;
    return {
      taskId,
      category: any.category,
      difficulty: any.difficulty,
      a: oa,
      b: ob,
      delta,
      rewardDelta,
      change: changeOf(oa, ob, delta, rewardDelta),
    };
  });
}

/** A change worth a reader's eye: the resolved rate or the reward moved. */
export const isChange = (d: TaskDiff) =>
  d.change === 'gained' || d.change === 'lost' || d.change === 'reward-up' || d.change === 'reward-down';

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

/** "gained 0%→100%", "reward +0.33", "same", "only in A". */
export function changeText(d: TaskDiff, letterA = 'A', letterB = 'B'): string {
  switch (d.change) {
    case 'gained':
    case 'lost':
      return `${d.change} ${pct(d.a!.rate)}→${pct(d.b!.rate)}${d.rewardDelta ? ` · reward ${signed(d.rewardDelta)}` : ''}`;
    case 'reward-up':
    case 'reward-down':
      return `reward ${signed(d.rewardDelta!)}`;
    case 'only-a':
      return `only in ${letterA}`;
    case 'only-b':
      return `only in ${letterB}`;
    default:
      return 'same';
  }
}
