import { describe, expect, it } from 'vitest';
import { GraphBuilder, floatAttr } from '../../../native/onnx/graph';
import { encodeModel } from '../../../native/onnx/proto';
import { ProtobufWriter } from '../../../native/onnx/wire';

describe('protobuf writer', () => {
  it('writes varints, including negative int64 as 10 bytes', () => {
    const w = new ProtobufWriter();
    w.varint(300);
    expect([...w.finish()]).toEqual([0xac, 0x02]);
    const n = new ProtobufWriter();
    n.varint(-1);
    expect(n.finish().length).toBe(10);
  });

  it('keeps large payloads intact across chunks', () => {
    const big = Uint8Array.from({ length: 10_000 }, (_, i) => i % 251);
    const w = new ProtobufWriter();
    w.fieldString(1, 'x');
    w.fieldBytes(2, big);
    const out = w.finish();
    expect(out.length).toBe(3 + 3 + 10_000);
    expect([...out.subarray(out.length - 3)]).toEqual([...big.subarray(big.length - 3)]);
  });
});

describe('ONNX encoder', () => {
  it('refuses a non-integer plain attribute: floats must be explicit', () => {
    const g = new GraphBuilder();
    expect(() => g.op('LeakyRelu', ['x'], { alpha: 0.5 })).toThrow(/floatAttr/);
  });

  it('encodes a float attribute with the fixed32 wire type (tag 2<<3|5)', () => {
    const g = new GraphBuilder();
    g.input('x', 'float32', [2]);
    g.output(g.op('LeakyRelu', ['x'], { alpha: floatAttr(2) }), 'y', 'float32', [2]);
    const bytes = g.toModel();
    // AttributeProto: name 'alpha', type FLOAT (field 20 = a0 01, value 01), then field 2 (f) as fixed32 = 0x15, 2.0f = 00 00 00 40
    const hex = Buffer.from(bytes).toString('hex');
    expect(hex).toContain(`${Buffer.from('alpha').toString('hex')}a001011500000040`);
  });

  it('accepts ai.onnx opsets up to 26 only', () => {
    const graph = { name: 'g', nodes: [], initializers: [], inputs: [], outputs: [] };
    expect(() => encodeModel({ graph, opsets: { '': 26 } })).not.toThrow();
    expect(() => encodeModel({ graph, opsets: { '': 27 } })).toThrow(/opset 27/);
  });

  it('checks that tensor data matches its dims', () => {
    const g = new GraphBuilder();
    g.initializer('w', 'float32', [2, 2], new Float32Array(3));
    expect(() => g.toModel()).toThrow(/3 values for dims \[2,2\]/);
  });
});
