/** The last complete lines of a text file, reading only its end (metrics.jsonl grows to many megabytes). */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** Bytes read from the end per call: enough for a few dozen metric rows. */
const TAIL_BYTES = 128 << 10;

export function tailLines(file: string, max: number): string[] {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return [];
  }
  if (!size) return [];
  const length = Math.min(TAIL_BYTES, size);
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const n = readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8', 0, n).split('\n');
    lines.pop(); // after the last newline: empty, or a line being written
    if (length < size) lines.shift(); // cut at the front
    return lines.filter((l) => l.trim()).slice(-max);
  } finally {
    closeSync(fd);
  }
}
