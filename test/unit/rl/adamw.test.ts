/**
 * AdamW against a reference written out here from the paper's update rule (scalar by scalar, float64),
 * on a small least-squares problem with parameter groups (no decay on a "norm", a scaled-lr group, a
 * frozen parameter), global-norm clipping and a warm-up + cosine schedule.
 */
import { describe, expect, it } from 'vitest';
import { adamwStep, createOptimizerState } from '../../../electron/rl/adamw';
import { clipScale, globalGradNorm } from '../../../electron/rl/grad-clip';
import { globToRegExp, resolveParamGroups } from '../../../electron/rl/param-groups';
import { learningRate } from '../../../electron/rl/schedule';

const names = ['layers.0.attn.wq', 'layers.0.attn_norm.weight', 'value_head.weight', 'embed.weight'];

/** Loss = sum_p 0.5 * ||A_p w_p - b_p||^2 with fixed A, b per parameter; its gradient is A^T (A w - b). */
function problem(seed: number) {
  let s = seed;
  const r = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  return names.map(() => ({
    A: Array.from({ length: 3 }, () => Array.from({ length: 4 }, r)),
    b: Array.from({ length: 3 }, r),
    w0: Array.from({ length: 4 }, r),
  }));
}

function grad(A: number[][], b: number[], w: ArrayLike<number>): number[] {
  const res = A.map((row, i) => row.reduce((acc, a, j) => acc + a * w[j]!, 0) - b[i]!);
  return w.length
    ? Array.from({ length: w.length }, (_, j) => A.reduce((acc, row, i) => acc + row[j]! * res[i]!, 0))
    : [];
}

describe('AdamW', () => {
  it('matches a reference implementation of the update rule, with groups, freezing, clipping and a schedule', () => {
    const prob = problem(7);
    const opts = { weightDecay: 0.1, groups: [{ pattern: 'value_head.*', lrScale: 3 }], freeze: ['embed.weight'] };
    const { settings } = resolveParamGroups(names, opts);
    const hyper = { beta1: 0.9, beta2: 0.95, eps: 1e-8 };
    const schedule = { kind: 'cosine' as const, lr: 0.05, warmupSteps: 2, totalSteps: 8, minLrRatio: 0.1 };
    const maxNorm = 0.5;

    const params = new Map(names.map((n, i) => [n, Float32Array.from(prob[i]!.w0)]));
    const state = createOptimizerState(params);
    // Reference: plain numbers, written from the algorithm.
    const ref = names.map((_, i) => ({
      w: [...prob[i]!.w0].map((x) => Math.fround(x)),
      m: [0, 0, 0, 0],
      v: [0, 0, 0, 0],
    }));
    const refLr = {
      'layers.0.attn.wq': 1,
      'layers.0.attn_norm.weight': 1,
      'value_head.weight': 3,
      'embed.weight': 0,
    } as Record<string, number>;
    const refWd = {
      'layers.0.attn.wq': 0.1,
      'layers.0.attn_norm.weight': 0,
      'value_head.weight': 0.1,
      'embed.weight': 0,
    } as Record<string, number>;

    for (let t = 1; t <= 8; t++) {
      const grads = new Map(names.map((n, i) => [n, Float32Array.from(grad(prob[i]!.A, prob[i]!.b, params.get(n)!))]));
      const norm = globalGradNorm(grads, (n) => !settings.get(n)!.frozen);
      const scale = clipScale(norm, maxNorm);
      const lr = learningRate(schedule, t);
      adamwStep(params, grads, state, settings, lr, hyper, scale);

      // The reference step.
      const refGrads = names.map((n, i) => grad(prob[i]!.A, prob[i]!.b, ref[i]!.w).map((g) => Math.fround(g)));
      let sq = 0;
      names.forEach((n, i) => n !== 'embed.weight' && refGrads[i]!.forEach((g) => (sq += g * g)));
      const c = Math.sqrt(sq) > maxNorm ? maxNorm / (Math.sqrt(sq) + 1e-6) : 1;
      const refRate = t <= 2 ? (0.05 * t) / 2 : 0.005 + 0.045 * 0.5 * (1 + Math.cos((Math.PI * (t - 2)) / 6));
      expect(lr).toBeCloseTo(refRate, 12);
      names.forEach((n, i) => {
        if (n === 'embed.weight') return;
        const p = ref[i]!;
        const a = refRate * refLr[n]!;
        for (let j = 0; j < 4; j++) {
          const g = refGrads[i]![j]! * c;
          p.m[j] = 0.9 * p.m[j]! + 0.1 * g;
          p.v[j] = 0.95 * p.v[j]! + 0.05 * g * g;
          const mHat = p.m[j]! / (1 - 0.9 ** t);
          const vHat = p.v[j]! / (1 - 0.95 ** t);
          p.w[j] = p.w[j]! - a * refWd[n]! * p.w[j]! - (a * mHat) / (Math.sqrt(vHat) + 1e-8);
        }
      });
    }
    names.forEach((n, i) => {
      const got = params.get(n)!;
      if (n === 'embed.weight') expect(Array.from(got)).toEqual(prob[i]!.w0.map((x) => Math.fround(x)));
      else for (let j = 0; j < 4; j++) expect(Math.abs(got[j]! - ref[i]!.w[j]!)).toBeLessThan(1e-6);
    });
    expect(state.step).toBe(8);
  });

  it('is deterministic bit for bit and refuses a missing gradient', () => {
    const run = () => {
      const params = new Map([['a.weight', Float32Array.from([1, -2, 3])]]);
      const state = createOptimizerState(params);
      const { settings } = resolveParamGroups(['a.weight'], { weightDecay: 0.01 });
      for (let t = 0; t < 5; t++)
        adamwStep(params, new Map([['a.weight', Float32Array.from([0.3, -0.1, 0.7 * t])]]), state, settings, 0.01, {
          beta1: 0.9,
          beta2: 0.999,
          eps: 1e-8,
        });
      return Array.from(params.get('a.weight')!);
    };
    expect(run()).toEqual(run());
    const params = new Map([['a.weight', new Float32Array(2)]]);
    expect(() =>
      adamwStep(params, new Map(), createOptimizerState(params), new Map(), 0.1, { beta1: 0.9, beta2: 0.9, eps: 1e-8 }),
    ).toThrow(/no gradient for trainable parameter 'a.weight'/);
  });
});

describe('parameter groups', () => {
  it('exempts norms, biases and the router from weight decay and reports patterns that match nothing', () => {
    const all = [
      'embed.weight',
      'layers.0.attn_norm.weight',
      'layers.0.moe.router',
      'layers.0.moe.w_up',
      'final_norm.weight',
      'value_head.bias',
      'value_head.weight',
    ];
    const { settings, unmatched } = resolveParamGroups(all, {
      weightDecay: 0.1,
      freeze: ['embed.*', 'nothing.here'],
      groups: [{ pattern: 'layers.*.moe.router', lrScale: 0.5 }],
    });
    expect(settings.get('layers.0.attn_norm.weight')!.weightDecay).toBe(0);
    expect(settings.get('final_norm.weight')!.weightDecay).toBe(0);
    expect(settings.get('value_head.bias')!.weightDecay).toBe(0);
    expect(settings.get('layers.0.moe.router')).toMatchObject({ weightDecay: 0, lrScale: 0.5 });
    expect(settings.get('layers.0.moe.w_up')!.weightDecay).toBe(0.1);
    expect(settings.get('embed.weight')!.frozen).toBe(true);
    expect(unmatched).toEqual(['nothing.here']);
    expect(globToRegExp('layers.*.attn.*').test('layers.12.attn.wq')).toBe(true);
    expect(globToRegExp('layers.*.attn.*').test('layers.1.moe.attn.wq')).toBe(false);
  });
});

describe('schedules', () => {
  it('warm up linearly, then hold, decay linearly or follow a cosine to the floor', () => {
    const base = { lr: 1, warmupSteps: 10, totalSteps: 110, minLrRatio: 0.1 };
    expect(learningRate({ ...base, kind: 'constant' }, 5)).toBeCloseTo(0.5);
    expect(learningRate({ ...base, kind: 'constant' }, 100)).toBe(1);
    expect(learningRate({ ...base, kind: 'linear' }, 60)).toBeCloseTo(0.55);
    expect(learningRate({ ...base, kind: 'linear' }, 110)).toBeCloseTo(0.1);
    expect(learningRate({ ...base, kind: 'cosine' }, 60)).toBeCloseTo(0.55);
    expect(learningRate({ ...base, kind: 'cosine' }, 110)).toBeCloseTo(0.1);
    expect(learningRate({ ...base, kind: 'cosine' }, 35)).toBeGreaterThan(0.55);
  });
});
