/**
 * TensorBoard event files, written by hand (no TensorFlow): TFRecord framing — uint64 length, masked
 * CRC-32C of the length, the payload, masked CRC-32C of the payload, all little-endian — around `Event`
 * protocol buffers (tensorflow/core/util/event.proto): the first holds `file_version = "brain.Event:2"`,
 * then one per step with a `Summary` of scalar values (`simple_value`). `tensorboard --logdir RUN` opens it.
 * Every record is flushed and fsync'd, so a killed run keeps every step it logged.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { maskedCrc32c } from './crc32c';

class ProtoWriter {
  private parts: Uint8Array[] = [];

  private varint(value: number | bigint): void {
    let v = BigInt(value);
    const out: number[] = [];
    while (v > 0x7fn) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.parts.push(Uint8Array.from(out));
  }

  private key(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  double(field: number, value: number): this {
    this.key(field, 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, value, true);
    this.parts.push(b);
    return this;
  }

  float(field: number, value: number): this {
    this.key(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.parts.push(b);
    return this;
  }

  int64(field: number, value: number): this {
    this.key(field, 0);
    this.varint(value);
    return this;
  }

  bytes(field: number, value: Uint8Array | string): this {
    const b = typeof value === 'string' ? new TextEncoder().encode(value) : value;
    this.key(field, 2);
    this.varint(b.length);
    this.parts.push(b);
    return this;
  }

  finish(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

/** Event fields (event.proto): wall_time 1 (double), step 2 (int64), file_version 3 (string), summary 5. */
export function fileVersionEvent(wallTime: number): Uint8Array {
  return new ProtoWriter().double(1, wallTime).bytes(3, 'brain.Event:2').finish();
}

/** Summary.value 1 -> Value{tag 1 (string), simple_value 2 (float)}. */
export function scalarsEvent(wallTime: number, step: number, scalars: Record<string, number>): Uint8Array {
  const summary = new ProtoWriter();
  for (const [tag, value] of Object.entries(scalars)) {
    if (!Number.isFinite(value)) continue;
    summary.bytes(1, new ProtoWriter().bytes(1, tag).float(2, value).finish());
  }
  return new ProtoWriter().double(1, wallTime).int64(2, step).bytes(5, summary.finish()).finish();
}

/** One TFRecord: length, masked CRC of the length, data, masked CRC of the data. */
export function tfRecord(data: Uint8Array): Uint8Array {
  const header = new Uint8Array(12);
  const view = new DataView(header.buffer);
  view.setBigUint64(0, BigInt(data.length), true);
  view.setUint32(8, maskedCrc32c(header.subarray(0, 8)), true);
  const footer = new Uint8Array(4);
  new DataView(footer.buffer).setUint32(0, maskedCrc32c(data), true);
  return Buffer.concat([header, data, footer]);
}

export class TfEventsWriter {
  private fd: number | null;
  readonly path: string;

  /** A new event file in `dir` (a resumed run starts a new file; TensorBoard reads them all). */
  constructor(dir: string, now = Date.now()) {
    const seconds = Math.floor(now / 1000);
    this.path = join(dir, `events.out.tfevents.${seconds}.${hostname()}.${process.pid}`);
    this.fd = openSync(this.path, 'a');
    this.write(fileVersionEvent(now / 1000));
  }

  private write(event: Uint8Array): void {
    if (this.fd === null) throw new Error(`${this.path}: the event file is closed`);
    const record = tfRecord(event);
    let done = 0;
    while (done < record.length) done += writeSync(this.fd, record, done, record.length - done);
    fsyncSync(this.fd);
  }

  scalars(step: number, values: Record<string, number>, wallTime = Date.now() / 1000): void {
    this.write(scalarsEvent(wallTime, step, values));
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
