/** A headless xterm mirroring a session: what a person would see on the screen right now. */
import xterm from '@xterm/headless';

export interface ScreenSnapshot {
  lines: string[];
  cols: number;
  rows: number;
  cursor: { x: number; y: number };
  alternate: boolean;
}

export class HeadlessScreen {
  private readonly term: InstanceType<typeof xterm.Terminal>;
  private pendingWrites = 0;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(cols: number, rows: number, scrollback = 1000) {
    this.term = new xterm.Terminal({ cols, rows, scrollback, allowProposedApi: true });
  }

  write(data: string): void {
    this.pendingWrites++;
    this.term.write(data, () => {
      if (--this.pendingWrites === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  /** Resolves once everything written so far is on the screen (xterm parses asynchronously). */
  flushed(): Promise<void> {
    if (this.pendingWrites === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
  }

  get applicationCursor(): boolean {
    return this.term.modes.applicationCursorKeysMode;
  }

  get alternate(): boolean {
    return this.term.buffer.active.type === 'alternate';
  }

  snapshot(): ScreenSnapshot {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++)
      lines.push(buffer.getLine(buffer.baseY + y)?.translateToString(true) ?? '');
    return {
      lines,
      cols: this.term.cols,
      rows: this.term.rows,
      cursor: { x: buffer.cursorX, y: buffer.cursorY },
      alternate: buffer.type === 'alternate',
    };
  }

  dispose(): void {
    this.term.dispose();
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
