/**
 * GAE on a multi-turn mask against a reference written as the definition (A_t = sum_l (gamma lambda)^l
 * delta_{t+l} over the sampled tokens only), plus the group-relative estimator, normalisation, rewards and
 * the batch statistics.
 */
import { describe, expect, it } from 'vitest';
import {
  flatGroups,
  gae,
  groupAdvantages,
  maskedGae,
  normalizeAdvantages,
  singletonGroups,
  whitenWithSignal,
} from '../../../electron/rl/advantages';
import { ppoSection } from '../../helpers/ppo-experience';
import { normalizeRewards, trainingReward } from '../../../electron/rl/rewards';
import { explainedVariance, logprobGap, tisWeights } from '../../../electron/rl/token-metrics';

/** The definition, summed explicitly: steps are the mask-1 positions; the reward is on the last one. */
function referenceGae(values: number[], mask: number[], reward: number, gamma: number, lambda: number) {
  const steps = mask.flatMap((m, i) => (m === 1 ? [i] : []));
  const V = (j: number) => (j < steps.length ? values[steps[j]!]! : 0);
  const r = (j: number) => (j === steps.length - 1 ? reward : 0);
  const delta = (j: number) => r(j) + gamma * V(j + 1) - V(j);
  const adv = new Array<number>(mask.length).fill(0);
  steps.forEach((p, j) => {
    let a = 0;
    for (let l = 0; j + l < steps.length; l++) a += (gamma * lambda) ** l * delta(j + l);
    adv[p] = a;
  });
  return adv;
}

describe('GAE over sampled tokens', () => {
  // prompt(3) | sampled(3) | observation(4) | sampled(2) | template(1)
  const mask = [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0];
  const values = [9, 9, 9, 0.2, 0.4, 0.1, -7, 5, 3, 8, 0.7, 0.3, 4];

  it('equals the definition on a multi-turn mask for several gamma, lambda', () => {
    for (const [gamma, lambda] of [
      [1, 1],
      [0.9, 0.95],
      [0.5, 0.3],
      [1, 0],
    ] as const) {
      const got = maskedGae(values, mask, 2.5, { gamma, lambda });
      const want = referenceGae(values, mask, 2.5, gamma, lambda);
      got.advantages.forEach((a, i) => expect(a, `gamma ${gamma} lambda ${lambda} at ${i}`).toBeCloseTo(want[i]!, 12));
      got.returns.forEach((r, i) => expect(r).toBeCloseTo(mask[i] ? want[i]! + values[i]! : 0, 12));
    }
  });

  it('skips observation tokens rather than treating them as zero-reward steps', () => {
    const { advantages } = maskedGae(values, mask, 1, { gamma: 0.5, lambda: 1 });
    // Last step of turn 1 (index 5) bootstraps from the first step of turn 2 (index 10), not index 6.
    // A_11 = 1 - 0.3; A_10 = (0.5 * 0.3 - 0.7) + 0.5 A_11 = -0.2; A_5 = (0.5 * 0.7 - 0.1) + 0.5 A_10 = 0.15.
    expect(advantages[11]).toBeCloseTo(0.7, 12);
    expect(advantages[10]).toBeCloseTo(-0.2, 12);
    expect(advantages[5]).toBeCloseTo(0.15, 12);
    expect(advantages[6]).toBe(0);
    // gamma = lambda = 1: every step's advantage is R - V(step).
    const ones = maskedGae(values, mask, 1, { gamma: 1, lambda: 1 });
    for (const p of [3, 4, 5, 10, 11]) expect(ones.advantages[p]).toBeCloseTo(1 - values[p]!, 12);
  });

  it('gae rejects mismatched inputs', () => {
    expect(() => gae([1], [1, 2], { gamma: 1, lambda: 1 })).toThrow(/1 rewards for 2 values/);
  });
});

describe('group-relative advantages and normalisation', () => {
  it('subtracts the group mean and divides by the group std', () => {
    const a = groupAdvantages([1, 3, 5, 5], ['a', 'a', 'b', 'b'], { scale: 'group', eps: 0 });
    expect(a.slice(0, 2)).toEqual([-1, 1]);
    expect(a.slice(2)).toEqual([0, 0]);
    expect(groupAdvantages([1, 3, 2], ['a', 'a', 'c'], { scale: 'none' })).toEqual([-1, 1, 0]);
  });

  it("'batch' divides every group's centred rewards by one std over the moving episodes, keeping proportions", () => {
    // Group a differs by 0.2 (one assertion of a dense reward), group b by 2 (success), group c is flat.
    const a = groupAdvantages([0.4, 0.6, 0, 2, 1, 1], ['a', 'a', 'b', 'b', 'c', 'c'], { scale: 'batch', eps: 0 });
    const rms = Math.sqrt((0.1 ** 2 * 2 + 1 ** 2 * 2) / 4);
    [-0.1, 0.1, -1, 1].forEach((c, i) => expect(a[i]).toBeCloseTo(c / rms, 12));
    expect(a.slice(4)).toEqual([0, 0]);
    expect(a[3]! / a[1]!).toBeCloseTo(10, 12);
    // Per group, both groups would have been +-1: the one-assertion difference trained as hard as success.
    expect(groupAdvantages([0.4, 0.6, 0, 2], ['a', 'a', 'b', 'b'], { scale: 'group', eps: 0 })).toEqual([-1, 1, -1, 1]);
    expect(groupAdvantages([1, 1], ['c', 'c'], { scale: 'batch' })).toEqual([0, 0]);
  });

  it('whitens advantages over loss tokens only', () => {
    const rows = [Float64Array.from([100, 1, 2]), Float64Array.from([3, -50])];
    const stats = normalizeAdvantages(
      rows,
      [
        [0, 1, 1],
        [1, 0],
      ],
      0,
    );
    expect(stats.mean).toBeCloseTo(2, 12);
    expect(rows[0]![0]).toBe(100);
    expect(rows[1]![1]).toBe(-50);
    const kept = [rows[0]![1]!, rows[0]![2]!, rows[1]![0]!];
    expect(kept.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 12);
    expect(kept.reduce((a, b) => a + b * b, 0) / 3).toBeCloseTo(1, 12);
  });

  it('shapes and normalises rewards', () => {
    const r = { dense: 3, fraction: 0.75, binary: 0 };
    expect([
      trainingReward(r, 'dense'),
      trainingReward(r, 'fraction'),
      trainingReward(r, 'binary'),
      trainingReward(null, 'dense'),
    ]).toEqual([3, 0.75, 0, 0]);
    const batch = normalizeRewards([0, 2, 4, 6], ['a', 'a', 'b', 'b'], 'batch', 0);
    expect(batch.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 12);
    expect(normalizeRewards([0, 2, 4, 6], ['a', 'a', 'b', 'b'], 'group', 0)).toEqual([-1, 1, -1, 1]);
    expect(normalizeRewards([1, 2], ['a', 'b'], 'none')).toEqual([1, 2]);
  });
});

describe('batch statistics', () => {
  it('explained variance, TIS weights and the logprob gap', () => {
    expect(explainedVariance([[1, 2, 3]], [[1, 2, 3]], [[1, 1, 1]])).toBeCloseTo(1, 12);
    expect(explainedVariance([[0, 0, 9]], [[1, 3, 100]], [[1, 1, 0]])).toBeCloseTo(1 - 1 / 1, 12);
    expect(explainedVariance([[2, 2]], [[1, 3]], [[1, 1]])).toBeCloseTo(0, 12);
    const w = tisWeights([0, -1, 2, 0], [0, 0, 0, 5], [1, 1, 1, 0], 2);
    expect([...w]).toEqual([1, Math.exp(-1), 2, 1]);
    expect(logprobGap([[0, 1, 5]], [[0.5, 1, 0]], [[1, 1, 0]])).toEqual({ mean: 0.25, max: 0.5, tokens: 2 });
  });
});

describe('groups without a policy signal', () => {
  it('finds groups whose episodes all got the same reward', () => {
    expect(flatGroups([0, 0, 1, 0, 2, 2, 5], ['a', 'a', 'b', 'b', 'c', 'c', 'd'])).toEqual([
      true,
      true,
      false,
      false,
      true,
      true,
      false,
    ]);
  });

  it('a group of one episode is not flat (GAE still has its critic baseline); it is a singleton', () => {
    expect(flatGroups([3], ['solo'])).toEqual([false]);
    expect(singletonGroups(['a', 'b', 'b', 'c'])).toEqual([true, false, false, true]);
  });

  it('group_size 1 with group advantages is a config error naming the key', () => {
    expect(() => ppoSection({ advantage: 'group', group_size: 1 })).toThrow(
      /ppo\.group_size: 1 with advantage = "group" gives every episode a zero advantage/,
    );
    expect(ppoSection({ advantage: 'gae', group_size: 1 }).group_size).toBe(1);
  });

  it('skip: flat rows get advantage 0 and stay out of the whitening; train: whitening amplifies their critic error', () => {
    // Row 0 is a flat group's (all rewards 0: its advantage is only the critic's error), rows 1-2 carry signal.
    const rows = () => [Float64Array.from([0.01, -0.02]), Float64Array.from([1, 1]), Float64Array.from([-1, -1])];
    const masks = [
      [1, 1],
      [1, 1],
      [1, 1],
    ];
    const skipped = rows();
    const s = whitenWithSignal(skipped, masks, [true, false, false], { normalize: true, skipFlat: true });
    expect(Array.from(skipped[0]!)).toEqual([0, 0]);
    expect(s).toEqual({ mean: 0, std: 1 });
    expect(Array.from(skipped[1]!).map((v) => +v.toFixed(6))).toEqual([1, 1]);
    const trained = rows();
    whitenWithSignal(trained, masks, [true, false, false], { normalize: true, skipFlat: false });
    expect(Math.abs(trained[0]![1]!)).toBeGreaterThan(0);
    // Every row flat: nothing to learn, every advantage 0.
    const none = rows();
    whitenWithSignal(none, masks, [true, true, true], { normalize: true, skipFlat: true });
    expect(none.flatMap((r) => Array.from(r))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
