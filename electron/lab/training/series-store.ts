/**
 * A run's `metrics.jsonl` held as columns, read incrementally: each `refresh()` reads only the bytes
 * appended since the last one (a half-written last line waits for its newline), so a page following a
 * live run re-reads nothing and a reload of a 100k-line file parses it once. Values missing from a line
 * are NaN in its column.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { newRowCursor, normalizeMetricLine, type MetricRow, type RowCursor } from '../../domain/training-metrics';

const CHUNK_BYTES = 4 << 20;
/** Bad lines remembered for the page (each names its line number); more are only counted. */
const MAX_BAD_LINES = 5;

class Column {
  data = new Float64Array(1024);
  constructor(fillTo: number) {
    this.ensure(fillTo);
    this.data.fill(Number.NaN, 0, fillTo);
  }
  ensure(n: number) {
    if (n <= this.data.length) return;
    let size = this.data.length;
    while (size < n) size *= 2;
    const next = new Float64Array(size).fill(Number.NaN);
    next.set(this.data);
    this.data = next;
  }
}

export class SeriesStore {
  private offset = 0;
  private pending = '';
  private cursor: RowCursor = newRowCursor();
  private x = { step: new Column(0), wall: new Column(0), tokens: new Column(0) };
  private columns = new Map<string, Column>();
  /** Lines read so far. */
  rows = 0;
  badLines: { line: number; problem: string }[] = [];
  badLineCount = 0;
  private lineNo = 0;

  constructor(readonly file: string) {}

  /** Read what was appended; returns the new rows (for live followers). A missing file has no rows yet. */
  refresh(): MetricRow[] {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return [];
    }
    if (size < this.offset) this.reset(); // the file was replaced: start over
    if (size === this.offset) return [];
    const added: MetricRow[] = [];
    const fd = openSync(this.file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, size - this.offset));
      while (this.offset < size) {
        const n = readSync(fd, buffer, 0, Math.min(buffer.length, size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        const text = this.pending + buffer.toString('utf8', 0, n);
        const lines = text.split('\n');
        this.pending = lines.pop() ?? '';
        for (const line of lines) this.addLine(line, added);
      }
    } finally {
      closeSync(fd);
    }
    return added;
  }

  private reset() {
    Object.assign(this, { offset: 0, pending: '', cursor: newRowCursor(), rows: 0, badLines: [], badLineCount: 0, lineNo: 0 });
    this.x = { step: new Column(0), wall: new Column(0), tokens: new Column(0) };
    this.columns.clear();
  }

  private addLine(line: string, added: MetricRow[]) {
    this.lineNo++;
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      return this.bad(`not JSON (${(error as Error).message})`);
    }
    const row = normalizeMetricLine(parsed, this.cursor);
    if (typeof row === 'string') return this.bad(row);
    const i = this.rows++;
    for (const axis of ['step', 'wall', 'tokens'] as const) {
      this.x[axis].ensure(i + 1);
      this.x[axis].data[i] = row[axis];
    }
    for (const [key, value] of Object.entries(row.values)) {
      let column = this.columns.get(key);
      if (!column) this.columns.set(key, (column = new Column(i + 1)));
      column.ensure(i + 1);
      column.data[i] = value;
    }
    added.push(row);
  }

  private bad(problem: string) {
    this.badLineCount++;
    if (this.badLines.length < MAX_BAD_LINES) this.badLines.push({ line: this.lineNo, problem });
  }

  keys(): string[] {
    return [...this.columns.keys()];
  }

  /** A series' values over the rows read so far (NaN where a line lacked it); a view, not a copy. */
  values(key: string): Float64Array {
    const c = this.columns.get(key);
    if (!c) return new Float64Array(this.rows).fill(Number.NaN);
    c.ensure(this.rows);
    return c.data.subarray(0, this.rows);
  }

  axis(name: 'step' | 'wall' | 'tokens'): Float64Array {
    return this.x[name].data.subarray(0, this.rows);
  }

  /** The last row's values (what `train watch` and the runs list show). */
  last(): MetricRow | null {
    if (!this.rows) return null;
    const i = this.rows - 1;
    const values: Record<string, number> = {};
    for (const [k, c] of this.columns) if (i < c.data.length && Number.isFinite(c.data[i]!)) values[k] = c.data[i]!;
    return { step: this.x.step.data[i]!, wall: this.x.wall.data[i]!, tokens: this.x.tokens.data[i]!, values };
  }
}
