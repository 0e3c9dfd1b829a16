/**
 * Cuts one marker out of a stream of text chunks. Text passes through as it comes, except a chunk's end that
 * could be the start of the marker: it is held back until the next chunk says whether it is.
 */
export class MarkerCut {
  private held = '';
  private done = false;

  constructor(readonly marker: string) {
    if (!marker) throw new Error('the marker must not be empty');
  }

  /** Whether the marker has been seen (and cut). */
  get found(): boolean {
    return this.done;
  }

  /** The text to pass on from this chunk: everything but the marker and a possible start of it at the end. */
  push(chunk: string): string {
    if (this.done) return chunk;
    const text = this.held + chunk;
    this.held = '';
    const at = text.indexOf(this.marker);
    if (at >= 0) {
      this.done = true;
      return text.slice(0, at) + text.slice(at + this.marker.length);
    }
    for (let keep = Math.min(this.marker.length - 1, text.length); keep > 0; keep--) {
      if (this.marker.startsWith(text.slice(text.length - keep))) {
        this.held = text.slice(text.length - keep);
        return text.slice(0, text.length - keep);
      }
    }
    return text;
  }

  /** What is held back, given up when the marker will not come. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}
