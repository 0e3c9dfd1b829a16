/**
 * The round logic of dynamic sampling (electron/lab/ppo/dynamic-sampling.ts) on recorded outcomes: which
 * tasks each round runs, when it stops, and that a stopping run starts no further round. The real run
 * (sandboxes, verifier, PPO update) is test/integration/training/ppo-dynamic-sampling.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { collectDynamic } from '../../../electron/lab/ppo/dynamic-sampling';
import type { RolloutEpisode } from '../../../electron/lab/ppo/rollout-files';
import type { Task } from '../../../electron/lab/tasks';

const task = (id: string) => ({ id }) as Task;

/** Episodes of a group whose dense rewards are `rewards` (binary: resolved when every assertion passed, 2 here). */
function group(id: string, rewards: number[]): RolloutEpisode[] {
  return rewards.map(
    (r, a) =>
      ({
        key: `${id}-a${a}`,
        taskId: id,
        aborted: false,
        reward: { dense: r, fraction: r / 2, binary: r === 2 ? 1 : 0 },
      }) as unknown as RolloutEpisode,
  );
}

const outcomes: Record<string, number[]> = {
  solved: [2, 2, 2, 2],
  unsolved: [0, 0, 0, 0],
  partial: [0, 1, 1, 0], // disagrees on dense, not on binary
  mixed: [2, 0, 2, 1],
};

function runner(log: string[][]) {
  return async (tasks: readonly Task[]) => {
    log.push(tasks.map((t) => t.id));
    return { step: 3, episodes: tasks.flatMap((t) => group(t.id, outcomes[t.id]!)), ran: tasks.length * 4, wallMs: 1 };
  };
}

describe('dynamic sampling rounds', () => {
  it('runs the missing number of tasks per round until enough groups disagree', async () => {
    const rounds: string[][] = [];
    const r = await collectDynamic({
      step: 3,
      candidates: ['solved', 'mixed', 'unsolved', 'partial', 'solved'].map(task),
      needed: 2,
      maxTasks: 5,
      reward: 'dense',
      runRound: runner(rounds),
    });
    expect(rounds).toEqual([['solved', 'mixed'], ['unsolved'], ['partial']]);
    expect([...r.mixed].sort()).toEqual(['mixed', 'partial']);
    expect(r).toMatchObject({ tried: 4, rounds: 3 });
    expect(r.batch.step).toBe(3);
    expect(r.batch.episodes).toHaveLength(16);
  });

  it('judges groups on the trained reward: partial credit is flat under binary', async () => {
    const rounds: string[][] = [];
    const logs: string[] = [];
    const r = await collectDynamic({
      step: 3,
      candidates: ['partial', 'mixed', 'unsolved'].map(task),
      needed: 2,
      maxTasks: 3,
      reward: 'binary',
      runRound: runner(rounds),
      log: (m) => logs.push(m),
    });
    expect([...r.mixed]).toEqual(['mixed']);
    expect(rounds).toEqual([['partial', 'mixed'], ['unsolved']]);
    expect(logs).toEqual([
      'dynamic sampling: 1 of 2 groups disagree after 3 tasks (dynamic_max_tasks); the step trains on those',
    ]);
  });

  it('tries each task once, at most maxTasks', async () => {
    const rounds: string[][] = [];
    await collectDynamic({
      step: 3,
      candidates: ['solved', 'solved', 'unsolved', 'mixed'].map(task),
      needed: 1,
      maxTasks: 2,
      reward: 'dense',
      runRound: runner(rounds),
    });
    expect(rounds).toEqual([['solved'], ['unsolved']]);
  });

  it('starts no further round once the run is stopping, and says nothing of missing groups', async () => {
    const stop = new AbortController();
    const rounds: string[][] = [];
    const logs: string[] = [];
    const run = runner(rounds);
    const r = await collectDynamic({
      step: 3,
      candidates: ['solved', 'unsolved', 'mixed'].map(task),
      needed: 1,
      maxTasks: 3,
      reward: 'dense',
      signal: stop.signal,
      runRound: async (tasks) => {
        stop.abort();
        return run(tasks);
      },
      log: (m) => logs.push(m),
    });
    expect(rounds).toEqual([['solved']]);
    expect(r.tried).toBe(1);
    expect(logs).toEqual([]);
  });
});
