import { describe, expect, test } from 'vitest';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import { avgAtK } from '../../../electron/lab/stats/avg-at-k';
import { taskBootstrap } from '../../../electron/lab/stats/bootstrap';
import { compareRuns, type ComparableEpisode } from '../../../electron/lab/stats/compare';
import { exactBinomialTwoSided } from '../../../electron/lab/stats/distributions';
import { signFlipTest } from '../../../electron/lab/stats/sign-flip';
import { computeStats } from '../../../electron/lab/runs/stats';

/** Every sign pattern written out, the slow and obvious way: the reference for the Gray-code enumeration. */
function bruteForceSignFlip(diffs: readonly number[]): number {
  const n = diffs.length;
  const observed = Math.abs(diffs.reduce((a, b) => a + b, 0));
  let atLeast = 0;
  for (let mask = 0; mask < 2 ** n; mask++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += mask & (1 << i) ? -diffs[i]! : diffs[i]!;
    if (Math.abs(s) >= observed - 1e-9) atLeast++;
  }
  return atLeast / 2 ** n;
}

/** Episodes of one run: `shares[task] = [resolved, attempts]`, dense reward 2 when resolved, else 0.5. */
function run(shares: Record<string, [number, number]>, category = 'files'): ComparableEpisode[] {
  return Object.entries(shares).flatMap(([taskId, [resolved, attempts]]) =>
    Array.from({ length: attempts }, (_, attempt) => ({
      taskId,
      category,
      attempt,
      resolved: attempt < resolved,
      reward: { dense: attempt < resolved ? 2 : 0.5 },
    })),
  );
}

describe('avg@K', () => {
  test('the mean of per-task shares and of dense reward, hand-computed', () => {
    // Shares 1/4, 3/4, 4/4: avg@4 = 2/3. Dense per task (2r + 0.5(4 − r))/4: 0.875, 1.625, 2 → 4.5/3 = 1.5.
    const a = avgAtK([
      { attempts: 4, resolved: 1, denseSum: 3.5 },
      { attempts: 4, resolved: 3, denseSum: 6.5 },
      { attempts: 4, resolved: 4, denseSum: 8 },
    ])!;
    expect(a.k).toBe(4);
    expect(a.minAttempts).toBe(4);
    expect(a.value).toBeCloseTo(2 / 3, 12);
    expect(a.dense.value).toBeCloseTo(1.5, 12);
    // The interval lies within the smallest and largest share (a mean of resampled shares cannot leave them).
    expect(a.ci95[0]).toBeGreaterThanOrEqual(0.25);
    expect(a.ci95[1]).toBeLessThanOrEqual(1);
    expect(a.ci95[0]).toBeLessThan(a.value);
    expect(a.ci95[1]).toBeGreaterThan(a.value);
  });

  test('the bootstrap interval resamples tasks: two tasks give the exact percentiles of a known distribution', () => {
    // Shares 0 and 1 over 2 tasks: the resampled mean is 0, 1/2 or 1 with probabilities 1/4, 1/2, 1/4,
    // so the 2.5% and 97.5% percentiles are 0 and 1.
    expect(taskBootstrap([0, 1], 4000, 3)).toEqual([0, 1]);
    // Every task the same: the interval collapses to that share however many attempts each task had.
    expect(taskBootstrap([0.5, 0.5, 0.5], 1000, 1)).toEqual([0.5, 0.5]);
  });

  test('a task with many attempts weighs as one task, and computeStats reports avg@K with its K', () => {
    const full = (e: ComparableEpisode) =>
      ({
        ...e,
        key: `${e.taskId}@${e.attempt}`,
        difficulty: 'easy',
        stopReason: 'submitted',
        error: null,
        tokens: { prompt: 1, completion: 1 },
        costUsd: null,
      }) as unknown as EpisodeRecord;
    const stats = computeStats(run({ t1: [8, 8], t2: [0, 8], t3: [2, 8] }).map(full));
    expect(stats.avgAtK!.k).toBe(8);
    expect(stats.avgAtK!.value).toBeCloseTo((1 + 0 + 0.25) / 3, 12);
    expect(stats.avgAtK!.ci95).toEqual(stats.ci95Bootstrap);
  });

  test('no task gives no avg@K', () => {
    expect(avgAtK([])).toBeNull();
  });
});

describe('the sign-flip permutation test', () => {
  test('matches the enumeration of every sign pattern on small cases', () => {
    const cases = [
      [0.25, 0.5, -0.125, 0.75, 1, 0.25, -0.5],
      [1 / 3, 1 / 3, 2 / 3, -1 / 3, 1, 1 / 3],
      [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, -0.05],
      [1, -1, 1, -1],
    ];
    for (const d of cases) {
      const r = signFlipTest(d);
      expect(r.exact).toBe(true);
      expect(r.permutations).toBe(2 ** d.length);
      expect(r.p).toBeCloseTo(bruteForceSignFlip(d), 12);
    }
  });

  test('with differences of ±1 (one attempt per task) it is McNemar exact', () => {
    for (const [b, c] of [
      [2, 10],
      [0, 6],
      [5, 5],
      [1, 12],
    ] as const) {
      const d = [...Array<number>(b).fill(-1), ...Array<number>(c).fill(1), 0, 0];
      expect(signFlipTest(d).p).toBeCloseTo(exactBinomialTwoSided(b, b + c), 12);
    }
  });

  test('zeros carry no sign; no change at all gives p = 1', () => {
    expect(signFlipTest([0, 0, 0]).p).toBe(1);
    expect(signFlipTest([0.5, 0, 0.5, 0]).p).toBeCloseTo(bruteForceSignFlip([0.5, 0.5]), 12);
  });

  test('beyond the exact limit a seeded Monte-Carlo close to the exact value, the same on every run', () => {
    const d = [0.25, 0.5, -0.125, 0.75, 1, 0.25, -0.5, 0.125, 0.375, -0.25, 0.5, 0.125];
    const exact = signFlipTest(d).p;
    const mc = signFlipTest(d, { exactMax: 4, seed: 7, draws: 50_000 });
    expect(mc.exact).toBe(false);
    expect(mc.p).toBeCloseTo(exact, 2);
    expect(signFlipTest(d, { exactMax: 4, seed: 7, draws: 50_000 }).p).toBe(mc.p);
  });
});

describe('compare with several attempts per task', () => {
  test('pairs by task: per-task shares, their mean difference, a sign-flip p', () => {
    const a = run({ t1: [1, 4], t2: [0, 4], t3: [2, 4], t4: [4, 4] });
    const b = run({ t1: [3, 4], t2: [1, 4], t3: [2, 4], t4: [4, 4] });
    const r = compareRuns({ run: 'A', episodes: a }, { run: 'B', episodes: b }, { resamples: 2000 });
    expect(r.design).toBe('paired-task-shares');
    expect(r.mcnemar).toBeNull();
    expect(r.pairs).toBe(4);
    expect(r.taskShares!.perTask.map((t) => [t.task, t.a, t.b])).toEqual([
      ['t1', 0.25, 0.75],
      ['t2', 0, 0.25],
      ['t3', 0.5, 0.5],
      ['t4', 1, 1],
    ]);
    expect(r.taskShares!.diff).toBeCloseTo(0.75 / 4, 12);
    expect(r.diff).toBeCloseTo(r.taskShares!.diff, 12);
    // Two tasks moved: 4 sign patterns, the observed sum and its mirror reach |0.75|: p = 2/4.
    expect(r.taskShares!.test.p).toBeCloseTo(0.5, 12);
    expect(r.test).toEqual({ name: 'sign-flip-exact', p: r.taskShares!.test.p });
    expect(r.byCategory.files!.test.name).toBe('sign-flip-exact');
    expect(r.method).toContain('paired by task');
  });

  test('one task that flips on all of its 10 attempts is one observation, not 10 McNemar pairs', () => {
    // As 10 independent attempt pairs McNemar would say p = 2/1024 ≈ 0.002; one task of three moving
    // is no evidence at all (p = 1 over the 2 sign patterns).
    const a = run({ t1: [0, 10], t2: [5, 10], t3: [10, 10] });
    const b = run({ t1: [10, 10], t2: [5, 10], t3: [10, 10] });
    const r = compareRuns({ run: 'A', episodes: a }, { run: 'B', episodes: b }, { resamples: 1000 });
    expect(r.test.p).toBe(1);
    expect(r.test.p).toBeGreaterThan(0.05);
    expect(r.pairs).toBe(3);
  });

  test('one attempt per task keeps McNemar on attempt pairs', () => {
    const a = run({ t1: [0, 1], t2: [0, 1], t3: [1, 1] });
    const b = run({ t1: [1, 1], t2: [1, 1], t3: [1, 1] });
    const r = compareRuns({ run: 'A', episodes: a }, { run: 'B', episodes: b }, { resamples: 1000 });
    expect(r.design).toBe('paired-attempts');
    expect(r.taskShares).toBeNull();
    expect(r.mcnemar).toEqual({ b: 0, c: 2, p: 0.5 });
    expect(r.test).toEqual({ name: 'mcnemar-exact', p: 0.5 });
  });
});
