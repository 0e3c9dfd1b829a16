/**
 * Flow control for terminal streams, as VS Code does it: output is sent in ~5 ms batches, the receiver
 * acknowledges what it has rendered, and the pty is paused while too much is in flight, so a flooding
 * program slows to the pace of the screen instead of filling memory.
 */

export const FlowControl = {
  /** Batch output for this long before sending it. */
  BATCH_MS: 5,
  /** Send a batch early when it grows past this many chars. */
  BATCH_MAX_CHARS: 64 * 1024,
  /** Pause the pty above this many unacknowledged chars... */
  HIGH_WATERMARK_CHARS: 100_000,
  /** ...and resume it below this many. */
  LOW_WATERMARK_CHARS: 5_000,
  /** Receivers acknowledge in steps of about this many chars. */
  ACK_CHUNK_CHARS: 5_000,
} as const;

/** Collects data and hands it over in batches (timer or size, whichever comes first). */
export class DataBatcher {
  private parts: string[] = [];
  private size = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly send: (data: string) => void,
    private readonly batchMs: number = FlowControl.BATCH_MS,
    private readonly maxChars: number = FlowControl.BATCH_MAX_CHARS,
  ) {}

  push(data: string): void {
    if (!data) return;
    this.parts.push(data);
    this.size += data.length;
    if (this.size >= this.maxChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.batchMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.size === 0) return;
    const data = this.parts.join('');
    this.parts = [];
    this.size = 0;
    this.send(data);
  }

  dispose(): void {
    this.flush();
  }
}

/** Counts chars sent but not acknowledged and pauses/resumes the source at the watermarks. */
export class AckFlowController {
  private unacked = 0;
  private paused = false;

  constructor(
    private readonly source: { pause(): void; resume(): void },
    private readonly high: number = FlowControl.HIGH_WATERMARK_CHARS,
    private readonly low: number = FlowControl.LOW_WATERMARK_CHARS,
  ) {}

  sent(chars: number): void {
    this.unacked += chars;
    if (!this.paused && this.unacked > this.high) {
      this.paused = true;
      this.source.pause();
    }
  }

  ack(chars: number): void {
    this.unacked = Math.max(0, this.unacked - Math.max(0, chars));
    if (this.paused && this.unacked < this.low) {
      this.paused = false;
      this.source.resume();
    }
  }

  /** Forget what is in flight (the receiver went away): resume. */
  reset(): void {
    this.unacked = 0;
    if (this.paused) {
      this.paused = false;
      this.source.resume();
    }
  }

  get unackedChars(): number {
    return this.unacked;
  }

  get isPaused(): boolean {
    return this.paused;
  }
}
