/**
 * The shell-integration markers: invisible OSC sequences the session's bash prints when a command starts
 * (PS0), when it ends with its status (PROMPT_COMMAND), where its prompt ends (PS1) and when bash asks for
 * the rest of an incomplete command (PS2). `MarkerFilter`
 * takes them out of the byte stream in order, so nothing downstream (screen, text, recording, UI) sees
 * them. A marker carries a per-session nonce; one without it (a program printing a look-alike) is data.
 */

export const MARKER_OSC = 6973;
const PREFIX = `\x1b]${MARKER_OSC};`;
/** Longest marker we wait for before treating a partial one as plain data. */
const MAX_MARKER_CHARS = 128;

/** C: a command starts (PS0); D: it ended, with its status (PROMPT_COMMAND); B: the prompt ends (PS1); P: bash wants more input to complete the command (PS2). */
export type MarkerKind = 'C' | 'D' | 'B' | 'P';
export type Token = { type: 'data'; text: string } | { type: 'mark'; kind: MarkerKind; arg: string | null };

export function markerSequence(nonce: string, kind: MarkerKind, arg?: string): string {
  return `${PREFIX}${nonce};${kind}${arg === undefined ? '' : `;${arg}`}\x07`;
}

export class MarkerFilter {
  private pending = '';

  constructor(private readonly nonce: string) {}

  /** Split a chunk into data and markers; a marker cut across chunks is held until it completes. */
  push(chunk: string): Token[] {
    let text = this.pending + chunk;
    this.pending = '';
    const out: Token[] = [];
    let from = 0;
    for (;;) {
      const start = text.indexOf('\x1b]', from);
      if (start < 0) {
        // A lone ESC at the very end may start a marker: hold it.
        if (text.endsWith('\x1b') && text.length - 1 >= from) {
          this.pending = '\x1b';
          text = text.slice(0, -1);
        }
        break;
      }
      const rest = text.slice(start);
      if (rest.length < PREFIX.length) {
        if (PREFIX.startsWith(rest)) {
          this.pending = rest;
          text = text.slice(0, start);
        }
        break;
      }
      if (!rest.startsWith(PREFIX)) {
        from = start + 2;
        continue;
      }
      const end = text.indexOf('\x07', start);
      if (end < 0) {
        if (text.length - start <= MAX_MARKER_CHARS) {
          this.pending = text.slice(start);
          text = text.slice(0, start);
        }
        break;
      }
      const body = text.slice(start + PREFIX.length, end).split(';');
      if (body[0] === this.nonce && (body[1] === 'C' || body[1] === 'D' || body[1] === 'B' || body[1] === 'P')) {
        if (start > 0) out.push({ type: 'data', text: text.slice(0, start) });
        out.push({ type: 'mark', kind: body[1], arg: body[2] ?? null });
        text = text.slice(end + 1);
        from = 0;
      } else {
        from = end + 1;
      }
    }
    if (text) out.push({ type: 'data', text });
    return out;
  }

  /** Whatever is held back (at the end of the stream). */
  flush(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }
}
