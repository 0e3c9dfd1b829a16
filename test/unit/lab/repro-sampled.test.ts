/** The reproduction's sampled evaluation: avg@K per model and the pairs compared by task, not by attempt. */
import { describe, expect, it } from 'vitest';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import { sampledEvalArgs, sampledRow, sampledTest } from '../../../electron/lab/experiments/repro-sampled';
import { REPRO_FULL, REPRO_QUICK } from '../../../electron/lab/experiments/repro';

function episode(taskId: string, attempt: number, resolved: boolean): EpisodeRecord {
  return {
    key: `${taskId}@${attempt}`,
    taskId,
    attempt,
    category: 'file-operations',
    difficulty: 'easy',
    resolved,
    reward: { dense: resolved ? 3 : 1, fraction: resolved ? 1 : 1 / 3, binary: resolved ? 1 : 0 },
    turns: 3,
    stopReason: 'submitted',
    error: null,
    tokens: { prompt: 100, completion: 10 },
    costUsd: null,
    durationMs: 1000,
    dir: `episodes/${taskId}-a${attempt}`,
    finishedAt: '2026-12-06T00:00:00Z',
  };
}

/** `tasks` tasks × 8 attempts; task t resolves its first `solved(t)` attempts. */
const run = (tasks: number, solved: (t: number) => number) =>
  Array.from({ length: tasks }, (_, t) =>
    Array.from({ length: 8 }, (_, a) => episode(`task-${t}`, a, a < solved(t))),
  ).flat();

describe('repro sampled evaluation', () => {
  it('replaces the greedy temperature and adds the attempts, keeping the budget', () => {
    const args = sampledEvalArgs(['--max-turns', '6', '--temperature', '0', '--concurrency', '2'], 0.7, 8);
    expect(args).toEqual(['--max-turns', '6', '--concurrency', '2', '--temperature', '0.7', '--attempts', '8']);
    expect(sampledEvalArgs(['--attempts', '1', '--max-tokens', '576'], 1, 4)).toEqual([
      '--max-tokens',
      '576',
      '--temperature',
      '1',
      '--attempts',
      '4',
    ]);
  });

  it('avg@K is the mean of per-task success shares', () => {
    const row = sampledRow(
      'sft',
      'id-nano-wide',
      8,
      0.7,
      run(4, (t) => 2 * t),
    ); // shares 0, 2/8, 4/8, 6/8
    expect(row.avgAtK.value).toBeCloseTo(0.375, 12);
    expect(row.avgAtK.k).toBe(8);
    expect(row.episodes).toBe(32);
    expect(row.avgAtK.ci95[0]).toBeLessThan(0.375);
    expect(row.avgAtK.ci95[1]).toBeGreaterThan(0.375);
  });

  it('a gain of 2 attempts in 8 on every task of 20 is significant paired by task; a gain on one task is not', () => {
    const sft = run(20, (t) => 2 + (t % 4));
    const everywhere = sampledTest(
      ['sft', 'rl-dense'],
      'id-nano-wide',
      8,
      0.7,
      sft,
      run(20, (t) => 4 + (t % 4)),
    );
    expect(everywhere.comparison).toBe('rl-dense vs sft');
    expect(everywhere.diff).toBeCloseTo(0.25, 12);
    expect(everywhere.ci95[0]).toBeGreaterThan(0);
    expect(everywhere.test.p).toBeLessThan(0.001);
    expect(everywhere.rewardDiff).toBeCloseTo(0.25 * 2, 12);
    const once = sampledTest(
      ['sft', 'rl-dense'],
      'id-nano-wide',
      8,
      0.7,
      sft,
      run(20, (t) => (t === 0 ? 8 : 2 + (t % 4))),
    );
    expect(once.diff).toBeCloseTo(6 / 8 / 20, 12);
    expect(once.test.p).toBeGreaterThan(0.5);
  });

  it('the presets run avg@K on the first suite: 8 attempts in the full reproduction', () => {
    expect(REPRO_FULL.sampledAttempts).toBe(8);
    expect(REPRO_QUICK.sampledAttempts).toBeGreaterThanOrEqual(2);
    expect(REPRO_FULL.sampledSuites).toEqual([]);
  });
});
