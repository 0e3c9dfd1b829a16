/**
 * Records a session as asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header
 * line, then one `[seconds, "o" | "i" | "r", data]` line per event. `asciinema play` and `cat` accept it.
 */
import { createWriteStream, type WriteStream } from 'node:fs';

export interface AsciicastHeader {
  width: number;
  height: number;
  title?: string;
  env?: Record<string, string>;
}

export class AsciicastRecorder {
  private readonly stream: WriteStream;
  private readonly started = performance.now();
  private closed: Promise<void> | null = null;

  constructor(
    readonly path: string,
    header: AsciicastHeader,
    private readonly options: { recordInput?: boolean } = {},
  ) {
    this.stream = createWriteStream(path, { flags: 'w', mode: 0o644 });
    this.stream.on('error', () => {}); // a failed recording must not take the session down; close() reports it
    const head = {
      version: 2,
      width: header.width,
      height: header.height,
      timestamp: Math.floor(Date.now() / 1000),
      ...(header.title ? { title: header.title } : {}),
      env: header.env ?? {},
    };
    this.stream.write(`${JSON.stringify(head)}\n`);
  }

  private event(kind: 'o' | 'i' | 'r', data: string): void {
    if (this.closed) return;
    const t = Math.round(performance.now() - this.started) / 1000;
    this.stream.write(`${JSON.stringify([t, kind, data])}\n`);
  }

  output(data: string): void {
    if (data) this.event('o', data);
  }

  input(data: string): void {
    if (this.options.recordInput && data) this.event('i', data);
  }

  resize(cols: number, rows: number): void {
    this.event('r', `${cols}x${rows}`);
  }

  close(): Promise<void> {
    this.closed ??= new Promise((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => resolve());
    });
    return this.closed;
  }
}
