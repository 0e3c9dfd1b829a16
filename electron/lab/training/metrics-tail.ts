/**
 * The last row of a metrics.jsonl without reading the file: its first line (the run's time zero) and its
 * last complete line. The runs list asks this of every run every few seconds; a 100k-step file costs two
 * small reads, not a parse.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { newRowCursor, normalizeMetricLine, type MetricRow } from '../../domain/training-metrics';

/** Longer lines than this at the ends of the file are not read (the full reader still reads them). */
const END_BYTES = 64 << 10;

function parse(line: string | undefined): unknown {
  if (!line?.trim()) return null;
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

export function lastMetricRow(file: string): MetricRow | null {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return null;
  }
  if (!size) return null;
  const fd = openSync(file, 'r');
  try {
    const read = (from: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const n = readSync(fd, buffer, 0, length, from);
      return buffer.toString('utf8', 0, n);
    };
    const head = read(0, Math.min(END_BYTES, size));
    const tail = size <= END_BYTES ? head : read(size - END_BYTES, END_BYTES);
    const firstLine = head.slice(0, head.indexOf('\n') >= 0 ? head.indexOf('\n') : undefined);
    // The last complete line: a torn line (a writer mid-append) is not one.
    const lines = tail.split('\n');
    lines.pop();
    const lastLine = [...lines].reverse().find((l) => parse(l) !== null);
    const cursor = newRowCursor();
    const first = parse(firstLine);
    if (first !== null) normalizeMetricLine(first, cursor);
    const last = normalizeMetricLine(parse(lastLine), cursor);
    return typeof last === 'string' ? null : last;
  } finally {
    closeSync(fd);
  }
}
