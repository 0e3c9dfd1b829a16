/**
 * What the pty of every sandbox backend shares (bubblewrap.ts, container/pty.ts): the listeners, the
 * wall-clock timer, notices written into the terminal, and an exit reported only after the output has
 * drained, so that the tail is never lost. A backend supplies how its sandbox is stopped and what its exit
 * means once the output has drained (limits that fired, clean-up).
 *
 * The drain is node-pty's own: on Linux its exit event waits for the pty's read side to close (EIO once
 * every process holding the terminal is gone and the kernel buffer is read), so every data event comes
 * before it. Nothing here polls for quiet output. One exception is undone here: see keepTailOnExit; and
 * the kernel's own race at the slave's close is closed by holding the slave open (pty-exit-drain.ts).
 */
import type * as Pty from 'node-pty';
import { PtyExitDrain } from './pty-exit-drain';
import type { LimitEvent, LimitName, PtyProcess } from './types';

type Listener<T> = (value: T) => void;

/** How long a pty's read side may stay open after its process exited before it is closed anyway. */
const EXIT_SOCKET_LIMIT_MS = 10_000;

/**
 * node-pty 1.1 (lib/unixTerminal.js) destroys its read socket 200 ms after the child's exit when the socket
 * has not closed by then (a macOS workaround), and destroy() drops what the kernel still buffers: the tail
 * of the output is lost whenever the terminal is paused (flow control) or the event loop is busy for
 * 200 ms at that moment (CI saw a 3 MB tail cut on a loaded machine). On Linux the socket closes by itself
 * (EIO) once the output is read, so that destroy is deferred until then, or EXIT_SOCKET_LIMIT_MS at most
 * (a process outside the sandbox holding the terminal open). The socket is node-pty's private field:
 * when it is not there, nothing changes.
 *
 * `onChildExit` is called as soon as node-pty learns that its child exited (its exit handler then waits for
 * the socket's close, or, at the latest, when it tries that destroy): the moment to drain the output.
 */
function keepTailOnExit(term: Pty.IPty, onChildExit: () => void): void {
  type Socket = {
    destroy?: (...args: unknown[]) => unknown;
    destroyed?: boolean;
    once?: (event: string, l: () => void) => unknown;
    on?: (event: string, l: (name: unknown) => void) => unknown;
  };
  const socket = (term as unknown as { _socket?: Socket })._socket;
  if (
    process.platform !== 'linux' ||
    !socket ||
    typeof socket.destroy !== 'function' ||
    typeof socket.once !== 'function' ||
    typeof socket.on !== 'function'
  )
    return;
  // node-pty's exit handler is the only one to add a 'close' listener to its socket after the spawn.
  socket.on('newListener', (name) => {
    if (name === 'close') onChildExit();
  });
  const destroy = socket.destroy.bind(socket);
  let deferred = false;
  socket.destroy = (...args: unknown[]) => {
    // node-pty's timer after the exit is the only caller of a plain destroy() on an open socket here (the lab
    // never calls term.destroy()); a destroy with an error, or a second one, goes through at once.
    if (deferred || args.length > 0 || socket.destroyed) return destroy(...args);
    deferred = true;
    onChildExit();
    const limit = setTimeout(() => destroy(), EXIT_SOCKET_LIMIT_MS);
    limit.unref?.();
    socket.once!('close', () => clearTimeout(limit));
    return socket;
  };
}
export type PtyExit = { exitCode: number; signal: number | null; limit: LimitName | null };

export abstract class SandboxPty implements PtyProcess {
  private readonly dataListeners = new Set<Listener<string>>();
  private readonly exitListeners = new Set<Listener<PtyExit>>();
  private readonly limitListeners = new Set<Listener<LimitEvent>>();
  /** The limit that stopped the whole sandbox, if one did. */
  protected stoppedBy: LimitName | null = null;
  protected exited = false;
  private readonly wall: ReturnType<typeof setTimeout> | null;
  /** Null where the slave cannot be held (not Linux, no pts name): the output is then read as node-pty reads it. */
  private readonly drain: PtyExitDrain | null;

  /** `wall`: the wall-clock limit in seconds (0 = none) and the notice the terminal shows when it is reached. */
  constructor(
    protected readonly term: Pty.IPty,
    wall: { seconds: number; notice: string },
  ) {
    this.drain = PtyExitDrain.open((term as { ptsName?: string }).ptsName);
    keepTailOnExit(term, () => this.drain?.start());
    term.onData((data) => this.emitData(this.drain ? this.drain.filter(data) : data));
    term.onExit(({ exitCode, signal }) => {
      this.processesGone();
      void this.finish(exitCode, signal ?? null);
    });
    this.wall =
      wall.seconds > 0
        ? setTimeout(() => {
            this.stoppedBy ??= 'wallSeconds';
            this.notice(wall.notice);
            this.kill();
          }, wall.seconds * 1000)
        : null;
    this.wall?.unref?.();
  }

  /** Stop every process of the sandbox; the exit follows through onExit. */
  abstract kill(): void;

  /** The pty's process has exited (its output may still be draining). */
  protected processesGone(): void {}

  /** The exit has happened and the wall timer is cleared; the output has drained. */
  protected beforeDrain(): void {}

  /** What the exit means, once the output has drained (limits, clean-up); reported to onExit as returned. */
  protected abstract settle(exitCode: number, signal: number | null): Promise<PtyExit>;

  get pid(): number {
    return this.term.pid;
  }

  /** A line in the terminal telling the user (or agent) what the lab did. */
  protected notice(message: string): void {
    const line = `\r\n\x1b[1;33m[t1lab] ${message}\x1b[0m\r\n`;
    for (const l of this.dataListeners) l(line);
  }

  private emitData(data: string): void {
    if (!data) return;
    for (const l of this.dataListeners) l(data);
  }

  protected emitLimit(event: LimitEvent): void {
    for (const l of this.limitListeners) l(event);
  }

  private async finish(exitCode: number, signal: number | null): Promise<void> {
    if (this.exited) return;
    this.exited = true;
    if (this.wall) clearTimeout(this.wall);
    // Closed before the marker came back (the lab closed the pty): what was held back of it is output.
    this.emitData(this.drain?.leftover() ?? '');
    this.drain?.release();
    this.beforeDrain();
    const exit = await this.settle(exitCode, signal);
    for (const l of this.exitListeners) l(exit);
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

  onExit(listener: Listener<PtyExit>) {
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
}
