/**
 * Reading TensorBoard event files back (what `train status` and the tests use): TFRecord framing with both
 * CRCs checked, and the parts of `Event` the writer produces. Stops at a torn last record (a killed writer).
 */
import { readFileSync } from 'node:fs';
import { maskedCrc32c } from './crc32c';

export interface ReadEvent {
  wallTime: number;
  step: number;
  fileVersion: string | null;
  scalars: Record<string, number>;
}

export class TfEventsFormatError extends Error {
  override readonly name = 'TfEventsFormatError';
}

interface Field {
  field: number;
  wire: number;
  value: bigint | Uint8Array | DataView;
}

function* fields(bytes: Uint8Array): Generator<Field> {
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= bytes.length) throw new TfEventsFormatError('truncated varint');
      const b = bytes[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
  };
  while (i < bytes.length) {
    const key = Number(varint());
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) yield { field, wire, value: varint() };
    else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (i + n > bytes.length) throw new TfEventsFormatError('truncated fixed field');
      yield { field, wire, value: new DataView(bytes.buffer, bytes.byteOffset + i, n) };
      i += n;
    } else if (wire === 2) {
      const n = Number(varint());
      if (i + n > bytes.length) throw new TfEventsFormatError('truncated length-delimited field');
      yield { field, wire, value: bytes.subarray(i, i + n) };
      i += n;
    } else throw new TfEventsFormatError(`unsupported wire type ${wire}`);
  }
}

export function parseEvent(bytes: Uint8Array): ReadEvent {
  const event: ReadEvent = { wallTime: 0, step: 0, fileVersion: null, scalars: {} };
  for (const f of fields(bytes)) {
    if (f.field === 1 && f.wire === 1) event.wallTime = (f.value as DataView).getFloat64(0, true);
    else if (f.field === 2 && f.wire === 0) event.step = Number(f.value as bigint);
    else if (f.field === 3 && f.wire === 2) event.fileVersion = new TextDecoder().decode(f.value as Uint8Array);
    else if (f.field === 5 && f.wire === 2) {
      for (const v of fields(f.value as Uint8Array)) {
        if (v.field !== 1 || v.wire !== 2) continue;
        let tag = '';
        let value = NaN;
        for (const x of fields(v.value as Uint8Array)) {
          if (x.field === 1 && x.wire === 2) tag = new TextDecoder().decode(x.value as Uint8Array);
          if (x.field === 2 && x.wire === 5) value = (x.value as DataView).getFloat32(0, true);
        }
        event.scalars[tag] = value;
      }
    }
  }
  return event;
}

/** Every complete record of an event file; a CRC mismatch is an error naming the offset. */
export function readTfEvents(path: string): ReadEvent[] {
  const data = new Uint8Array(readFileSync(path));
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out: ReadEvent[] = [];
  let offset = 0;
  while (offset + 12 <= data.length) {
    const length = Number(view.getBigUint64(offset, true));
    if (view.getUint32(offset + 8, true) !== maskedCrc32c(data.subarray(offset, offset + 8)))
      throw new TfEventsFormatError(`${path}: bad length CRC at byte ${offset}`);
    const start = offset + 12;
    if (start + length + 4 > data.length) break; // torn last record
    const payload = data.subarray(start, start + length);
    if (view.getUint32(start + length, true) !== maskedCrc32c(payload))
      throw new TfEventsFormatError(`${path}: bad data CRC at byte ${offset}`);
    out.push(parseEvent(payload));
    offset = start + length + 4;
  }
  return out;
}
