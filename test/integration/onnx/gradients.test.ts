/** Every gradient rule of native/onnx/autodiff.ts against float64 central finite differences, in real onnxruntime sessions. */
import { describe, expect, it } from 'vitest';
import { i64 } from '../../../native/onnx/runtime';
import { gradCheck } from '../../helpers/gradcheck';

const TOLERANCE = 1e-7;

describe('autodiff gradient rules (float64 finite differences)', () => {
  it('add, sub with broadcasting', async () => {
    const r = await gradCheck(
      [
        { name: 'a', shape: [2, 3, 4] },
        { name: 'b', shape: [3, 1] },
      ],
      (ad, x) => ad.sub(ad.add(x.a!, x.b!), ad.mul(x.b!, ad.constant(2))),
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('mul, div with broadcasting', async () => {
    const r = await gradCheck(
      [
        { name: 'a', shape: [2, 3] },
        { name: 'b', shape: [1, 3], range: 'positive' },
      ],
      (ad, x) => ad.div(ad.mul(x.a!, x.b!), ad.add(x.b!, x.a!)),
      { seed: 2 },
    );
    // a + b can approach 0 for symmetric a: keep b positive and a small
    expect(r.worst).toBeLessThan(1e-5);
  });

  it('neg, exp, log, sqrt, reciprocal, sigmoid, square, silu', async () => {
    const r = await gradCheck([{ name: 'a', shape: [3, 4], range: 'positive' }], (ad, x) => {
      const a = x.a!;
      const parts = [
        ad.neg(a),
        ad.exp(a),
        ad.log(a),
        ad.sqrt(a),
        ad.reciprocal(a),
        ad.sigmoid(a),
        ad.square(a),
        ad.silu(a),
      ];
      return parts.reduce((s, p) => ad.add(s, p));
    });
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('where, minimum, maximum, clip', async () => {
    const r = await gradCheck(
      [
        { name: 'a', shape: [4, 3] },
        { name: 'b', shape: [4, 3] },
      ],
      (ad, x) => ad.add(ad.add(ad.minimum(x.a!, x.b!), ad.maximum(x.a!, ad.constant(0.1))), ad.clip(x.b!, -0.5, 0.5)),
      { seed: 3 },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('reduceSum (keepdims and not), reduceMean', async () => {
    const r = await gradCheck([{ name: 'a', shape: [2, 3, 4] }], (ad, x) =>
      ad.add(ad.reduceMean(x.a!, [1], true), ad.reshape(ad.reduceSum(x.a!, [0, 2], false), [1, 3, 1])),
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('softmax and logSoftmax', async () => {
    const r = await gradCheck(
      [{ name: 'a', shape: [3, 5] }],
      (ad, x) => ad.add(ad.softmax(x.a!, -1), ad.logSoftmax(ad.mul(x.a!, ad.constant(2)), -1)),
      { seed: 4 },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('rmsNorm', async () => {
    const r = await gradCheck(
      [
        { name: 'a', shape: [2, 3, 4] },
        { name: 'w', shape: [4] },
      ],
      (ad, x) => ad.rmsNorm(x.a!, x.w!, 1e-6),
      { seed: 5 },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('matmul: 2-D, batched with broadcast, rank-3 by shared weight', async () => {
    const r = await gradCheck(
      [
        { name: 'a', shape: [3, 4] },
        { name: 'b', shape: [4, 2] },
        { name: 'c', shape: [2, 1, 3, 4] },
        { name: 'd', shape: [5, 4, 2] },
      ],
      (ad, x) => {
        const ab = ad.matmul(x.a!, x.b!); // [3,2]
        const cd = ad.matmul(x.c!, x.d!); // [2,5,3,2]
        const cb = ad.matmul(ad.reshape(x.c!, [2, 3, 4]), x.b!); // [2,3,2] (Gemm path)
        return ad.add(ad.add(cd, ab), ad.reshape(cb, [2, 1, 3, 2]));
      },
      { seed: 6 },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('reshape and transpose', async () => {
    const r = await gradCheck(
      [{ name: 'a', shape: [2, 3, 4] }],
      (ad, x) =>
        ad.add(
          ad.transpose(ad.reshape(x.a!, [6, -1]), [1, 0]),
          ad.reshapeAs(ad.reshape(x.a!, [0, 12]), ad.constant(new Array(24).fill(0), [4, 6])),
        ),
      { seed: 7 },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('gather (embedding rows, repeated ids)', async () => {
    const r = await gradCheck(
      [{ name: 'table', shape: [5, 3] }],
      (ad, x) => ad.gather(x.table!, ad.wrap('ids', [2, 3], 'int64')),
      {
        declareExtra: (ad) => ({ ids: ad.input('ids', [2, 3], 'int64') }),
        extraFeeds: { ids: i64([0, 4, 4, 1, 0, 2], [2, 3]) },
      },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('gatherElements and scatterElementsIntoZeros', async () => {
    const r = await gradCheck(
      [
        { name: 'a', shape: [3, 4] },
        { name: 'u', shape: [3, 2] },
      ],
      (ad, x) => {
        const idx = ad.wrap('idx', [3, 2], 'int64');
        const picked = ad.gatherElements(x.a!, idx, 1); // [3,2]
        const scattered = ad.scatterElementsIntoZeros(x.a!, idx, ad.mul(picked, x.u!), 1); // [3,4]
        return ad.add(scattered, x.a!);
      },
      {
        declareExtra: (ad) => ({ idx: ad.input('idx', [3, 2], 'int64') }),
        extraFeeds: { idx: i64([1, 3, 0, 2, 3, 1], [3, 2]) },
        seed: 8,
      },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('scatterRowsAddIntoZeros with a dynamic row count (sparse expert dispatch)', async () => {
    const r = await gradCheck(
      [
        { name: 'h', shape: [5, 3] },
        { name: 'w', shape: [3, 3] },
      ],
      (ad, x) => {
        // rows whose mask is set, found at run time (NonZero), transformed and added back in place
        const mask = ad.wrap('mask', [5], 'bool');
        const [nz] = ad.nondiff('NonZero', [mask], {}, [{ shape: [1, 'n'], dtype: 'int64' }]);
        const rows = ad.nondiff('Transpose', [nz!], { perm: [1, 0] }, [{ shape: ['n', 1], dtype: 'int64' }])[0]!;
        const flat = ad.nondiff('Squeeze', [rows, ad.graph.ints([1])], {}, [{ shape: ['n'], dtype: 'int64' }])[0]!;
        const picked = ad.gather(x.h!, flat);
        const y = ad.matmul(picked, x.w!);
        return ad.add(ad.scatterRowsAddIntoZeros(x.h!, rows, y), x.h!);
      },
      {
        declareExtra: (ad) => ({ mask: ad.input('mask', [5], 'bool') }),
        extraFeeds: { mask: { dtype: 'bool', dims: [5], data: Uint8Array.from([1, 0, 1, 1, 0]) } },
        seed: 9,
      },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('scatterRowsAdd accumulates into an existing tensor', async () => {
    const r = await gradCheck(
      [
        { name: 'base', shape: [4, 3] },
        { name: 'u', shape: [2, 3] },
      ],
      (ad, x) => ad.mul(ad.scatterRowsAdd(x.base!, ad.wrap('rows', [2, 1], 'int64'), ad.square(x.u!)), x.base!),
      {
        declareExtra: (ad) => ({ rows: ad.input('rows', [2, 1], 'int64') }),
        extraFeeds: { rows: i64([3, 1], [2, 1]) },
        seed: 10,
      },
    );
    expect(r.worst).toBeLessThan(TOLERANCE);
  });

  it('an input the loss does not use gets a zero gradient', async () => {
    const r = await gradCheck(
      [
        { name: 'a', shape: [2] },
        { name: 'unused', shape: [3] },
      ],
      (ad, x) => ad.exp(x.a!),
    );
    expect(r.relativeError.unused).toBe(0);
  });
});

describe('multi-output rules', () => {
  it('split (some parts unused) and squeeze', async () => {
    const r = await gradCheck([{ name: 'w', shape: [3, 2, 4] }], (ad, x) => {
      const [w0, , w2] = ad.split(x.w!, 0, 3, true);
      return ad.add(ad.mul(w0!, w2!), w0!);
    });
    expect(r.worst).toBeLessThan(TOLERANCE);
  });
});
