/** Graphs from our encoder load and compute in onnxruntime: opsets, float attributes, dynamic axes, initializers. */
import { describe, expect, it } from 'vitest';
import { GraphBuilder, floatAttr } from '../../../native/onnx/graph';
import { f32, RuntimeSession } from '../../../native/onnx/runtime';

describe('encoded graphs in onnxruntime', () => {
  it('loads opset 26 and honours a float attribute', async () => {
    const g = new GraphBuilder('t', { '': 26 });
    g.input('x', 'float32', ['n']);
    g.output(g.op('LeakyRelu', ['x'], { alpha: floatAttr(0.25) }), 'y', 'float32', ['n']);
    const s = await RuntimeSession.create(g.toModel(), { providers: ['cpu'] });
    const out = await s.run({ x: f32([-4, 2, -1], [3]) });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([-1, 2, -0.25]);
    await s.release();
  });

  it('runs a MatMul against a large initializer', async () => {
    const g = new GraphBuilder();
    const w = Float32Array.from({ length: 64 * 128 }, (_, i) => (i % 7) - 3);
    g.input('x', 'float32', ['b', 64]);
    g.initializer('w', 'float32', [64, 128], w);
    g.output(g.op('MatMul', ['x', 'w']), 'y', 'float32', ['b', 128]);
    const s = await RuntimeSession.create(g.toModel(), { providers: ['cpu'] });
    const x = Float32Array.from({ length: 64 }, (_, i) => i / 64);
    const out = await s.run({ x: f32(x, [1, 64]) });
    let expected = 0;
    for (let k = 0; k < 64; k++) expected += x[k]! * w[k * 128 + 5]!;
    expect((out.y!.data as Float32Array)[5]).toBeCloseTo(expected, 4);
    await s.release();
  });
});
