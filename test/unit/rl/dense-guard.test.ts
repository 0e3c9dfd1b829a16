/** The dense-reward guard and the task sampler of PPO steps. */
import { describe, expect, it } from 'vitest';
import { assertionPassRates, flagFarmedAssertions, rewardsByCategory } from '../../../electron/lab/ppo/dense-guard';
import type { RolloutEpisode } from '../../../electron/lab/ppo/rollout-files';
import { sampleTasks } from '../../../electron/lab/ppo/tasks';
import type { Task } from '../../../electron/lab/tasks';

let next = 0;
function episode(taskId: string, passed: Record<string, boolean>, binary = 0, category = 'files'): RolloutEpisode {
  const n = Object.values(passed).filter(Boolean).length;
  return {
    key: `${taskId}-${next++}`,
    taskId,
    category,
    group: taskId,
    attempt: 0,
    policyVersion: 0,
    reward: { dense: n, fraction: n / Object.keys(passed).length, binary },
    resolved: binary === 1,
    assertions: Object.entries(passed).map(([name, p]) => ({ name, passed: p })),
    turns: 1,
    completionTokens: 1,
    stopReason: 'submitted',
    error: null,
    aborted: false,
    durationMs: 1,
    generationMs: 1,
    environmentMs: 0,
    dir: '',
  };
}

describe('dense-reward guard', () => {
  it('flags an assertion whose pass rate rises while the binary reward does not', () => {
    const early = [episode('t', { easy: false, hard: false }), episode('t', { easy: false, hard: false })];
    const late = [episode('t', { easy: true, hard: false }), episode('t', { easy: true, hard: false })];
    const flags = flagFarmedAssertions([early, early, late, late]);
    expect(flags).toEqual([
      { taskId: 't', assertion: 'easy', passRateBefore: 0, passRateAfter: 1, binaryBefore: 0, binaryAfter: 0 },
    ]);
  });

  it('does not flag it when the binary reward rises too', () => {
    const early = [episode('t', { a: false, b: false })];
    const late = [episode('t', { a: true, b: true }, 1)];
    expect(flagFarmedAssertions([early, late])).toEqual([]);
  });

  it('pass rates per task::assertion and rewards per category', () => {
    const es = [
      episode('t', { a: true }, 1, 'x'),
      episode('t', { a: false }, 0, 'x'),
      episode('u', { b: true }, 1, 'y z'),
    ];
    expect(assertionPassRates(es)).toEqual({ 't::a': 0.5, 'u::b': 1 });
    expect(rewardsByCategory(es)).toEqual({
      'reward_dense/x': 0.5,
      'reward_binary/x': 0.5,
      'reward_dense/y_z': 1,
      'reward_binary/y_z': 1,
    });
  });
});

describe('task sampling', () => {
  const tasks = ['a1', 'a2', 'a3', 'a4', 'b1'].map((id) => ({ id, metadata: { category: id[0]! } }) as unknown as Task);
  it('is seeded by run seed and step; stratified alternates categories', () => {
    expect(sampleTasks(tasks, 3, 'uniform', 1, 5).map((t) => t.id)).toEqual(
      sampleTasks(tasks, 3, 'uniform', 1, 5).map((t) => t.id),
    );
    expect(new Set(sampleTasks(tasks, 5, 'uniform', 1, 5).map((t) => t.id)).size).toBe(5);
    const strat = sampleTasks(tasks, 4, 'stratified', 2, 1).map((t) => t.metadata.category);
    expect(strat.filter((c) => c === 'b')).toHaveLength(2);
  });
});
