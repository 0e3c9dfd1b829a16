/** The feasibility summary and its warning threshold (the measuring itself is tested through the CLI). */
import { describe, expect, it } from 'vitest';
import {
  FEASIBLE_WARN_SHARE,
  feasibilityWarning,
  summarize,
  type TaskFeasibility,
} from '../../../electron/lab/runs/feasibility';

const BUDGET = { maxTurns: 6, maxTokens: 96, contextWindow: 2048, promptBudget: 1952 };
const task = (
  id: string,
  family: string,
  feasible: boolean,
  callTokens: number[],
  reasons: TaskFeasibility['reasons'] = feasible ? [] : ['tokens'],
): TaskFeasibility => ({ id, family, feasible, reasons, commands: callTokens.length, callTokens, promptTokens: 100 });

describe('feasibility', () => {
  it('summarizes per family, counts the calls over the budget, and gives percentiles', () => {
    const r = summarize(
      [
        task('a', 'f1', true, [10, 20]),
        task('b', 'f1', false, [200, 30]),
        task('c', 'f2', false, [5, 6, 7, 8, 9, 10, 11], ['turns']),
      ],
      BUDGET,
    );
    expect(r).toMatchObject({
      tasks: 3,
      feasible: 1,
      share: 1 / 3,
      cutCalls: { count: 1, calls: 11, share: 1 / 11 },
      reasons: { turns: 1, tokens: 1, prompt: 0, 'no-oracle': 0 },
    });
    expect(r.byFamily).toEqual({ f1: { tasks: 2, feasible: 1, share: 0.5 }, f2: { tasks: 1, feasible: 0, share: 0 } });
    expect(r.callTokens).toEqual({ median: 10, p90: 30, max: 200 });
    expect(r.commands).toEqual({ median: 2, p90: 7, max: 7 });
  });

  it('warns below half, not at half', () => {
    expect(FEASIBLE_WARN_SHARE).toBe(0.5);
    const half = summarize([task('a', 'f', true, [10]), task('b', 'f', false, [200])], BUDGET);
    expect(feasibilityWarning(half, 'the suite S')).toBeNull();
    const third = summarize(
      [task('a', 'f', true, [10]), task('b', 'f', false, [200]), task('c', 'f', false, [300])],
      BUDGET,
    );
    expect(feasibilityWarning(third, 'the suite S')).toBe(
      'warning: only 1 of 3 tasks of the suite S (33%) can be finished by the oracle itself at 6 turns x 96 tokens (2 have a longer call; 2 of 3 oracle calls are longer than 96 tokens). Raise --max-turns / --max-tokens (ppo.max_turns / ppo.max_tokens); see t1lab tasks feasible.',
    );
    expect(feasibilityWarning(null, 'the suite S')).toBeNull();
  });
});
