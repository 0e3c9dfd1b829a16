/**
 * safetensors dtypes and the typed arrays that hold them. Half-precision floats (F16, BF16) have no typed
 * array in Node 20, so their raw 16-bit patterns live in a Uint16Array, with conversions to and from
 * float32 here; 8-bit floats (F8_*) are kept as raw bytes.
 */
import { z } from 'zod';

export const DTYPES = [
  'BOOL',
  'U8',
  'I8',
  'F8_E4M3',
  'F8_E5M2',
  'U16',
  'I16',
  'F16',
  'BF16',
  'U32',
  'I32',
  'F32',
  'U64',
  'I64',
  'F64',
] as const;
export const Dtype = z.enum(DTYPES);
export type Dtype = z.infer<typeof Dtype>;

export type TensorData =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

interface DtypeInfo {
  bytes: 1 | 2 | 4 | 8;
  array: {
    new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): TensorData;
    name: string;
    BYTES_PER_ELEMENT: number;
  };
}

const INFO: Record<Dtype, DtypeInfo> = {
  BOOL: { bytes: 1, array: Uint8Array },
  U8: { bytes: 1, array: Uint8Array },
  I8: { bytes: 1, array: Int8Array },
  F8_E4M3: { bytes: 1, array: Uint8Array },
  F8_E5M2: { bytes: 1, array: Uint8Array },
  U16: { bytes: 2, array: Uint16Array },
  I16: { bytes: 2, array: Int16Array },
  F16: { bytes: 2, array: Uint16Array },
  BF16: { bytes: 2, array: Uint16Array },
  U32: { bytes: 4, array: Uint32Array },
  I32: { bytes: 4, array: Int32Array },
  F32: { bytes: 4, array: Float32Array },
  U64: { bytes: 8, array: BigUint64Array },
  I64: { bytes: 8, array: BigInt64Array },
  F64: { bytes: 8, array: Float64Array },
};

export function dtypeBytes(dtype: Dtype): number {
  return INFO[dtype].bytes;
}

/** The typed array class that holds a dtype (Uint16Array for F16/BF16 bit patterns). */
export function dtypeArray(dtype: Dtype): DtypeInfo['array'] {
  return INFO[dtype].array;
}

/** Whether `data` is the typed array a dtype is held in. */
export function matchesDtype(dtype: Dtype, data: TensorData): boolean {
  return data.constructor === INFO[dtype].array;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** bfloat16 bits of a float32, rounded to nearest even (NaN stays NaN). */
export function f32ToBf16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0] as number;
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0) return (bits >>> 16) | 0x0040; // quiet NaN
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

export function bf16BitsToF32(h: number): number {
  u32[0] = (h & 0xffff) << 16;
  return f32[0] as number;
}

/** IEEE half bits of a float32, rounded to nearest even, with subnormals, infinities and NaN. */
export function f32ToF16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow to infinity
  if (e <= 0) {
    if (e < -10) return sign; // underflow to zero
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half += 1;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half += 1; // a carry into the exponent is still correct (up to infinity)
  return sign | half;
}

export function f16BitsToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** A float tensor (F32, F16, BF16, F64) as float32 values; the same array when it already is F32. */
export function toFloat32(dtype: Dtype, data: TensorData): Float32Array {
  if (dtype === 'F32') return data as Float32Array;
  if (dtype === 'F64') return Float32Array.from(data as Float64Array);
  const bits = data as Uint16Array;
  const out = new Float32Array(bits.length);
  if (dtype === 'BF16') {
    const outBits = new Uint32Array(out.buffer);
    for (let i = 0; i < bits.length; i++) outBits[i] = (bits[i] as number) << 16;
  } else if (dtype === 'F16') {
    for (let i = 0; i < bits.length; i++) out[i] = f16BitsToF32(bits[i] as number);
  } else throw new Error(`${dtype} is not a float dtype`);
  return out;
}

/** float32 values as F16 or BF16 bit patterns. */
export function fromFloat32(dtype: 'F16' | 'BF16', data: Float32Array): Uint16Array {
  const out = new Uint16Array(data.length);
  const convert = dtype === 'BF16' ? f32ToBf16Bits : f32ToF16Bits;
  for (let i = 0; i < data.length; i++) out[i] = convert(data[i] as number);
  return out;
}
