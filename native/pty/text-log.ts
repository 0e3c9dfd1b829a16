/**
 * Terminal output as plain text for an agent: escape sequences dropped, carriage returns and backspaces
 * applied to the current line (a progress bar ends as its last state, not a thousand copies), lines
 * committed on newline. The visible screen is the headless terminal's job; this is the transcript.
 * Written by hand: the strip-ansi family removes sequences but does not apply \r and \b, which is the point.
 */

type State = 'text' | 'esc' | 'csi' | 'osc' | 'oscEsc' | 'str' | 'strEsc' | 'escInter';

/** Longest line kept (chars); a line without newlines beyond this is committed in pieces. */
const MAX_LINE = 16_384;
const TAB = 8;
/** Printable text: no C0/C1 controls, no DEL. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const PLAIN = /[^\x00-\x1f\x7f-\x9f]+/y;

export class TextLog {
  private state: State = 'text';
  private csiParams = '';
  private line = '';
  private col = 0;

  constructor(private readonly commit: (text: string) => void) {}

  /** The current, not yet committed line. */
  get partial(): string {
    return this.line.replace(/\s+$/, '');
  }

  /** Commit the current line without a newline (at a marker: a command's last line may lack one). */
  commitPartial(): void {
    const text = this.partial;
    this.line = '';
    this.col = 0;
    if (text) this.commit(text);
  }

  write(data: string): void {
    let i = 0;
    while (i < data.length) {
      if (this.state === 'text') {
        // Fast path: a run of printable text goes in at once.
        PLAIN.lastIndex = i;
        const m = PLAIN.exec(data);
        if (m && m.index === i) {
          this.put(m[0]);
          i += m[0].length;
          continue;
        }
      }
      const cp = data.codePointAt(i) as number;
      const ch = String.fromCodePoint(cp);
      this.char(ch);
      i += ch.length;
    }
  }

  private char(ch: string): void {
    const code = ch.codePointAt(0) as number;
    switch (this.state) {
      case 'text':
        if (ch === '\x1b') this.state = 'esc';
        else if (ch === '\n') this.newline();
        else if (ch === '\r') this.col = 0;
        else if (ch === '\b') this.col = Math.max(0, this.col - 1);
        else if (ch === '\t') this.put(' '.repeat(TAB - (this.col % TAB)));
        else if (code === 0x9b) this.startCsi();
        else if (code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code < 0xa0)) this.put(ch);
        return;
      case 'esc':
        if (ch === '[') this.startCsi();
        else if (ch === ']') this.state = 'osc';
        else if (ch === 'P' || ch === 'X' || ch === '^' || ch === '_') this.state = 'str';
        else if (code >= 0x20 && code <= 0x2f) this.state = 'escInter';
        else this.state = 'text';
        return;
      case 'escInter':
        if (!(code >= 0x20 && code <= 0x2f)) this.state = 'text';
        return;
      case 'csi':
        if (code >= 0x40 && code <= 0x7e) {
          this.csi(ch, this.csiParams);
          this.state = 'text';
        } else this.csiParams += ch;
        return;
      case 'osc':
        if (ch === '\x07') this.state = 'text';
        else if (ch === '\x1b') this.state = 'oscEsc';
        return;
      case 'oscEsc':
      case 'strEsc':
        this.state = ch === '\\' ? 'text' : this.state === 'oscEsc' ? 'osc' : 'str';
        return;
      case 'str':
        if (ch === '\x1b') this.state = 'strEsc';
        return;
    }
  }

  private startCsi(): void {
    this.state = 'csi';
    this.csiParams = '';
  }

  private csi(final: string, params: string): void {
    const n = Math.max(1, Number.parseInt(params, 10) || 1);
    switch (final) {
      case 'C':
        this.col += n;
        return;
      case 'D':
        this.col = Math.max(0, this.col - n);
        return;
      case 'G':
        this.col = n - 1;
        return;
      case 'K':
        // 0 (default): erase to end of line; 2: whole line; 1: to the cursor.
        if (params === '' || params === '0') this.line = this.line.slice(0, this.col);
        else if (params === '2') this.line = '';
        else this.line = ' '.repeat(Math.min(this.col, this.line.length)) + this.line.slice(this.col);
        return;
      case 'P':
        this.line = this.line.slice(0, this.col) + this.line.slice(this.col + n);
        return;
      case '@':
        this.line = this.line.slice(0, this.col) + ' '.repeat(n) + this.line.slice(this.col);
        return;
      default:
        return; // colours, modes, cursor up/down: nothing to do in a transcript
    }
  }

  private put(text: string): void {
    if (this.col >= this.line.length) this.line = this.line.padEnd(this.col) + text;
    else this.line = this.line.slice(0, this.col) + text + this.line.slice(this.col + text.length);
    this.col += text.length;
    if (this.line.length >= MAX_LINE) {
      this.commit(this.line);
      this.line = '';
      this.col = 0;
    }
  }

  private newline(): void {
    this.commit(`${this.line.replace(/\s+$/, '')}\n`);
    this.line = '';
    this.col = 0;
  }
}
