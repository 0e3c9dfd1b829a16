/** Runs pooled over seeds: the mean and min..max band of a metric, and of curves that differ in length. */
import { describe, expect, test } from 'vitest';
import { bandOf, differingKeys, isSeedKey, settingsKey, spreadOf } from '../../../electron/domain/seed-groups';

describe('spreadOf', () => {
  test('mean and min..max of the runs that have the metric; none: null', () => {
    expect(spreadOf([0.5, 0.25, 0.75])).toEqual({ mean: 0.5, min: 0.25, max: 0.75, n: 3 });
    expect(spreadOf([1, null, undefined, Number.NaN, 3])).toEqual({ mean: 2, min: 1, max: 3, n: 2 });
    expect(spreadOf([null, undefined])).toBeNull();
    expect(spreadOf([-2])).toEqual({ mean: -2, min: -2, max: -2, n: 1 });
  });
});

describe('bandOf', () => {
  test('curves of different lengths: each step pools the runs that logged it, a shorter run drops out', () => {
    const band = bandOf([
      { x: [1, 2, 3, 4], y: [0, 2, 4, 6] },
      { x: [1, 2], y: [2, 4] },
      { x: [1, 2, 3], y: [1, 0, 5] },
    ]);
    expect(band).toEqual([
      { x: 1, mean: 1, min: 0, max: 2, n: 3 },
      { x: 2, mean: 2, min: 0, max: 4, n: 3 },
      { x: 3, mean: 4.5, min: 4, max: 5, n: 2 },
      { x: 4, mean: 6, min: 6, max: 6, n: 1 },
    ]);
  });

  test('steps logged by some runs only (decimated, or a metric logged every other step) are pooled where present', () => {
    const band = bandOf([
      { x: [4, 0, 2], y: [40, 0, 20] },
      { x: [1, 2, 3], y: [10, 30, 30] },
    ]);
    expect(band.map((p) => [p.x, p.mean, p.n])).toEqual([
      [0, 0, 1],
      [1, 10, 1],
      [2, 25, 2],
      [3, 30, 1],
      [4, 40, 1],
    ]);
  });

  test('non-finite values are skipped, never averaged in', () => {
    expect(
      bandOf([
        { x: [1, 2], y: [Number.NaN, 1] },
        { x: [1], y: [3] },
      ]),
    ).toEqual([
      { x: 1, mean: 3, min: 3, max: 3, n: 1 },
      { x: 2, mean: 1, min: 1, max: 1, n: 1 },
    ]);
    expect(bandOf([])).toEqual([]);
  });
});

describe('settings without seeds', () => {
  test('seed keys at any depth are left out; runs that differ only in seed (and concurrency) share a key', () => {
    expect(['config.seed', 'config.policySettings.seed', 'config.model.init_seed', 'seed'].every(isSeedKey)).toBe(true);
    expect(['config.seeds_file', 'config.seedless', 'config.attempts'].some(isSeedKey)).toBe(false);
    const a = settingsKey({
      'config.seed': 1,
      'config.policy': 'p',
      'config.policySettings.seed': 7,
      'config.concurrency': 2,
    });
    const b = settingsKey({ 'config.policy': 'p', 'config.seed': 2, 'config.concurrency': 8 });
    expect(a).toBe(b);
    expect(settingsKey({ 'config.policy': 'q', 'config.seed': 1 })).not.toBe(a);
  });

  test('the keys in which groups differ name them', () => {
    expect(
      differingKeys([
        { 'config.policy': 'p', 'config.temp': 0, 'config.seed': 1 },
        { 'config.policy': 'p', 'config.temp': 1, 'config.seed': 2 },
      ]),
    ).toEqual(['config.temp']);
    expect(differingKeys([{ a: 1 }, { a: 1, b: 2 }])).toEqual(['b']);
  });
});
