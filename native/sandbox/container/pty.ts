/**
 * A shell in a container on a pty (`podman run -it`). Exit is reported only after the output has drained
 * and the container has been committed (when asked) and removed, so that whoever waits for the exit can
 * read the saved state at once (the verifier does).
 */
import type * as pty from 'node-pty';
import { SandboxPty, type PtyExit } from '../sandbox-pty';

export interface ContainerControl {
  wallSeconds: number;
  kill(): Promise<void>;
  /** Commit (if asked) and remove the container; returns a problem in words, or null. */
  finish(): Promise<string | null>;
  oomKilled(): Promise<boolean>;
}

export class ContainerPty extends SandboxPty {
  private resolveDone!: () => void;
  /** Resolves once the container is committed (when asked) and removed. */
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(
    term: pty.IPty,
    private readonly control: ContainerControl,
  ) {
    super(term, {
      seconds: control.wallSeconds,
      notice: `the ${control.wallSeconds} s wall-clock limit was reached: the container is stopped`,
    });
  }

  protected async settle(exitCode: number, signal: number | null): Promise<PtyExit> {
    if (!this.stoppedBy && (await this.control.oomKilled().catch(() => false))) {
      this.stoppedBy = 'memoryMb';
      this.emitLimit({ limit: 'memoryMb', message: 'the container ran out of memory', killed: [] });
    }
    const problem = await this.control.finish().catch((e: Error) => e.message);
    if (problem) this.notice(problem);
    let sig = signal || null;
    if (exitCode > 128 && exitCode < 160) sig = exitCode - 128;
    this.resolveDone();
    return { exitCode, signal: sig, limit: this.stoppedBy };
  }

  /** Stop the container (every process in it); the exit follows once it is committed and removed. */
  kill(): void {
    if (this.exited) return;
    void this.control.kill().catch(() => {});
  }
}
