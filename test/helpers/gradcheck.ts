/**
 * Float64 finite-difference checks of graphs built with AutoDiff: the loss is sum(y * R) for a fixed random
 * R, its gradient comes from the emitted backward nodes, and the reference is the central difference of
 * the same session's loss under perturbed inputs.
 */
import { AutoDiff, type Value } from '../../native/onnx/autodiff';
import { RuntimeSession, type HostTensor } from '../../native/onnx/runtime';
import { seededUniform } from '../../native/util/random';

/** The project's seeded generator, under the name these tests use. */
export const seededRandom = seededUniform;

export interface GradInput {
  name: string;
  shape: number[];
  /** How values are drawn: symmetric around 0, or positive (for log, sqrt, division). */
  range?: 'symmetric' | 'positive';
}

export interface GradCheckResult {
  /** Per input: the largest |analytic - numeric| over the largest |numeric| (or 1 when that is smaller). */
  relativeError: Record<string, number>;
  worst: number;
}

export async function gradCheck(
  inputs: GradInput[],
  build: (ad: AutoDiff, x: Record<string, Value>) => Value,
  options: {
    seed?: number;
    extraFeeds?: Record<string, HostTensor>;
    eps?: number;
    declareExtra?: (ad: AutoDiff) => Record<string, Value>;
  } = {},
): Promise<GradCheckResult> {
  const random = seededRandom(options.seed ?? 1);
  const ad = new AutoDiff('float64');
  const x: Record<string, Value> = {};
  for (const i of inputs) x[i.name] = ad.input(i.name, i.shape);
  Object.assign(x, options.declareExtra?.(ad) ?? {});
  const y = build(ad, x);
  const shape = y.shape.map((d) => {
    if (typeof d !== 'number') throw new Error(`gradCheck needs a static output shape, got [${y.shape.join(',')}]`);
    return d;
  });
  const size = shape.reduce((a, b) => a * b, 1);
  const weights = ad.constant(
    Array.from({ length: size }, () => random() * 2 - 1),
    shape,
  );
  const loss = ad.reduceSum(
    ad.mul(y, weights),
    shape.map((_, i) => i),
    false,
  );
  ad.output(loss, 'loss');
  const grads = ad.backward(
    loss,
    inputs.map((i) => x[i.name]!),
  );
  for (const i of inputs) ad.output(grads.get(i.name)!, `grad.${i.name}`);
  const session = await RuntimeSession.create(ad.graph.toModel(), {
    providers: ['cpu'],
    intraOpThreads: 1,
    graphOptimization: 'basic',
  });
  try {
    const values: Record<string, Float64Array> = {};
    for (const i of inputs) {
      const n = i.shape.reduce((a, b) => a * b, 1);
      values[i.name] = Float64Array.from({ length: n }, () =>
        i.range === 'positive' ? 0.5 + random() : random() * 2 - 1,
      );
    }
    const feeds = (override?: { name: string; data: Float64Array }): Record<string, HostTensor> => {
      const f: Record<string, HostTensor> = { ...options.extraFeeds };
      for (const i of inputs)
        f[i.name] = {
          dtype: 'float64',
          dims: i.shape,
          data: override?.name === i.name ? override.data : values[i.name]!,
        };
      return f;
    };
    const analytic = await session.run(feeds());
    const eps = options.eps ?? 1e-6;
    const relativeError: Record<string, number> = {};
    for (const i of inputs) {
      const g = analytic[`grad.${i.name}`]!.data as Float64Array;
      const base = values[i.name]!;
      let maxDiff = 0;
      let maxNumeric = 0;
      for (let k = 0; k < base.length; k++) {
        const plus = Float64Array.from(base);
        plus[k] = base[k]! + eps;
        const minus = Float64Array.from(base);
        minus[k] = base[k]! - eps;
        const lp = ((await session.run(feeds({ name: i.name, data: plus }), ['loss'])).loss!.data as Float64Array)[0]!;
        const lm = ((await session.run(feeds({ name: i.name, data: minus }), ['loss'])).loss!.data as Float64Array)[0]!;
        const numeric = (lp - lm) / (2 * eps);
        maxDiff = Math.max(maxDiff, Math.abs(numeric - g[k]!));
        maxNumeric = Math.max(maxNumeric, Math.abs(numeric));
      }
      relativeError[i.name] = maxDiff / Math.max(maxNumeric, 1);
    }
    return { relativeError, worst: Math.max(...Object.values(relativeError)) };
  } finally {
    await session.release();
  }
}
