import { describe, expect, test } from 'vitest';
import { normalQuantile } from '../../../electron/lab/stats/distributions';
import { powerAnalysis } from '../../../electron/lab/stats/power';
import { avgAtKPower, measureAttemptNoise, taskDifferenceSd } from '../../../electron/lab/stats/power-avg-at-k';
import { seededUniform } from '../../../native/util/random';

const zA = normalQuantile(0.975);
const zB = normalQuantile(0.8);

describe('power of the avg@K design', () => {
  test('K = 1 with every task equally hard is the unpooled two-proportion formula', () => {
    // (z_0.975 + z_0.8) * sqrt(2 p (1 - p) / n) at p = 0.3, n = 100: 2.8016 * 0.0648 = 0.1816.
    const r = powerAnalysis({ tasks: 100, base: 0.3, attempts: 1, attemptNoise: 1 });
    expect(r.avgAtK.mde).toBeCloseTo((zA + zB) * Math.sqrt((2 * 0.3 * 0.7) / 100), 10);
    expect(r.avgAtK.mde).toBeCloseTo(0.1816, 3);
  });

  test('the closed form: sd^2 = 2V(1 - rho) + 2W/K', () => {
    const sd = taskDifferenceSd({ base: 0.2, attempts: 8, attemptNoise: 0.25, rho: 0.6 });
    const total = 0.2 * 0.8;
    expect(sd ** 2).toBeCloseTo(2 * 0.75 * total * 0.4 + (2 * 0.25 * total) / 8, 14);
  });

  test('more attempts, more tasks, a laxer alpha or less power detect smaller gains; no attempt noise makes K useless', () => {
    const mde = (over: Record<string, number>) => powerAnalysis({ tasks: 65, base: 0.2, ...over }).avgAtK.mde!;
    const ks = [1, 2, 4, 8, 16, 64].map((attempts) => mde({ attempts }));
    for (let i = 1; i < ks.length; i++) expect(ks[i]).toBeLessThan(ks[i - 1]!);
    expect(mde({ tasks: 200, attempts: 8 })).toBeLessThan(mde({ tasks: 65, attempts: 8 }));
    expect(mde({ alpha: 0.1, attempts: 8 })).toBeLessThan(mde({ attempts: 8 }));
    expect(mde({ power: 0.5, attempts: 8 })).toBeLessThan(mde({ attempts: 8 }));
    expect(mde({ attemptNoise: 0, attempts: 1 })).toBeCloseTo(mde({ attemptNoise: 0, attempts: 64 }), 12);
    // The between-task floor that K cannot remove: (zA + zB) * sqrt(2V(1 - rho) / n).
    expect(mde({ attempts: 10_000 })).toBeCloseTo((zA + zB) * Math.sqrt((2 * 0.5 * 0.16 * 0.5) / 65), 3);
  });

  test('tasks needed for a gain meets that gain at the asked power', () => {
    const r = powerAnalysis({ tasks: 65, base: 0.2, attempts: 8, detect: 0.05 });
    const n = r.avgAtK.tasksNeeded!;
    expect(avgAtKPower(n, 0.05, r.avgAtK.taskSd, zA)).toBeGreaterThanOrEqual(0.8);
    expect(avgAtKPower(n - 1, 0.05, r.avgAtK.taskSd, zA)).toBeLessThan(0.8);
  });

  test('a simulation of the model rejects at about the predicted power at the MDE', () => {
    // Tasks are easy (p = 0.8) or hard (p = 0.2) with equal odds: V = 0.09, W = 0.16, attemptNoise = 0.64;
    // B adds the same d to every task (rho = 1). The test is the z-test on the mean of per-task differences.
    const n = 80;
    const k = 4;
    const r = powerAnalysis({ tasks: n, base: 0.5, attempts: k, attemptNoise: 0.64, rho: 0.999999 });
    const d = r.avgAtK.mde!;
    const random = seededUniform(11);
    const share = (p: number) => {
      let s = 0;
      for (let i = 0; i < k; i++) s += random() < p ? 1 : 0;
      return s / k;
    };
    let rejected = 0;
    const sims = 1500;
    for (let sim = 0; sim < sims; sim++) {
      const diffs = Array.from({ length: n }, () => {
        const p = random() < 0.5 ? 0.2 : 0.8;
        return share(p + d) - share(p);
      });
      const m = diffs.reduce((a, b) => a + b, 0) / n;
      const sd = Math.sqrt(diffs.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1));
      if (Math.abs(m / (sd / Math.sqrt(n))) > zA) rejected++;
    }
    expect(rejected / sims).toBeGreaterThan(0.74);
    expect(rejected / sims).toBeLessThan(0.86);
  });

  test('a run with several attempts measures the attempt noise', () => {
    // Every task at 2 of 4: all variance is between attempts.
    expect(
      measureAttemptNoise([
        { attempts: 4, resolved: 2 },
        { attempts: 4, resolved: 2 },
      ])!.attemptNoise,
    ).toBe(1);
    // Tasks always or never solved: none is.
    const m = measureAttemptNoise([
      { attempts: 4, resolved: 4 },
      { attempts: 4, resolved: 0 },
      { attempts: 4, resolved: 0 },
    ])!;
    expect(m.attemptNoise).toBe(0);
    expect(m.base).toBeCloseTo(1 / 3, 12);
    expect(m.attempts).toBe(4);
    expect(
      measureAttemptNoise([
        { attempts: 1, resolved: 1 },
        { attempts: 1, resolved: 0 },
      ]),
    ).toBeNull();
  });

  test('the greedy (McNemar) design is still answered alongside', () => {
    const r = powerAnalysis({ tasks: 65, base: 0.2, attempts: 8 });
    expect(r.paired.mde).not.toBeNull();
    expect(r.avgAtK.attempts).toBe(8);
    expect(r.avgAtK.mde).toBeLessThan(r.independent.mde!);
  });
});
