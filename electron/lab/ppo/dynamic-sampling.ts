/**
 * Dynamic sampling (DAPO): a step keeps drawing tasks, a group of G episodes each, until `needed` groups
 * disagree on the training reward or `maxTasks` tasks were tried. A group whose episodes all got the same
 * reward has a zero group advantage, so a step of such groups trains nothing but the optimizer's drift; as
 * the policy sharpens, most groups become flat (75-100% late in the nano runs), and a fixed batch of tasks
 * then carries little or no signal.
 *
 * The tasks are drawn in rounds of `needed - mixed so far`, in a fixed order (the step's seeded candidate
 * list), so a resumed step replays its finished rounds from episodes.jsonl and runs exactly what is missing.
 */
import type { RewardKind } from '../../rl/rewards';
import { trainingReward } from '../../rl/rewards';
import { rewardsDisagree } from '../../rl/advantages';
import type { Task } from '../tasks';
import type { RolloutBatch } from './rollouts';
import type { RolloutEpisode } from './rollout-files';

export interface DynamicSamplingResult {
  batch: RolloutBatch;
  /** Task ids of the groups whose kept episodes disagree on the training reward (the ones that train). */
  mixed: Set<string>;
  /** Tasks whose groups were run this step (mixed and flat). */
  tried: number;
  rounds: number;
}

/** Whether a task's kept episodes disagree on the training reward (a group of one never does). */
export function groupDisagrees(episodes: readonly RolloutEpisode[], kind: RewardKind): boolean {
  return rewardsDisagree(episodes.filter((e) => !e.aborted).map((e) => trainingReward(e.reward, kind)));
}

/** Distinct tasks in order (a task drawn twice would reuse its episode keys). */
export function distinctTasks(tasks: readonly Task[]): Task[] {
  const seen = new Set<string>();
  return tasks.filter((t) => !seen.has(t.id) && seen.add(t.id));
}

export async function collectDynamic(o: {
  /** The PPO step the rounds belong to (their episode keys and rollout files). */
  step: number;
  candidates: readonly Task[];
  needed: number;
  maxTasks: number;
  reward: RewardKind;
  runRound: (tasks: readonly Task[]) => Promise<RolloutBatch>;
  /** The run is stopping: no further round starts (the step is run again on resume). */
  signal?: AbortSignal;
  log?: (message: string) => void;
}): Promise<DynamicSamplingResult> {
  const candidates = distinctTasks(o.candidates).slice(0, Math.max(o.needed, o.maxTasks));
  const episodes: RolloutEpisode[] = [];
  const mixed = new Set<string>();
  let next = 0;
  let rounds = 0;
  let ran = 0;
  let wallMs = 0;
  while (mixed.size < o.needed && next < candidates.length && !o.signal?.aborted) {
    const round = candidates.slice(next, next + (o.needed - mixed.size));
    next += round.length;
    rounds++;
    const batch = await o.runRound(round);
    ran += batch.ran;
    wallMs += batch.wallMs;
    episodes.push(...batch.episodes);
    for (const task of round) {
      if (
        groupDisagrees(
          batch.episodes.filter((e) => e.taskId === task.id),
          o.reward,
        )
      )
        mixed.add(task.id);
    }
  }
  if (mixed.size < o.needed && !o.signal?.aborted)
    o.log?.(
      `dynamic sampling: ${mixed.size} of ${o.needed} groups disagree after ${next} tasks (dynamic_max_tasks); the step trains on those`,
    );
  return { batch: { step: o.step, episodes, ran, wallMs }, mixed, tried: next, rounds };
}
