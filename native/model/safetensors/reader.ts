/**
 * Reading safetensors files without surprises: `openSafetensors` reads and validates only the header (the
 * 8-byte length is checked against the file size before the header is even allocated); tensors are then
 * read one at a time into buffers of exactly their size, so a corrupt file fails before any large
 * allocation and a caller can check names and shapes before reading a byte of data.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { dtypeArray } from './dtype';
import {
  SafetensorsError,
  parseHeader,
  parseHeaderLength,
  type SafetensorsHeader,
  type Tensor,
  type TensorInfo,
} from './header';

export interface SafetensorsFile extends SafetensorsHeader {
  readonly path: string;
  readonly fileBytes: number;
  info(name: string): TensorInfo | undefined;
  /** Read one tensor's data (a fresh, aligned buffer). */
  read(name: string): Tensor;
  /** Read every tensor, in data order. */
  readAll(): Map<string, Tensor>;
  close(): void;
}

export function openSafetensors(path: string): SafetensorsFile {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new SafetensorsError(
      `${path}: cannot open (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  try {
    const fileBytes = fstatSync(fd).size;
    const prefix = new Uint8Array(8);
    if (fileBytes >= 8) readExactly(fd, prefix, 0, path);
    const n = parseHeaderLength(prefix, fileBytes, path);
    const json = new Uint8Array(n);
    readExactly(fd, json, 8, path);
    const header = parseHeader(json, fileBytes - 8 - n, path);
    return makeFile(fd, path, fileBytes, header);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Open, read every tensor, close. */
export function readSafetensors(path: string): { tensors: Map<string, Tensor>; metadata: Record<string, string> } {
  const file = openSafetensors(path);
  try {
    return { tensors: file.readAll(), metadata: file.metadata };
  } finally {
    file.close();
  }
}

/** Parse safetensors bytes already in memory (same checks; the tensors are copies). */
export function parseSafetensors(
  bytes: Uint8Array,
  source = '(buffer)',
): { tensors: Map<string, Tensor>; metadata: Record<string, string> } {
  const n = parseHeaderLength(bytes.subarray(0, 8), bytes.length, source);
  const header = parseHeader(bytes.subarray(8, 8 + n), bytes.length - 8 - n, source);
  const tensors = new Map<string, Tensor>();
  for (const t of header.tensors) {
    const copy = new Uint8Array(t.byteLength);
    copy.set(bytes.subarray(t.byteOffset, t.byteOffset + t.byteLength));
    tensors.set(t.name, { dtype: t.dtype, shape: [...t.shape], data: view(t, copy.buffer) });
  }
  return { tensors, metadata: header.metadata };
}

function makeFile(fd: number, path: string, fileBytes: number, header: SafetensorsHeader): SafetensorsFile {
  const byName = new Map(header.tensors.map((t) => [t.name, t]));
  let open = true;
  const read = (name: string): Tensor => {
    if (!open) throw new SafetensorsError(`${path}: read after close`);
    const t = byName.get(name);
    if (!t) throw new SafetensorsError(`${path}: no tensor "${name}"`);
    const buffer = new ArrayBuffer(t.byteLength);
    readExactly(fd, new Uint8Array(buffer), t.byteOffset, path, name);
    return { dtype: t.dtype, shape: [...t.shape], data: view(t, buffer) };
  };
  return {
    ...header,
    path,
    fileBytes,
    info: (name) => byName.get(name),
    read,
    readAll: () => new Map(header.tensors.map((t) => [t.name, read(t.name)])),
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

const LITTLE_ENDIAN = new Uint16Array(new Uint8Array([1, 0]).buffer)[0] === 1;

function view(t: TensorInfo, buffer: ArrayBufferLike) {
  if (!LITTLE_ENDIAN)
    throw new SafetensorsError(
      'safetensors data is little-endian and typed arrays here are not: big-endian machines are not supported',
    );
  const Array_ = dtypeArray(t.dtype);
  return new Array_(buffer, 0, t.byteLength / Array_.BYTES_PER_ELEMENT);
}

function readExactly(fd: number, into: Uint8Array, position: number, path: string, tensor?: string): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0)
      throw new SafetensorsError(
        `${path}: ${tensor ? `tensor "${tensor}": ` : ''}unexpected end of file at byte ${position + done} (truncated while reading)`,
      );
    done += n;
  }
}
