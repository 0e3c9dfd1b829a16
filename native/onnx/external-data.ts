/**
 * ONNX models past protobuf's 2 GiB limit: initializers written to a data file next to the model (ONNX
 * external data, what onnx.save_model(..., save_as_external_data=True) writes), and the model proto
 * refers to them by location, offset and length. onnxruntime resolves the location against the model's
 * folder, so such a model is opened from its path, not from bytes.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import type { TensorProto } from './proto';

/** Protobuf refuses messages of 2 GiB and more; what is left for nodes and small tensors is kept free. */
export const PROTOBUF_LIMIT_BYTES = 2 ** 31;
/** A model whose initializers hold more than this goes to external data (T1LAB_ONNX_EXTERNAL_DATA_BYTES lowers it, for tests). */
export function externalDataThreshold(): number {
  const forced = Number(process.env.T1LAB_ONNX_EXTERNAL_DATA_BYTES);
  return Number.isFinite(forced) && forced > 0 ? forced : PROTOBUF_LIMIT_BYTES - 64 * 2 ** 20;
}

/** Tensors smaller than this stay inside the proto (as onnx's converter does by default). */
const MIN_EXTERNAL_TENSOR_BYTES = 1024;
/** Offsets aligned to the page size, so onnxruntime may map the file instead of copying it. */
const ALIGN = 4096;

export function initializerBytes(initializers: readonly TensorProto[]): number {
  return initializers.reduce((n, t) => n + t.data.byteLength, 0);
}

/**
 * Write the large initializers' data to `dataPath` and mark them external (in place). Returns the bytes
 * written. The model proto must then be saved in the same folder as `dataPath`.
 */
export function writeExternalData(initializers: TensorProto[], dataPath: string): number {
  const location = basename(dataPath);
  const fd = openSync(dataPath, 'w');
  let offset = 0;
  try {
    const pad = new Uint8Array(ALIGN);
    for (const t of initializers) {
      if (t.data.byteLength < MIN_EXTERNAL_TENSOR_BYTES) continue;
      const gap = (ALIGN - (offset % ALIGN)) % ALIGN;
      if (gap) offset += writeSync(fd, pad, 0, gap);
      const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
      // writeSync writes at most 2 GiB per call: a large tensor goes in pieces.
      for (let done = 0; done < bytes.length;)
        done += writeSync(fd, bytes, done, Math.min(bytes.length - done, 2 ** 30));
      t.external = { location, offset, length: bytes.length };
      offset += bytes.length;
    }
  } finally {
    closeSync(fd);
  }
  return offset;
}
