import { describe, expect, test } from 'vitest';
import { seededUniform } from '../../../native/util/random';
import { normalQuantile } from '../../../electron/lab/stats/distributions';
import { assumedDiscordance, powerAnalysis } from '../../../electron/lab/stats/power';

/** Share of simulated experiments in which the test rejects at alpha, for given per-task outcome probabilities. */
function simulate(
  kind: 'paired' | 'independent',
  n: number,
  p1: number,
  p2: number,
  rho: number,
  trials: number,
  seed: number,
): number {
  const u = seededUniform(seed);
  const z = normalQuantile(0.975);
  // Joint distribution of (A, B) on one task with correlation rho.
  const p11 = p1 * p2 + rho * Math.sqrt(p1 * (1 - p1) * p2 * (1 - p2));
  const p10 = p1 - p11;
  const p01 = p2 - p11;
  let rejected = 0;
  for (let t = 0; t < trials; t++) {
    if (kind === 'paired') {
      let b = 0;
      let c = 0;
      for (let i = 0; i < n; i++) {
        const r = u();
        if (r < p10) b++;
        else if (r < p10 + p01) c++;
      }
      if (b + c > 0 && (c - b) / Math.sqrt(b + c) > z) rejected++;
    } else {
      let x1 = 0;
      let x2 = 0;
      for (let i = 0; i < n; i++) {
        if (u() < p1) x1++;
        if (u() < p2) x2++;
      }
      const q = (x1 + x2) / (2 * n);
      const se = Math.sqrt(q * (1 - q) * (2 / n));
      if (se > 0 && (x2 - x1) / n / se > z) rejected++;
    }
  }
  return rejected / trials;
}

describe('power analysis', () => {
  test('the independent design matches the textbook sample size (Fleiss, no continuity correction)', () => {
    // p 0.5 -> 0.6, alpha 0.05, power 0.8: 388 per group.
    const r = powerAnalysis({ tasks: 388, base: 0.5, detect: 0.1 });
    expect(r.independent.tasksNeeded).toBe(388);
    expect(r.independent.mde).toBeCloseTo(0.1, 2);
  });

  test('MDEs hold up in simulation: the tests reject in about 80% of experiments at the MDE', () => {
    const n = 200;
    const base = 0.4;
    const r = powerAnalysis({ tasks: n, base, rho: 0.5 });
    const ind = r.independent.mde!;
    const pair = r.paired.mde!;
    expect(pair).toBeLessThan(ind);
    expect(simulate('independent', n, base, base + ind, 0, 4000, 7)).toBeCloseTo(0.8, 1);
    expect(simulate('paired', n, base, base + pair, 0.5, 4000, 11)).toBeCloseTo(0.8, 1);
    // And they are not trivially true: half the MDE gives far less power.
    expect(simulate('paired', n, base, base + pair / 2, 0.5, 2000, 13)).toBeLessThan(0.5);
    expect(r.paired.discordance).toBeCloseTo(assumedDiscordance(base, pair, 0.5), 12);
  });

  test('a given discordance is used as is, and the inverse gives the tasks needed', () => {
    const r = powerAnalysis({ tasks: 89, base: 0.3, discordance: 0.2, detect: 0.1 });
    expect(r.paired.discordance).toBe(0.2);
    expect(r.paired.discordanceSource).toBe('given');
    // Connor: n = ((z_a sqrt(psi) + z_b sqrt(psi - d^2)) / d)^2 = ((1.95996*0.44721 + 0.84162*0.43589)/0.1)^2 = 154.6 -> 155
    expect(r.paired.tasksNeeded).toBe(155);
    const again = powerAnalysis({ tasks: r.paired.tasksNeeded!, base: 0.3, discordance: 0.2 });
    expect(again.paired.mde!).toBeLessThanOrEqual(0.1 + 1e-9);
  });

  test('an impossible target reports null, not a number', () => {
    const r = powerAnalysis({ tasks: 3, base: 0.5, power: 0.99 });
    expect(r.independent.mde).toBeNull();
  });

  test('bad input names the field', () => {
    expect(() => powerAnalysis({ tasks: 10, base: 1.5 })).toThrow(/base/);
  });
});
