/**
 * The PPO task pool: the families where a policy's own sampled episodes disagree. Group advantages compare
 * the episodes of one task; a task whose G episodes all earn the same reward (all solved, or all failed)
 * gives no policy signal, and at nano scale most families are one or the other for the SFT warm start.
 * A probe (`t1lab eval --attempts K --temperature T` of the policy on a few train tasks per family) says
 * which families have tasks the policy solves sometimes; PPO then draws its tasks from those families.
 */
import type { Reward } from '../../domain/tasks';

export type PoolReward = keyof Reward;

export interface ProbeEpisode {
  taskId: string;
  resolved: boolean;
  reward: Reward | null;
}

export interface FamilyProbe {
  tasks: number;
  episodes: number;
  /** Share of the probe's episodes resolved. */
  resolved: number;
  /** Mean reward (the pool's reward kind) per episode. */
  meanReward: number;
  /** Tasks whose attempts earned different rewards: where a group has a policy signal. */
  mixedTasks: number;
  /** Tasks with at least two attempts (a task probed once cannot show a spread). */
  probedTasks: number;
}

/** Per family, from a probe's episodes; `familyOf` maps a task id to its family (undefined: not in the pool). */
export function probeFamilies(
  episodes: readonly ProbeEpisode[],
  familyOf: (taskId: string) => string | undefined,
  reward: PoolReward,
): Record<string, FamilyProbe> {
  const byTask = new Map<string, ProbeEpisode[]>();
  for (const e of episodes) {
    if (familyOf(e.taskId) === undefined) continue;
    const list = byTask.get(e.taskId);
    if (list) list.push(e);
    else byTask.set(e.taskId, [e]);
  }
  const out: Record<string, FamilyProbe> = {};
  for (const [taskId, eps] of [...byTask].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const f = (out[familyOf(taskId)!] ??= {
      tasks: 0,
      episodes: 0,
      resolved: 0,
      meanReward: 0,
      mixedTasks: 0,
      probedTasks: 0,
    });
    const rewards = eps.map((e) => e.reward?.[reward] ?? 0);
    f.tasks += 1;
    f.episodes += eps.length;
    f.resolved += eps.filter((e) => e.resolved).length;
    f.meanReward += rewards.reduce((a, b) => a + b, 0);
    if (eps.length >= 2) f.probedTasks += 1;
    if (new Set(rewards).size > 1) f.mixedTasks += 1;
  }
  for (const f of Object.values(out)) {
    f.resolved = f.episodes ? f.resolved / f.episodes : 0;
    f.meanReward = f.episodes ? f.meanReward / f.episodes : 0;
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

/** Families with at least `minMixed` tasks whose attempts disagreed, sorted by name. */
export function keptFamilies(probe: Record<string, FamilyProbe>, minMixed: number): string[] {
  return Object.entries(probe)
    .filter(([, f]) => f.mixedTasks >= minMixed)
    .map(([name]) => name)
    .sort();
}
