import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  SafetensorsError,
  bf16BitsToF32,
  f16BitsToF32,
  f32ToBf16Bits,
  f32ToF16Bits,
  fromFloat32,
  openSafetensors,
  parseSafetensors,
  readSafetensors,
  serializeSafetensors,
  toFloat32,
  writeSafetensors,
  type Tensor,
} from '../../../native/model/safetensors/index';
import { seededRandom } from '../../helpers/corpus';
import { findPython, pythonSkipNote, runPythonJson } from '../../helpers/python';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-st-');
afterAll(() => tmp.remove());
let n = 0;
const file = () => join(tmp.path, `f${n++}.safetensors`);

/** A file assembled by hand from the spec: u64 LE header length, JSON header, data. */
function handMade(header: unknown, data: Uint8Array, alignTo8 = false): Uint8Array {
  const text = JSON.stringify(header);
  const pad = alignTo8 ? (8 - ((8 + Buffer.byteLength(text)) % 8)) % 8 : 0;
  const json = Buffer.from(text + ' '.repeat(pad));
  const out = Buffer.alloc(8 + json.length + data.length);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  json.copy(out, 8);
  out.set(data, 8 + json.length);
  return new Uint8Array(out);
}

describe('safetensors byte layout (the published format)', () => {
  test('writes u64 LE header length, a space-padded JSON header, then little-endian row-major data', () => {
    const path = file();
    const written = writeSafetensors(
      path,
      new Map<string, Tensor>([
        ['w', { dtype: 'F32', shape: [2, 2], data: Float32Array.of(1.5, -2, 0, 3) }],
        ['step', { dtype: 'I64', shape: [], data: BigInt64Array.of(7n) }],
        ['mask', { dtype: 'U8', shape: [3], data: Uint8Array.of(1, 0, 255) }],
      ]),
      { metadata: { format: 'pt', lab: 't1' } },
    );
    const bytes = readFileSync(path);
    expect(written.bytes).toBe(bytes.length);
    const n = Number(bytes.readBigUInt64LE(0));
    expect((8 + n) % 8).toBe(0);
    const headerText = bytes.subarray(8, 8 + n).toString('utf8');
    expect(headerText.startsWith('{')).toBe(true);
    expect(headerText.trimEnd().length).toBeLessThanOrEqual(n);
    expect(/^ *$/.test(headerText.slice(headerText.trimEnd().length))).toBe(true);
    // 8-byte dtypes first, then 4-byte, then 1-byte: every tensor aligned to its element size.
    expect(JSON.parse(headerText)).toEqual({
      __metadata__: { format: 'pt', lab: 't1' },
      step: { dtype: 'I64', shape: [], data_offsets: [0, 8] },
      w: { dtype: 'F32', shape: [2, 2], data_offsets: [8, 24] },
      mask: { dtype: 'U8', shape: [3], data_offsets: [24, 27] },
    });
    const data = bytes.subarray(8 + n);
    expect([...data]).toEqual([
      7, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0, 0, 0, 0, 0x00, 0x00, 0x40, 0x40, 1, 0,
      255,
    ]);
    expect(serializeSafetensors(new Map([['step', { dtype: 'I64', shape: [], data: BigInt64Array.of(7n) }]]))).toEqual(
      handMade(
        { step: { dtype: 'I64', shape: [], data_offsets: [0, 8] } },
        Uint8Array.of(7, 0, 0, 0, 0, 0, 0, 0),
        true,
      ),
    );
  });

  test('reads a file built by hand from the spec (BF16 with metadata, unpadded header)', () => {
    const path = file();
    // 1.0 and -2.0 in bfloat16: 0x3F80, 0xC000, little-endian.
    writeFileSync(
      path,
      handMade(
        { __metadata__: { format: 'pt' }, a: { dtype: 'BF16', shape: [2], data_offsets: [0, 4] } },
        Uint8Array.of(0x80, 0x3f, 0x00, 0xc0),
      ),
    );
    const { tensors, metadata } = readSafetensors(path);
    expect(metadata).toEqual({ format: 'pt' });
    const a = tensors.get('a')!;
    expect(a.dtype).toBe('BF16');
    expect([...toFloat32(a.dtype, a.data)]).toEqual([1, -2]);
  });

  test('every dtype round-trips, with scalars and empty tensors', () => {
    const rand = seededRandom(3);
    const tensors = new Map<string, Tensor>([
      ['f32', { dtype: 'F32', shape: [3, 4], data: Float32Array.from({ length: 12 }, () => rand() - 0.5) }],
      ['f64', { dtype: 'F64', shape: [2], data: Float64Array.of(Math.PI, -1e300) }],
      ['f16', { dtype: 'F16', shape: [4], data: fromFloat32('F16', Float32Array.of(1, -0.5, 65504, 1e-7)) }],
      ['bf16', { dtype: 'BF16', shape: [2, 2], data: fromFloat32('BF16', Float32Array.of(1, 3.140625, -1e30, 0)) }],
      ['i64', { dtype: 'I64', shape: [2], data: BigInt64Array.of(-(2n ** 62n), 42n) }],
      ['u64', { dtype: 'U64', shape: [1], data: BigUint64Array.of(2n ** 64n - 1n) }],
      ['i32', { dtype: 'I32', shape: [3], data: Int32Array.of(-1, 0, 2 ** 31 - 1) }],
      ['u32', { dtype: 'U32', shape: [1], data: Uint32Array.of(2 ** 32 - 1) }],
      ['i16', { dtype: 'I16', shape: [1], data: Int16Array.of(-32768) }],
      ['u16', { dtype: 'U16', shape: [1], data: Uint16Array.of(65535) }],
      ['i8', { dtype: 'I8', shape: [2], data: Int8Array.of(-128, 127) }],
      ['u8', { dtype: 'U8', shape: [2, 1], data: Uint8Array.of(0, 255) }],
      ['bool', { dtype: 'BOOL', shape: [2], data: Uint8Array.of(1, 0) }],
      ['f8', { dtype: 'F8_E4M3', shape: [1], data: Uint8Array.of(0x38) }],
      ['scalar', { dtype: 'F32', shape: [], data: Float32Array.of(2.5) }],
      ['empty', { dtype: 'F32', shape: [0, 3], data: new Float32Array(0) }],
    ]);
    const path = file();
    writeSafetensors(path, tensors);
    const back = readSafetensors(path).tensors;
    expect([...back.keys()].sort()).toEqual([...tensors.keys()].sort());
    for (const [name, t] of tensors) {
      const b = back.get(name)!;
      expect({ name, dtype: b.dtype, shape: b.shape }).toEqual({ name, dtype: t.dtype, shape: t.shape });
      expect(b.data.constructor).toBe(t.data.constructor);
      expect([...b.data]).toEqual([...t.data]);
    }
    expect(parseSafetensors(readFileSync(path)).tensors.get('i64')!.data).toEqual(tensors.get('i64')!.data);
  });

  test('a tensor can be read alone after the header, and not after close', () => {
    const path = file();
    writeSafetensors(path, [
      ['a', { dtype: 'F32', shape: [1000], data: new Float32Array(1000).fill(1) }],
      ['b', { dtype: 'F32', shape: [2], data: Float32Array.of(5, 6) }],
    ]);
    const f = openSafetensors(path);
    expect(f.tensors.map((t) => t.name)).toEqual(['a', 'b']);
    expect(f.info('b')).toMatchObject({ dtype: 'F32', shape: [2], byteLength: 8, byteOffset: f.dataStart + 4000 });
    expect([...f.read('b').data]).toEqual([5, 6]);
    expect(() => f.read('c')).toThrow(/no tensor "c"/);
    f.close();
    expect(() => f.read('b')).toThrow(/read after close/);
  });

  test('the writer refuses data that does not match its dtype or shape', () => {
    expect(() => writeSafetensors(file(), [['x', { dtype: 'F32', shape: [3], data: new Float32Array(2) }]])).toThrow(
      /tensor "x": shape \[3\] has 3 elements but the data has 2/,
    );
    expect(() => writeSafetensors(file(), [['x', { dtype: 'F16', shape: [2], data: new Float32Array(2) }]])).toThrow(
      /F16 data must be held in the matching typed array, got Float32Array/,
    );
    expect(() =>
      writeSafetensors(file(), [['__metadata__', { dtype: 'U8', shape: [1], data: new Uint8Array(1) }]]),
    ).toThrow(/invalid tensor name/);
    expect(() => serializeSafetensors([], { metadata: { n: 3 as unknown as string } })).toThrow(
      /metadata "n" must be a string/,
    );
  });
});

describe('corrupt files fail with the file and tensor named, before any large allocation', () => {
  const good = () => {
    const path = file();
    writeSafetensors(path, [
      ['big', { dtype: 'F32', shape: [256], data: new Float32Array(256) }],
      ['small', { dtype: 'F32', shape: [4], data: new Float32Array(4) }],
    ]);
    return path;
  };
  const expectError = (bytes: Uint8Array, pattern: RegExp) => {
    const path = file();
    writeFileSync(path, bytes);
    expect(() => openSafetensors(path)).toThrow(SafetensorsError);
    expect(() => openSafetensors(path)).toThrow(pattern);
  };

  test('truncated data: the last tensor points outside the file', () => {
    const path = good();
    truncateSync(path, readFileSync(path).length - 3);
    expect(() => openSafetensors(path)).toThrow(
      /tensor "small": data_offsets \[1024, 1040\] point outside the file \(its data holds 1037 bytes\)/,
    );
  });

  test('an empty or tiny file, a header length past the end, an absurd header length', () => {
    expectError(new Uint8Array(0), /0 bytes, too short/);
    const past = Buffer.alloc(16);
    past.writeBigUInt64LE(99_000_000n, 0);
    expectError(past, /header length 99000000 runs past the end of the file \(16 bytes\)/);
    const absurd = Buffer.alloc(16);
    absurd.writeBigUInt64LE(2n ** 63n, 0);
    expectError(absurd, /exceeds the limit of 100000000 bytes/);
  });

  test('a header that is not a JSON object', () => {
    expectError(handMade([1, 2], new Uint8Array(0)), /does not start with '\{'/);
    const bad = Buffer.from(handMade({ a: 1 }, new Uint8Array(0)));
    bad[bad.length - 1] = 0x2c; // '}' -> ','
    expectError(bad, /not valid JSON/);
  });

  test('a tensor of a trillion elements is refused from its offsets, never allocated', () => {
    expectError(
      handMade({ huge: { dtype: 'F32', shape: [1_000_000, 1_000_000], data_offsets: [0, 4e12] } }, new Uint8Array(16)),
      /tensor "huge": data_offsets \[0, 4000000000000\] point outside the file/,
    );
  });

  test('sizes that disagree with dtype x shape, overlaps, holes, trailing bytes, unknown dtypes, bad metadata', () => {
    const data = new Uint8Array(16);
    expectError(
      handMade({ a: { dtype: 'F32', shape: [3], data_offsets: [0, 16] } }, data),
      /tensor "a": F32 \[3\] needs 12 bytes but data_offsets \[0, 16\] hold 16/,
    );
    expectError(
      handMade(
        {
          a: { dtype: 'F32', shape: [3], data_offsets: [0, 12] },
          b: { dtype: 'F32', shape: [1], data_offsets: [8, 12] },
        },
        new Uint8Array(12),
      ),
      /tensor "b": data_offsets \[8, 12\] overlap the previous tensor/,
    );
    expectError(
      handMade({ a: { dtype: 'F32', shape: [2], data_offsets: [4, 12] } }, new Uint8Array(12)),
      /tensor "a": data_offsets \[4, 12\] leave a hole after byte 0/,
    );
    expectError(
      handMade({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, new Uint8Array(12)),
      /cover 8 bytes of data but the file holds 12/,
    );
    expectError(
      handMade({ a: { dtype: 'Q4', shape: [2], data_offsets: [0, 8] } }, new Uint8Array(8)),
      /tensor "a": dtype "Q4" is not supported/,
    );
    expectError(
      handMade({ a: { dtype: 'F32', shape: [-2], data_offsets: [0, 8] } }, new Uint8Array(8)),
      /tensor "a": shape.0/,
    );
    expectError(
      handMade({ a: { dtype: 'F32', shape: [2], data_offsets: [8, 0] } }, new Uint8Array(8)),
      /end before they begin/,
    );
    expectError(
      handMade({ __metadata__: { n: 1 }, a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] } }, new Uint8Array(8)),
      /__metadata__ must map strings to strings/,
    );
  });

  test('a file that shrinks after its header was read fails when the tensor is read', () => {
    const path = good();
    const f = openSafetensors(path);
    truncateSync(path, 100);
    expect(() => f.read('small')).toThrow(/tensor "small": unexpected end of file/);
    f.close();
  });
});

describe('half-precision conversions', () => {
  test.each([
    [1, 0x3c00, 0x3f80],
    [-2, 0xc000, 0xc000],
    [65504, 0x7bff, 0x4780], // the largest F16; BF16 has 8 mantissa bits and rounds it to 65536
    [65520, 0x7c00, 0x4780], // rounds up to infinity in F16
    [2 ** -24, 0x0001, 0x3380], // smallest F16 subnormal
    [2 ** -26, 0x0000, 0x3280], // below half of it: zero
    [1 + 2 ** -11, 0x3c00, 0x3f80], // a tie: rounds to even
    [Infinity, 0x7c00, 0x7f80],
  ])('%d -> F16 %i, BF16 %i', (x, f16, bf16) => {
    expect(f32ToF16Bits(x)).toBe(f16);
    expect(f32ToBf16Bits(x)).toBe(bf16);
  });

  test('NaN stays NaN; conversions back are exact for representable values', () => {
    expect(Number.isNaN(f16BitsToF32(f32ToF16Bits(NaN)))).toBe(true);
    expect(Number.isNaN(bf16BitsToF32(f32ToBf16Bits(NaN)))).toBe(true);
    for (let h = 0; h < 0x7c00; h += 7) expect(f32ToF16Bits(f16BitsToF32(h))).toBe(h);
    for (let h = 0; h < 0x7f80; h += 13) expect(f32ToBf16Bits(bf16BitsToF32(h))).toBe(h);
  });
});

const python = findPython(['safetensors', 'numpy']);
test('Python safetensors reads our files and we read its files, values bit for bit', (ctx) => {
  ctx.skip(!python, pythonSkipNote(['safetensors', 'numpy']));
  const rand = seededRandom(4);
  const ours = file();
  const f32 = Float32Array.from({ length: 64 }, () => (rand() - 0.5) * 1e3);
  writeSafetensors(
    ours,
    new Map<string, Tensor>([
      ['w', { dtype: 'F32', shape: [8, 8], data: f32 }],
      ['h', { dtype: 'F16', shape: [64], data: fromFloat32('F16', f32) }],
      ['bf', { dtype: 'BF16', shape: [64], data: fromFloat32('BF16', f32) }],
      ['ids', { dtype: 'I64', shape: [2, 2], data: BigInt64Array.of(1n, -2n, 3n, 2n ** 40n) }],
      ['n', { dtype: 'I32', shape: [2], data: Int32Array.of(-7, 9) }],
      ['b', { dtype: 'U8', shape: [3], data: Uint8Array.of(0, 128, 255) }],
    ]),
    { metadata: { format: 'pt' } },
  );
  const theirs = file();
  const script = `
import json, sys
import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file
d = json.load(sys.stdin)
out = {}
# numpy has no bfloat16: read that tensor's raw bits through the same file as uint16 by hand
with safe_open(d["ours"], framework="np") as f:
    out["metadata"] = f.metadata()
    for k in f.keys():
        if k == "bf":
            continue
        t = f.get_tensor(k)
        out[k] = {"dtype": str(t.dtype), "shape": list(t.shape), "values": t.astype(np.float64).ravel().tolist()}
w = np.array(d["w"], dtype=np.float32)
out["f16_of_w"] = w.astype(np.float16).view(np.uint16).tolist()
save_file({"a": w.reshape(8, 8), "h": w.astype(np.float16), "i": np.arange(5, dtype=np.int64) - 2, "u": np.array([1, 2, 3], dtype=np.uint8)}, d["theirs"], metadata={"by": "python"})
print(json.dumps(out))`;
  const out = runPythonJson(python!, script, { ours, theirs, w: [...f32] }) as Record<
    string,
    { dtype: string; shape: number[]; values: number[] }
  > & { metadata: Record<string, string>; f16_of_w: number[] };
  expect(out.metadata).toEqual({ format: 'pt' });
  expect(out.w).toEqual({ dtype: 'float32', shape: [8, 8], values: [...f32] });
  expect(out.h!.dtype).toBe('float16');
  expect(out.h!.values).toEqual([...toFloat32('F16', fromFloat32('F16', f32))]);
  expect(out.ids).toEqual({ dtype: 'int64', shape: [2, 2], values: [1, -2, 3, 2 ** 40] });
  expect(out.n!.values).toEqual([-7, 9]);
  expect(out.b!.values).toEqual([0, 128, 255]);
  // Our float32 -> float16 rounding is numpy's, bit for bit.
  expect([...fromFloat32('F16', f32)]).toEqual(out.f16_of_w);

  const back = readSafetensors(theirs);
  expect(back.metadata).toEqual({ by: 'python' });
  expect([...back.tensors.get('a')!.data]).toEqual([...f32]);
  expect(back.tensors.get('a')!.shape).toEqual([8, 8]);
  expect([...toFloat32('F16', back.tensors.get('h')!.data)]).toEqual([...toFloat32('F16', fromFloat32('F16', f32))]);
  expect([...back.tensors.get('i')!.data]).toEqual([-2n, -1n, 0n, 1n, 2n]);
  expect([...back.tensors.get('u')!.data]).toEqual([1, 2, 3]);
});
