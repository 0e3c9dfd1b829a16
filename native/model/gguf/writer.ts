/**
 * A GGUF (version 3) writer: the file llama.cpp, Ollama and LM Studio load. Layout: magic "GGUF",
 * version, tensor count, metadata count; metadata key/value pairs; tensor infos (name, dims innermost
 * first, ggml type, offset in the data section); padding to the alignment; tensor data, each tensor
 * aligned. Only what the export needs: scalar, string and array values, F32 and F16 tensors.
 */
import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import { f32ToF16Bits } from '../safetensors/index';

export const GGUF_ALIGNMENT = 32;

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'i32[]'; value: readonly number[] }
  | { type: 'f32[]'; value: readonly number[] };

export interface GgufTensor {
  name: string;
  /** Row-major shape, outermost first (as in safetensors); written innermost first. */
  shape: readonly number[];
  data: Float32Array;
  dtype: 'f32' | 'f16';
}

const T = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10 } as const;
const GGML = { f32: 0, f16: 1 } as const;

class Bytes {
  private chunks: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad(to: number): void {
    const n = (to - (this.length % to)) % to;
    if (n) this.push(Buffer.alloc(n));
  }
  concat(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(out: Bytes, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
      out.u32(T.u32);
      out.u32(v.value);
      return;
    case 'i32':
      out.u32(T.i32);
      out.i32(v.value);
      return;
    case 'f32':
      out.u32(T.f32);
      out.f32(v.value);
      return;
    case 'bool':
      out.u32(T.bool);
      out.push(Buffer.from([v.value ? 1 : 0]));
      return;
    case 'string':
      out.u32(T.string);
      out.string(v.value);
      return;
    case 'string[]':
      out.u32(T.array);
      out.u32(T.string);
      out.u64(v.value.length);
      for (const s of v.value) out.string(s);
      return;
    case 'i32[]':
      out.u32(T.array);
      out.u32(T.i32);
      out.u64(v.value.length);
      for (const x of v.value) out.i32(x);
      return;
    case 'f32[]':
      out.u32(T.array);
      out.u32(T.f32);
      out.u64(v.value.length);
      for (const x of v.value) out.f32(x);
      return;
  }
}

function tensorBytes(t: GgufTensor): Buffer {
  if (t.dtype === 'f32') return Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const half = new Uint16Array(t.data.length);
  for (let i = 0; i < t.data.length; i++) half[i] = f32ToF16Bits(t.data[i]!);
  return Buffer.from(half.buffer);
}

/** Write a GGUF file (to a temporary name, renamed when complete). Tensors are written one at a time. */
export function writeGguf(
  path: string,
  metadata: ReadonlyMap<string, GgufValue>,
  tensors: readonly GgufTensor[],
): { bytes: number } {
  const head = new Bytes();
  head.push(Buffer.from('GGUF', 'latin1'));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(metadata.size);
  for (const [key, value] of metadata) {
    head.string(key);
    writeValue(head, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length)
      throw new Error(
        `gguf: tensor ${t.name} has ${t.data.length} values, shape [${t.shape.join(', ')}] needs ${count}`,
      );
    head.string(t.name);
    head.u32(t.shape.length);
    for (const d of [...t.shape].reverse()) head.u64(d);
    head.u32(GGML[t.dtype]);
    head.u64(offset);
    offsets.push(offset);
    const size = count * (t.dtype === 'f32' ? 4 : 2);
    offset += Math.ceil(size / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;
  }
  head.pad(GGUF_ALIGNMENT);
  const partial = `${path}.partial`;
  const fd = openSync(partial, 'w');
  let written = 0;
  try {
    const h = head.concat();
    writeSync(fd, h);
    written += h.length;
    const start = written;
    tensors.forEach((t, i) => {
      const pad = start + offsets[i]! - written;
      if (pad > 0) written += writeSync(fd, Buffer.alloc(pad));
      written += writeSync(fd, tensorBytes(t));
    });
    const tail = (GGUF_ALIGNMENT - (written % GGUF_ALIGNMENT)) % GGUF_ALIGNMENT;
    if (tail) written += writeSync(fd, Buffer.alloc(tail));
  } finally {
    closeSync(fd);
  }
  renameSync(partial, path);
  return { bytes: written };
}
