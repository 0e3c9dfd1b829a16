/**
 * Writing safetensors: the header (see header.ts), then each tensor's bytes streamed to the file in the
 * same order, hashed on the way (the checkpoint manifest needs the sha256 and should not read the file
 * back). Tensors are laid out largest element size first (stable otherwise), so every tensor starts at a
 * multiple of its element size and readers can map it without copying; a model whose tensors are all F32
 * keeps its own order.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { dtypeBytes, matchesDtype } from './dtype';
import { METADATA_KEY, SafetensorsError, encodeHeader, type Tensor } from './header';

export interface WriteSafetensorsOptions {
  /** `__metadata__`: string keys to string values (the format allows nothing else). */
  metadata?: Record<string, string>;
  /** fsync before closing (default true): the checkpoint layer renames the folder only after this. */
  fsync?: boolean;
}

export interface WrittenFile {
  bytes: number;
  sha256: string;
}

type Tensors = ReadonlyMap<string, Tensor> | Iterable<readonly [string, Tensor]>;

/** Tensors in file order after validating each (dtype matches the array, shape matches the length). */
function layout(tensors: Tensors, source: string): [string, Tensor][] {
  const list = [...(tensors instanceof Map ? tensors.entries() : (tensors as Iterable<readonly [string, Tensor]>))] as [
    string,
    Tensor,
  ][];
  const names = new Set<string>();
  for (const [name, t] of list) {
    if (!name || name === METADATA_KEY)
      throw new SafetensorsError(`${source}: invalid tensor name ${JSON.stringify(name)}`);
    if (names.has(name)) throw new SafetensorsError(`${source}: tensor "${name}" given twice`);
    names.add(name);
    if (!matchesDtype(t.dtype, t.data))
      throw new SafetensorsError(
        `${source}: tensor "${name}": ${t.dtype} data must be held in the matching typed array, got ${t.data.constructor.name}`,
      );
    if (!t.shape.every((d) => Number.isSafeInteger(d) && d >= 0))
      throw new SafetensorsError(
        `${source}: tensor "${name}": shape [${t.shape.join(', ')}] must hold non-negative integers`,
      );
    const elements = t.shape.reduce((a, b) => a * b, 1);
    if (elements !== t.data.length)
      throw new SafetensorsError(
        `${source}: tensor "${name}": shape [${t.shape.join(', ')}] has ${elements} elements but the data has ${t.data.length}`,
      );
  }
  return list
    .map((e, i) => [e, i] as const)
    .sort(([a, i], [b, j]) => dtypeBytes(b[1].dtype) - dtypeBytes(a[1].dtype) || i - j)
    .map(([e]) => e);
}

function checkMetadata(metadata: Record<string, string> | undefined, source: string): void {
  for (const [k, v] of Object.entries(metadata ?? {})) {
    if (typeof v !== 'string')
      throw new SafetensorsError(`${source}: metadata "${k}" must be a string (the format allows only strings)`);
  }
}

const LITTLE_ENDIAN = new Uint16Array(new Uint8Array([1, 0]).buffer)[0] === 1;

function bytesOf(t: Tensor): Uint8Array {
  if (!LITTLE_ENDIAN)
    throw new SafetensorsError(
      'safetensors data is little-endian and typed arrays here are not: big-endian machines are not supported',
    );
  return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
}

/** Write a safetensors file at `path` (created or truncated). */
export function writeSafetensors(path: string, tensors: Tensors, options: WriteSafetensorsOptions = {}): WrittenFile {
  const list = layout(tensors, path);
  checkMetadata(options.metadata, path);
  const header = encodeHeader(
    list.map(([name, t]) => ({ name, dtype: t.dtype, shape: t.shape, byteLength: t.data.byteLength })),
    options.metadata,
  );
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  let bytes = 0;
  try {
    const put = (chunk: Uint8Array) => {
      let done = 0;
      while (done < chunk.length) done += writeSync(fd, chunk, done, chunk.length - done);
      hash.update(chunk);
      bytes += chunk.length;
    };
    put(header);
    for (const [, t] of list) put(bytesOf(t));
    if (options.fsync ?? true) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** The bytes of a safetensors file, in memory. */
export function serializeSafetensors(
  tensors: Tensors,
  options: Pick<WriteSafetensorsOptions, 'metadata'> = {},
): Uint8Array {
  const list = layout(tensors, '(buffer)');
  checkMetadata(options.metadata, '(buffer)');
  const header = encodeHeader(
    list.map(([name, t]) => ({ name, dtype: t.dtype, shape: t.shape, byteLength: t.data.byteLength })),
    options.metadata,
  );
  const out = new Uint8Array(header.length + list.reduce((n, [, t]) => n + t.data.byteLength, 0));
  out.set(header);
  let offset = header.length;
  for (const [, t] of list) {
    out.set(bytesOf(t), offset);
    offset += t.data.byteLength;
  }
  return out;
}
