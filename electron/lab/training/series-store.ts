/**
 * A run's `metrics.jsonl` held as columns, read incrementally: each `refresh()` reads only the bytes
 * appended since the last one (a half-written last line waits for its newline), so a page following a
 * live run re-reads nothing and a reload of a 100k-line file parses it once. Values go from the parsed
 * line straight into their column (no row objects unless asked for); missing values are NaN.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { newRowCursor, visitMetricLine, type MetricRow, type RowCursor } from '../../domain/training-metrics';

const CHUNK_BYTES = 4 << 20;
const INITIAL_ROWS = 1024;
/** Bad lines remembered for the page (each names its line number); more are only counted. */
const MAX_BAD_LINES = 5;

const nanArray = (n: number) => new Float64Array(n).fill(Number.NaN);

export class SeriesStore {
  private offset = 0;
  private pending = '';
  private cursor: RowCursor = newRowCursor();
  /** Rows every column has room for. */
  private capacity = INITIAL_ROWS;
  private x = { step: nanArray(INITIAL_ROWS), wall: nanArray(INITIAL_ROWS), tokens: nanArray(INITIAL_ROWS) };
  private columns = new Map<string, Float64Array>();
  /** Lines read so far. */
  rows = 0;
  badLines: { line: number; problem: string }[] = [];
  badLineCount = 0;
  private lineNo = 0;
  private collected: MetricRow[] | null = null;

  constructor(readonly file: string) {}

  /**
   * Read what was appended. With `collect`, returns the new rows as objects (for live followers);
   * otherwise an empty list (a first read of a big file builds no row objects). A missing file has no rows yet.
   */
  refresh(collect = false): MetricRow[] {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return [];
    }
    if (size < this.offset) this.reset(); // the file was replaced: start over
    if (size === this.offset) return [];
    this.collected = collect ? [] : null;
    const fd = openSync(this.file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, size - this.offset));
      while (this.offset < size) {
        const n = readSync(fd, buffer, 0, Math.min(buffer.length, size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        const lines = (this.pending + buffer.toString('utf8', 0, n)).split('\n');
        this.pending = lines.pop() ?? '';
        for (const line of lines) this.addLine(line);
      }
    } finally {
      closeSync(fd);
    }
    const added = this.collected ?? [];
    this.collected = null;
    return added;
  }

  private reset() {
    this.offset = 0;
    this.pending = '';
    this.cursor = newRowCursor();
    this.capacity = INITIAL_ROWS;
    this.x = { step: nanArray(INITIAL_ROWS), wall: nanArray(INITIAL_ROWS), tokens: nanArray(INITIAL_ROWS) };
    this.columns.clear();
    this.rows = 0;
    this.badLines = [];
    this.badLineCount = 0;
    this.lineNo = 0;
  }

  private grow() {
    const capacity = this.capacity * 2;
    const bigger = (a: Float64Array) => {
      const next = nanArray(capacity);
      next.set(a);
      return next;
    };
    this.x = { step: bigger(this.x.step), wall: bigger(this.x.wall), tokens: bigger(this.x.tokens) };
    for (const [k, c] of this.columns) this.columns.set(k, bigger(c));
    this.capacity = capacity;
  }

  private addLine(line: string) {
    this.lineNo++;
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      return this.bad(`not JSON (${(error as Error).message})`);
    }
    if (this.rows === this.capacity) this.grow();
    const i = this.rows;
    const values: Record<string, number> | null = this.collected ? {} : null;
    const x = visitMetricLine(parsed, this.cursor, (key, value) => {
      let column = this.columns.get(key);
      if (!column) this.columns.set(key, (column = nanArray(this.capacity)));
      column[i] = value;
      if (values) values[key] = value;
    });
    if (typeof x === 'string') return this.bad(x);
    this.rows++;
    this.x.step[i] = x.step;
    this.x.wall[i] = x.wall;
    this.x.tokens[i] = x.tokens;
    if (values) this.collected!.push({ ...x, values });
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
    return c ? c.subarray(0, this.rows) : nanArray(this.rows);
  }

  axis(name: 'step' | 'wall' | 'tokens'): Float64Array {
    return this.x[name].subarray(0, this.rows);
  }

  /** The last row's values (what `train watch` and the runs list show). */
  last(): MetricRow | null {
    if (!this.rows) return null;
    const i = this.rows - 1;
    const values: Record<string, number> = {};
    for (const [k, c] of this.columns) if (Number.isFinite(c[i]!)) values[k] = c[i]!;
    return { step: this.x.step[i]!, wall: this.x.wall[i]!, tokens: this.x.tokens[i]!, values };
  }
}
