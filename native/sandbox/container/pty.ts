/**
 * A shell in a container on a pty (`podman run -it`). Exit is reported only after the output has drained
 * and the container has been committed (when asked) and removed, so that whoever waits for the exit can
 * read the saved state at once (the verifier does).
 */
import type * as pty from 'node-pty';
import type { LimitEvent, LimitName, PtyProcess } from '../types';

type Listener<T> = (value: T) => void;
type Exit = { exitCode: number; signal: number | null; limit: LimitName | null };

const EXIT_DRAIN_MS = 30;
const EXIT_DRAIN_MAX_MS = 500;

export interface ContainerControl {
  wallSeconds: number;
  kill(): Promise<void>;
  /** Commit (if asked) and remove the container; returns a problem in words, or null. */
  finish(): Promise<string | null>;
  oomKilled(): Promise<boolean>;
}

export class ContainerPty implements PtyProcess {
  private readonly dataListeners = new Set<Listener<string>>();
  private readonly exitListeners = new Set<Listener<Exit>>();
  private readonly limitListeners = new Set<Listener<LimitEvent>>();
  private stoppedBy: LimitName | null = null;
  private exited = false;
  private lastDataAt = performance.now();
  private readonly wall: ReturnType<typeof setTimeout> | null;
  private settle!: () => void;
  /** Resolves once the container is committed (when asked) and removed. */
  readonly done = new Promise<void>((resolve) => (this.settle = resolve));

  constructor(
    private readonly term: pty.IPty,
    private readonly control: ContainerControl,
  ) {
    term.onData((data) => {
      this.lastDataAt = performance.now();
      for (const l of this.dataListeners) l(data);
    });
    term.onExit(({ exitCode, signal }) => void this.finish(exitCode, signal ?? null));
    this.wall =
      control.wallSeconds > 0
        ? setTimeout(() => {
            this.stoppedBy ??= 'wallSeconds';
            this.notice(`the ${control.wallSeconds} s wall-clock limit was reached: the container is stopped`);
            this.kill();
          }, control.wallSeconds * 1000)
        : null;
    this.wall?.unref?.();
  }

  get pid(): number {
    return this.term.pid;
  }

  private notice(message: string): void {
    const line = `\r\n\x1b[1;33m[t1lab] ${message}\x1b[0m\r\n`;
    for (const l of this.dataListeners) l(line);
  }

  private async finish(exitCode: number, signal: number | null): Promise<void> {
    if (this.exited) return;
    this.exited = true;
    if (this.wall) clearTimeout(this.wall);
    const deadline = performance.now() + EXIT_DRAIN_MAX_MS;
    while (performance.now() - this.lastDataAt < EXIT_DRAIN_MS && performance.now() < deadline) await new Promise((r) => setTimeout(r, EXIT_DRAIN_MS));
    if (!this.stoppedBy && (await this.control.oomKilled().catch(() => false))) {
      this.stoppedBy = 'memoryMb';
      for (const l of this.limitListeners) l({ limit: 'memoryMb', message: 'the container ran out of memory', killed: [] });
    }
    const problem = await this.control.finish().catch((e: Error) => e.message);
    if (problem) this.notice(problem);
    let sig = signal || null;
    if (exitCode > 128 && exitCode < 160) sig = exitCode - 128;
    this.settle();
    for (const l of this.exitListeners) l({ exitCode, signal: sig, limit: this.stoppedBy });
  }

  write(data: string): void {
    if (!this.exited) this.term.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.exited) this.term.resize(cols, rows);
  }

  onData(listener: Listener<string>) {
    this.dataListeners.add(listener);
    return { dispose: () => void this.dataListeners.delete(listener) };
  }

  onExit(listener: Listener<Exit>) {
    this.exitListeners.add(listener);
    return { dispose: () => void this.exitListeners.delete(listener) };
  }

  onLimit(listener: Listener<LimitEvent>) {
    this.limitListeners.add(listener);
    return { dispose: () => void this.limitListeners.delete(listener) };
  }

  pause(): void {
    this.term.pause();
  }

  resume(): void {
    this.term.resume();
  }

  /** Stop the container (every process in it); the exit follows once it is committed and removed. */
  kill(): void {
    if (this.exited) return;
    void this.control.kill().catch(() => {});
  }
}
