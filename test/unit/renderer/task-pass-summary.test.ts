/** A task's record over the evaluation runs, as its detail says it. */
import { describe, expect, test } from 'vitest';
import { taskPassSummary } from '../../../renderer/src/components/tasks/task-pass-summary';

describe('taskPassSummary', () => {
  test('resolved episodes of all, as a whole percent, over one run or several', () => {
    expect(taskPassSummary({ taskId: 't', runs: 1, episodes: 3, resolved: 2, lastRunAt: null })).toBe(
      'Resolved in 2 of 3 episodes (67%) over 1 run.',
    );
    expect(taskPassSummary({ taskId: 't', runs: 2, episodes: 4, resolved: 0, lastRunAt: null })).toBe(
      'Resolved in 0 of 4 episodes (0%) over 2 runs.',
    );
  });

  test('no finished episode, or no record: says so', () => {
    expect(taskPassSummary(undefined)).toBe('No evaluation run has finished an episode of this task yet.');
    expect(taskPassSummary({ taskId: 't', runs: 1, episodes: 0, resolved: 0, lastRunAt: null })).toBe(
      'No evaluation run has finished an episode of this task yet.',
    );
  });
});
