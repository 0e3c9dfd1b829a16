/**
 * The safetensors header, by the published format (huggingface/safetensors, "Format"):
 *   8 bytes   N, an unsigned little-endian 64-bit integer: the size of the header
 *   N bytes   a UTF-8 JSON object starting with '{', possibly padded with trailing spaces (writers pad so the
 *             data starts at a multiple of 8): {"NAME": {"dtype": "F32", "shape": [2, 3],
 *             "data_offsets": [BEGIN, END]}, ..., "__metadata__": {"key": "value"}}
 *   rest      the data: each tensor's bytes, little-endian, row-major, at [BEGIN, END) relative to the
 *             data's start; the tensors cover the data exactly, without holes or overlaps.
 * The checks are those of the reference implementation (which refuses files that fail them), each failure
 * named with the file and the tensor, and all of them run before any tensor data is allocated.
 */
import { z } from 'zod';
import { Dtype, dtypeBytes, type TensorData } from './dtype';

/** The reference implementation's limit on N: a larger header is refused before it is read. */
export const MAX_HEADER_BYTES = 100_000_000;
export const METADATA_KEY = '__metadata__';

export interface Tensor {
  dtype: Dtype;
  shape: number[];
  data: TensorData;
}

export interface TensorInfo {
  name: string;
  dtype: Dtype;
  shape: number[];
  /** As written in the header: relative to the start of the data. */
  dataOffsets: [number, number];
  /** Absolute position in the file. */
  byteOffset: number;
  byteLength: number;
}

export interface SafetensorsHeader {
  /** N: the JSON's size, padding included. */
  headerBytes: number;
  /** 8 + N: where the data starts in the file. */
  dataStart: number;
  /** In data order. */
  tensors: TensorInfo[];
  metadata: Record<string, string>;
}

export class SafetensorsError extends Error {
  override readonly name = 'SafetensorsError';
}

const TensorEntry = z.strictObject({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()),
  data_offsets: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});

/** Validate the 8-byte prefix against the file size; returns N. */
export function parseHeaderLength(prefix: Uint8Array, fileBytes: number, source: string): number {
  if (fileBytes < 8)
    throw new SafetensorsError(
      `${source}: ${fileBytes} bytes, too short for a safetensors file (the 8-byte header length is missing)`,
    );
  const n = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER_BYTES))
    throw new SafetensorsError(
      `${source}: header length ${n} exceeds the limit of ${MAX_HEADER_BYTES} bytes (not a safetensors file, or corrupt)`,
    );
  if (8n + n > BigInt(fileBytes))
    throw new SafetensorsError(
      `${source}: header length ${n} runs past the end of the file (${fileBytes} bytes): truncated or not a safetensors file`,
    );
  if (n < 2n) throw new SafetensorsError(`${source}: header length ${n} is too small for a JSON object`);
  return Number(n);
}

/** Parse and validate the JSON header, given the size of the data that follows it. */
export function parseHeader(json: Uint8Array, dataBytes: number, source: string): SafetensorsHeader {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(json);
  } catch {
    throw new SafetensorsError(`${source}: the header is not valid UTF-8`);
  }
  if (!text.startsWith('{'))
    throw new SafetensorsError(`${source}: the header does not start with '{' (not a safetensors file)`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SafetensorsError(`${source}: the header is not valid JSON (${(error as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new SafetensorsError(`${source}: the header is not a JSON object`);

  let metadata: Record<string, string> = {};
  const tensors: TensorInfo[] = [];
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (name === METADATA_KEY) {
      const m = z.record(z.string(), z.string()).nullable().safeParse(value);
      if (!m.success) throw new SafetensorsError(`${source}: ${METADATA_KEY} must map strings to strings`);
      metadata = m.data ?? {};
      continue;
    }
    const entry = TensorEntry.safeParse(value);
    if (!entry.success) {
      const where = entry.error.issues.map((i) => `${i.path.join('.') || '(entry)'}: ${i.message}`).join('; ');
      throw new SafetensorsError(`${source}: tensor "${name}": ${where}`);
    }
    const dtype = Dtype.safeParse(entry.data.dtype);
    if (!dtype.success)
      throw new SafetensorsError(
        `${source}: tensor "${name}": dtype "${entry.data.dtype}" is not supported (${Dtype.options.join(', ')})`,
      );
    const {
      shape,
      data_offsets: [begin, end],
    } = entry.data;
    if (!shape.every(Number.isSafeInteger) || !Number.isSafeInteger(begin) || !Number.isSafeInteger(end)) {
      throw new SafetensorsError(`${source}: tensor "${name}": shape or offsets beyond 2^53`);
    }
    if (end < begin)
      throw new SafetensorsError(`${source}: tensor "${name}": data_offsets [${begin}, ${end}] end before they begin`);
    if (end > dataBytes) {
      throw new SafetensorsError(
        `${source}: tensor "${name}": data_offsets [${begin}, ${end}] point outside the file (its data holds ${dataBytes} bytes): truncated or corrupt`,
      );
    }
    const elements = shape.reduce((a, b) => a * b, 1);
    const expected = elements * dtypeBytes(dtype.data);
    if (!Number.isSafeInteger(expected) || expected !== end - begin) {
      throw new SafetensorsError(
        `${source}: tensor "${name}": ${dtype.data} [${shape.join(', ')}] needs ${expected} bytes but data_offsets [${begin}, ${end}] hold ${end - begin}`,
      );
    }
    tensors.push({ name, dtype: dtype.data, shape, dataOffsets: [begin, end], byteOffset: 0, byteLength: end - begin });
  }
  tensors.sort((a, b) => a.dataOffsets[0] - b.dataOffsets[0] || a.dataOffsets[1] - b.dataOffsets[1]);
  let cursor = 0;
  for (const t of tensors) {
    if (t.dataOffsets[0] < cursor)
      throw new SafetensorsError(
        `${source}: tensor "${t.name}": data_offsets [${t.dataOffsets.join(', ')}] overlap the previous tensor (which ends at ${cursor})`,
      );
    if (t.dataOffsets[0] > cursor)
      throw new SafetensorsError(
        `${source}: tensor "${t.name}": data_offsets [${t.dataOffsets.join(', ')}] leave a hole after byte ${cursor} (the format forbids holes)`,
      );
    cursor = t.dataOffsets[1];
  }
  if (cursor !== dataBytes) {
    throw new SafetensorsError(
      `${source}: the tensors cover ${cursor} bytes of data but the file holds ${dataBytes} after the header: trailing bytes or a wrong header`,
    );
  }
  const headerBytes = json.length;
  for (const t of tensors) t.byteOffset = 8 + headerBytes + t.dataOffsets[0];
  return { headerBytes, dataStart: 8 + headerBytes, tensors, metadata };
}

/**
 * The 8-byte prefix and JSON header for tensors laid out in this order, padded with spaces so the data starts
 * at a multiple of 8 (as the reference writer does, so every tensor stays aligned to its element size when
 * the larger dtypes come first).
 */
export function encodeHeader(
  entries: { name: string; dtype: Dtype; shape: number[]; byteLength: number }[],
  metadata: Record<string, string> | undefined,
): Uint8Array {
  const header: Record<string, unknown> = {};
  if (metadata && Object.keys(metadata).length > 0) header[METADATA_KEY] = metadata;
  let offset = 0;
  for (const e of entries) {
    header[e.name] = { dtype: e.dtype, shape: e.shape, data_offsets: [offset, offset + e.byteLength] };
    offset += e.byteLength;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil((8 + json.length) / 8) * 8 - 8;
  const out = new Uint8Array(8 + padded).fill(0x20, 8);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.set(json, 8);
  return out;
}
