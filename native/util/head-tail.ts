/**
 * Keeps the head and the tail of a stream of text within a budget of chars, and says how much it cut from
 * the middle. Memory stays bounded whatever flows through (a flood keeps only its first and last chars).
 */

export const CUT_MARK = (chars: number): string => `\n[... ${chars} chars cut ...]\n`;

export class HeadTail {
  private head = '';
  private tailParts: string[] = [];
  private tailLength = 0;
  private cut = 0;
  private readonly headBudget: number;
  private readonly tailBudget: number;

  constructor(readonly maxChars: number) {
    if (!Number.isInteger(maxChars) || maxChars < 0)
      throw new Error(`maxChars must be a non-negative integer, got ${maxChars}`);
    this.headBudget = Math.ceil(maxChars / 2);
    this.tailBudget = maxChars - this.headBudget;
  }

  push(text: string): void {
    if (!text) return;
    if (this.cut === 0 && this.tailLength === 0 && this.head.length < this.headBudget) {
      const room = this.headBudget - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (!text) return;
    }
    this.tailParts.push(text);
    this.tailLength += text.length;
    if (this.tailLength > this.tailBudget * 2 + 4096) this.compact();
  }

  private compact(): void {
    const joined = this.tailParts.join('');
    const keep = joined.slice(Math.max(0, joined.length - this.tailBudget));
    this.cut += joined.length - keep.length;
    this.tailParts = keep ? [keep] : [];
    this.tailLength = keep.length;
  }

  /** Chars cut so far (0 when everything fits). */
  get truncatedChars(): number {
    return this.cut + Math.max(0, this.tailLength - this.tailBudget);
  }

  /** Total chars pushed. */
  get totalChars(): number {
    return this.head.length + this.cut + this.tailLength;
  }

  /** The kept text, with a line naming the cut where there was one. */
  text(): string {
    this.compact();
    return this.cut > 0
      ? `${this.head}${CUT_MARK(this.cut)}${this.tailParts.join('')}`
      : this.head + this.tailParts.join('');
  }
}

/** Cap one string at once: head and tail of `maxChars` in all. */
export function capHeadTail(text: string, maxChars: number): { text: string; truncatedChars: number } {
  const h = new HeadTail(maxChars);
  h.push(text);
  return { text: h.text(), truncatedChars: h.truncatedChars };
}
