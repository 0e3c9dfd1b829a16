/**
 * Sampled ids to text, as it may be sent: the whole output is decoded again at each token (a token can end
 * inside a UTF-8 character; the tokenizer then writes byte escapes, U+DC80..U+DCFF, which the next token
 * may complete), cut at the first stop string, and text that may still become a stop string or the start
 * of a tool call is held back until the next token decides. The end-of-turn token is not content.
 */

/** The lab's tokenizers write bytes that are not (yet) UTF-8 as these lone surrogates (bytes.ts). */
const BYTE_ESCAPE = /[\uDC80-\uDCFF]+$/;

export interface TextStreamOptions {
  decode: (ids: readonly number[]) => string;
  stopTokenIds: ReadonlySet<number>;
  stops: readonly string[];
  /** Text from which nothing is streamed (a tool call starts there); -1 when none. */
  holdFrom?: (text: string) => number;
}

export class TextStream {
  private readonly ids: number[] = [];
  private sent = 0;
  private text = '';
  /** The output reached a stop string: later tokens add nothing. */
  private stopped = false;

  constructor(private readonly options: TextStreamOptions) {}

  /** Add a sampled token; returns the text that became safe to send (often ''). */
  push(id: number): string {
    return this.pushAll([id]);
  }

  /** Add several tokens at once (decoded once). */
  pushAll(ids: readonly number[]): string {
    if (this.stopped) return '';
    for (const id of ids) if (!this.options.stopTokenIds.has(id)) this.ids.push(id);
    this.text = this.cut(this.options.decode(this.ids));
    return this.take(this.safeEnd());
  }

  /** The generation ended: what is left to send, and the whole content. */
  finish(): { delta: string; text: string } {
    return { delta: this.take(this.text.length), text: this.text };
  }

  /** The whole content so far (cut at a stop string). */
  get content(): string {
    return this.text;
  }

  private cut(decoded: string): string {
    let end = decoded.length;
    for (const stop of this.options.stops) {
      const at = decoded.indexOf(stop);
      if (at >= 0 && at < end) {
        end = at;
        this.stopped = true;
      }
    }
    return decoded.slice(0, end);
  }

  private safeEnd(): number {
    const text = this.text;
    let end = text.length - (BYTE_ESCAPE.exec(text)?.[0].length ?? 0);
    if (!this.stopped) {
      // The longest end of the text that begins a stop string waits for the next token.
      for (const stop of this.options.stops) {
        for (let k = Math.min(stop.length - 1, end); k > 0; k--) {
          if (text.slice(end - k, end) === stop.slice(0, k)) {
            end -= k;
            break;
          }
        }
      }
    }
    const hold = this.options.holdFrom?.(text) ?? -1;
    return hold >= 0 ? Math.min(end, hold) : end;
  }

  private take(end: number): string {
    if (end <= this.sent) return '';
    const delta = this.text.slice(this.sent, end);
    this.sent = end;
    return delta;
  }
}
