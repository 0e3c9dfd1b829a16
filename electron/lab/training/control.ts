/** Pause, resume and stop requests for a running training loop, honoured at step boundaries. */
export class TrainingControl {
  private paused = false;
  private stopped = false;
  private wake: (() => void) | null = null;

  get pauseRequested(): boolean {
    return this.paused;
  }

  get stopRequested(): boolean {
    return this.stopped;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake?.();
  }

  /** Stop after the current step (a checkpoint is written first). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** Resolves once resumed or stopped. */
  async waitWhilePaused(): Promise<void> {
    while (this.paused && !this.stopped) await new Promise<void>((r) => (this.wake = r));
    this.wake = null;
  }
}
