import { describe, expect, it } from 'vitest';
import { clusteredBootstrap, computeStats, passAtK, wilson } from '../../../electron/lab/runs/stats';
import type { EpisodeRecord } from '../../../electron/domain/runs';

function episode(
  taskId: string,
  attempt: number,
  resolved: boolean,
  extra: Partial<EpisodeRecord> = {},
): EpisodeRecord {
  return {
    key: `${taskId}@${attempt}`,
    taskId,
    attempt,
    category: taskId.startsWith('f') ? 'file-operations' : 'debugging',
    difficulty: taskId.endsWith('h') ? 'hard' : 'easy',
    resolved,
    reward: { dense: resolved ? 3 : 1, fraction: resolved ? 1 : 1 / 3, binary: resolved ? 1 : 0 },
    turns: 5,
    stopReason: 'submitted',
    error: null,
    tokens: { prompt: 100, completion: 10 },
    costUsd: null,
    durationMs: 1000,
    dir: `episodes/${taskId}-a${attempt}`,
    finishedAt: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

describe('run statistics', () => {
  it('Wilson interval matches known values', () => {
    // 8/10: the textbook interval is [0.490, 0.943].
    const [lo, hi] = wilson(0.8, 10);
    expect(lo).toBeCloseTo(0.4902, 3);
    expect(hi).toBeCloseTo(0.9433, 3);
    expect(wilson(0, 20)[0]).toBe(0);
    expect(wilson(1, 20)[1]).toBe(1);
    expect(wilson(1, 20)[0]).toBeCloseTo(0.8389, 3);
  });

  it('pass@k is the unbiased estimator', () => {
    expect(passAtK(5, 0, 1)).toBe(0);
    expect(passAtK(5, 5, 3)).toBe(1);
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    // 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(10, 1, 10)).toBe(1);
    expect(() => passAtK(2, 1, 3)).toThrow(RangeError);
  });

  it('the clustered bootstrap is reproducible and brackets the mean', () => {
    const rates = [1, 1, 0, 0.5, 1, 0, 0.25, 1, 0.75, 0];
    const a = clusteredBootstrap(rates, 2000, 42);
    expect(clusteredBootstrap(rates, 2000, 42)).toEqual(a);
    expect(a[0]).toBeLessThan(0.55);
    expect(a[1]).toBeGreaterThan(0.55);
    expect(a[1] - a[0]).toBeGreaterThan(0.2);
  });

  it('weighs tasks equally, counts errors by kind, reports pass@k up to the attempts', () => {
    const episodes = [
      episode('f1', 0, true),
      episode('f1', 1, true),
      episode('f2h', 0, false, { error: { kind: 'timeout', message: 'cut' }, stopReason: 'deadline', reward: null }),
      episode('f2h', 1, true),
      episode('d1', 0, false, { error: { kind: 'policy', message: '500' }, stopReason: 'policy_error', reward: null }),
      episode('d1', 1, false, { error: { kind: 'verifier', message: 'crashed' } }),
    ];
    const s = computeStats(episodes);
    expect(s.tasks).toBe(3);
    expect(s.episodes).toBe(6);
    expect(s.resolvedRate).toBeCloseTo((1 + 0.5 + 0) / 3, 12);
    expect(s.ci95).toEqual(wilson(0.5, 3));
    expect(s.ci95Bootstrap).not.toBeNull();
    expect(Object.keys(s.passAtK)).toEqual(['1', '2']);
    expect(s.passAtK['2']).toBeCloseTo((1 + 1 + 0) / 3, 12);
    expect(s.errors).toEqual({ policy: 1, sandbox: 0, verifier: 1, timeout: 1 });
    expect(s.meanReward).toBeCloseTo((3 + 3 + 0 + 3 + 0 + 1) / 6, 12);
    expect(s.byCategory['file-operations']).toMatchObject({ tasks: 2, resolvedRate: 0.75 });
    expect(s.byDifficulty.hard).toMatchObject({ tasks: 1, resolvedRate: 0.5 });
    expect(s.stopReasons).toEqual({ submitted: 4, deadline: 1, policy_error: 1 });
  });

  it('one attempt per task: no bootstrap interval', () => {
    expect(computeStats([episode('f1', 0, true), episode('d1', 0, false)]).ci95Bootstrap).toBeNull();
  });
});
