/**
 * TensorBoard event files: TFRecord framing with masked CRC-32C around Event protobufs. The reader here
 * checks both CRCs of every record and decodes the protobuf fields independently of the writer's code.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crc32c, maskedCrc32c } from '../../../electron/lab/tensorboard/crc32c';
import { TfEventsWriter } from '../../../electron/lab/tensorboard/tfevents';
import { readTfEvents, TfEventsFormatError } from '../../../electron/lab/tensorboard/tfevents-reader';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A second, minimal decoder written from the protobuf wire format, to not trust the reader alone. */
function decodeScalar(bytes: Uint8Array): { step: number; tag: string; value: number } | null {
  // Event: 0x09 wall_time(8) 0x10 step(varint) 0x2a len Summary{0x0a len Value{0x0a len tag 0x15 float}}
  let i = 9;
  if (bytes[0] !== 0x09 || bytes[i] !== 0x10) return null;
  i++;
  let step = 0;
  let shift = 0;
  while (bytes[i]! & 0x80) {
    step += (bytes[i++]! & 0x7f) << shift;
    shift += 7;
  }
  step += bytes[i++]! << shift;
  if (bytes[i++] !== 0x2a) return null;
  i++; // summary length (small)
  if (bytes[i++] !== 0x0a) return null;
  i++; // value length
  if (bytes[i++] !== 0x0a) return null;
  const tagLen = bytes[i++]!;
  const tag = new TextDecoder().decode(bytes.subarray(i, i + tagLen));
  i += tagLen;
  if (bytes[i++] !== 0x15) return null;
  const value = new DataView(bytes.buffer, bytes.byteOffset + i, 4).getFloat32(0, true);
  return { step, tag, value };
}

describe('tfevents', () => {
  it('CRC-32C matches the standard check value', () => {
    expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
    expect(maskedCrc32c(new Uint8Array(0))).toBe(0xa282ead8);
  });

  it('writes records that parse: file version first, then scalars per step', () => {
    const dir = mkdtempSync(join(tmpdir(), 't1-tfevents-'));
    dirs.push(dir);
    const w = new TfEventsWriter(dir, 1_700_000_000_000);
    w.scalars(1, { 'train/loss': 2.5, 'train/lr': 1e-3 }, 1_700_000_001);
    w.scalars(300, { 'train/loss': 1.25 }, 1_700_000_002);
    w.close();
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^events\.out\.tfevents\.1700000000\./);
    const events = readTfEvents(join(dir, files[0]!));
    expect(events[0]!.fileVersion).toBe('brain.Event:2');
    expect(events[1]).toMatchObject({ step: 1, wallTime: 1_700_000_001 });
    expect(events[1]!.scalars['train/loss']).toBe(2.5);
    expect(events[1]!.scalars['train/lr']).toBeCloseTo(1e-3, 9);
    expect(events[2]).toMatchObject({ step: 300, scalars: { 'train/loss': 1.25 } });

    // Frame by frame, by hand: length, masked CRC of the length, payload, masked CRC of the payload.
    const bytes = new Uint8Array(readFileSync(join(dir, files[0]!)));
    const view = new DataView(bytes.buffer);
    let offset = 0;
    const payloads: Uint8Array[] = [];
    while (offset < bytes.length) {
      const n = Number(view.getBigUint64(offset, true));
      expect(view.getUint32(offset + 8, true)).toBe(maskedCrc32c(bytes.subarray(offset, offset + 8)));
      const payload = bytes.subarray(offset + 12, offset + 12 + n);
      expect(view.getUint32(offset + 12 + n, true)).toBe(maskedCrc32c(payload));
      payloads.push(payload);
      offset += 16 + n;
    }
    expect(offset).toBe(bytes.length);
    expect(decodeScalar(payloads[2]!)).toEqual({ step: 300, tag: 'train/loss', value: 1.25 });
  });

  it('a corrupted record is an error naming its offset; a torn last record is ignored', () => {
    const dir = mkdtempSync(join(tmpdir(), 't1-tfevents-'));
    dirs.push(dir);
    const w = new TfEventsWriter(dir);
    w.scalars(1, { a: 1 });
    w.close();
    const path = join(dir, readdirSync(dir)[0]!);
    const good = readFileSync(path);
    writeFileSync(path, good.subarray(0, good.length - 3));
    expect(readTfEvents(path)).toHaveLength(1);
    const bad = Buffer.from(good);
    bad[bad.length - 6]! ^= 0xff;
    writeFileSync(path, bad);
    expect(() => readTfEvents(path)).toThrow(TfEventsFormatError);
    expect(() => readTfEvents(path)).toThrow(/bad data CRC at byte \d+/);
  });
});
