import { describe, expect, test } from 'vitest';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import { compareRuns } from '../../../electron/lab/stats/compare';
import {
  binomialPmf,
  exactBinomialTwoSided,
  normalCdf,
  normalQuantile,
} from '../../../electron/lab/stats/distributions';
import { passAtKCurve } from '../../../electron/lab/stats/pass-at-k';

function episode(
  taskId: string,
  attempt: number,
  resolved: boolean,
  category = 'debugging',
  dense = resolved ? 3 : 1,
): EpisodeRecord {
  return {
    key: `${taskId}@${attempt}`,
    taskId,
    attempt,
    category,
    difficulty: 'medium',
    resolved,
    reward: { dense, fraction: dense / 3, binary: resolved ? 1 : 0 },
    turns: 3,
    stopReason: 'submitted',
    error: null,
    tokens: { prompt: 10, completion: 5 },
    costUsd: null,
    durationMs: 1,
    dir: `episodes/${taskId}`,
    finishedAt: '2026-12-01T00:00:00Z',
  } as EpisodeRecord;
}

describe('distributions against textbook values', () => {
  test('the normal quantile and CDF', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 12);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 10);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 12);
    expect(normalCdf(-5)).toBeCloseTo(2.866515718791939e-7, 18);
    expect(normalCdf(0)).toBe(0.5);
  });

  test('the exact two-sided binomial test (McNemar on discordant pairs)', () => {
    // 2 of 12 discordant pairs one way: 2 * (1 + 12 + 66) / 4096.
    expect(exactBinomialTwoSided(2, 12)).toBeCloseTo((2 * 79) / 4096, 14);
    expect(exactBinomialTwoSided(10, 12)).toBeCloseTo((2 * 79) / 4096, 14);
    expect(exactBinomialTwoSided(0, 5)).toBeCloseTo(2 / 32, 14);
    expect(exactBinomialTwoSided(3, 6)).toBe(1);
    expect(exactBinomialTwoSided(0, 0)).toBe(1);
    expect(binomialPmf(3, 10, 0.3)).toBeCloseTo(0.266827932, 9);
  });
});

describe('pass@k curves', () => {
  test('every task resolved gives 1 with a degenerate band; the curve rises with k', () => {
    const all = passAtKCurve([
      { id: 'a', attempts: 3, resolved: 3 },
      { id: 'b', attempts: 3, resolved: 3 },
    ]);
    expect(all.map((p) => p.value)).toEqual([1, 1, 1]);
    expect(all[0]!.ci95).toEqual([1, 1]);
    const mixed = passAtKCurve([
      { id: 'a', attempts: 4, resolved: 1 },
      { id: 'b', attempts: 4, resolved: 0 },
      { id: 'c', attempts: 4, resolved: 2 },
    ]);
    expect(mixed).toHaveLength(4);
    expect(mixed[0]!.value).toBeCloseTo((0.25 + 0 + 0.5) / 3, 12);
    // pass@4 of a task with 1 of 4 is 1; with 0 of 4 is 0.
    expect(mixed[3]!.value).toBeCloseTo(2 / 3, 12);
    for (let i = 1; i < mixed.length; i++) expect(mixed[i]!.value).toBeGreaterThanOrEqual(mixed[i - 1]!.value);
    for (const p of mixed) expect(p.ci95[0]).toBeLessThanOrEqual(p.value + 1e-12);
  });
});

describe('compareRuns', () => {
  // 20 tasks: both resolve 7, only B resolves 7, only A resolves 1, neither 5.
  const outcome = (i: number): [boolean, boolean] =>
    i < 7 ? [true, true] : i < 14 ? [false, true] : i < 15 ? [true, false] : [false, false];
  const a = Array.from({ length: 20 }, (_, i) => episode(`t${i}`, 0, outcome(i)[0], i % 2 ? 'security' : 'debugging'));
  const b = Array.from({ length: 20 }, (_, i) => episode(`t${i}`, 0, outcome(i)[1], i % 2 ? 'security' : 'debugging'));

  test('rates, the paired difference with its bootstrap interval, and McNemar exact', () => {
    const r = compareRuns({ run: 'A', episodes: a }, { run: 'B', episodes: b });
    expect(r.paired).toBe(true);
    expect(r.tasks).toBe(20);
    expect(r.a.resolvedRate).toBeCloseTo(8 / 20, 12);
    expect(r.b.resolvedRate).toBeCloseTo(14 / 20, 12);
    expect(r.diff).toBeCloseTo(0.3, 12);
    expect(r.mcnemar).toEqual({ b: 1, c: 7, p: expect.closeTo((2 * 9) / 256, 12) });
    // The bootstrap interval agrees with the normal interval of the paired mean: 0.3 ± 1.96 · sd / √n.
    const sd = Math.sqrt(8 / 20 - 0.09);
    const half = (1.959964 * sd) / Math.sqrt(20);
    expect(r.diffCi95[0]).toBeCloseTo(0.3 - half, 1);
    expect(r.diffCi95[1]).toBeCloseTo(0.3 + half, 1);
    expect(r.diffCi95[0]).toBeGreaterThan(0);
    expect(r.reward.diff).toBeCloseTo((7 * 2 - 1 * 2) / 20, 12);
    expect(Object.keys(r.byCategory)).toEqual(['debugging', 'security']);
    expect(r.byCategory.debugging!.tasks + r.byCategory.security!.tasks).toBe(20);
    expect(r.changed).toHaveLength(8);
    expect(r.warnings).toEqual([]);
  });

  test('the same run against itself: no difference, p = 1', () => {
    const r = compareRuns({ run: 'A', episodes: a }, { run: 'A2', episodes: a });
    expect(r.diff).toBe(0);
    expect(r.diffCi95).toEqual([0, 0]);
    expect(r.mcnemar).toEqual({ b: 0, c: 0, p: 1 });
  });

  test('attempts of one task stay together; tasks in one run only are listed and left out', () => {
    const a2 = [
      ...a.slice(0, 10).flatMap((e) => [e, { ...e, attempt: 1, key: `${e.taskId}@1` }]),
      episode('only-a', 0, true),
    ];
    const b2 = [
      ...b.slice(0, 10).flatMap((e) => [e, { ...e, attempt: 1, key: `${e.taskId}@1`, resolved: false }]),
      episode('only-b', 0, false),
    ];
    const r = compareRuns({ run: 'A', episodes: a2 }, { run: 'B', episodes: b2 });
    expect(r.tasks).toBe(10);
    // Two attempts per task: the tasks are the paired units, not the 20 attempt pairs.
    expect(r.design).toBe('paired-task-shares');
    expect(r.pairs).toBe(10);
    expect(r.onlyA).toEqual(['only-a']);
    expect(r.onlyB).toEqual(['only-b']);
    expect(r.warnings.join(' ')).toContain('one run only');
    // B resolves every first attempt of t0..t9 and no second attempt: each task's rate is 1/2.
    expect(r.b.resolvedRate).toBeCloseTo(0.5, 12);
    expect(r.mcnemar).toBeNull();
    expect(r.taskShares!.perTask.filter((t) => t.a !== t.b)).toHaveLength(r.taskShares!.test.nonZero);
    expect(r.a.passAtK.map((p) => p.k)).toEqual([1, 2]);
  });

  test('runs with no task in common fall back to an unpaired comparison with a warning', () => {
    const other = b.map((e) => ({ ...e, taskId: `x${e.taskId}`, key: `x${e.key}` }));
    const r = compareRuns({ run: 'A', episodes: a }, { run: 'B', episodes: other });
    expect(r.paired).toBe(false);
    expect(r.mcnemar).toBeNull();
    expect(r.warnings[0]).toContain('share no task');
    expect(r.diff).toBeCloseTo(0.3, 12);
    expect(r.unpairedTest!.p).toBeGreaterThan(0.04);
    expect(r.unpairedTest!.p).toBeLessThan(0.1);
    // Unpaired intervals are wider than paired ones for the same rates.
    const paired = compareRuns({ run: 'A', episodes: a }, { run: 'B', episodes: b });
    expect(r.diffCi95[1] - r.diffCi95[0]).toBeGreaterThan(paired.diffCi95[1] - paired.diffCi95[0]);
  });
});
