/**
 * A shell in a container on a pty (`podman run -it`). Exit is reported only after the output has drained
 * and the container has been committed (when asked) and removed, so that whoever waits for the exit can
 * read the saved state at once (the verifier does).
 */
import type * as pty from 'node-pty';
import { processTree } from '../proc';
import { SandboxPty, type PtyExit } from '../sandbox-pty';
import { terminalReader } from '../terminal-reader';

export interface ContainerControl {
  wallSeconds: number;
  kill(): Promise<void>;
  /** Commit (if asked) and remove the container; returns a problem in words, or null. */
  finish(): Promise<string | null>;
  oomKilled(): Promise<boolean>;
  /**
   * The host pid of the container's first process, where the engine runs on this host and says (null
   * otherwise): its processes are then read from the host's /proc like a bubblewrap sandbox's.
   */
  hostPid?(): Promise<number | null>;
}

export class ContainerPty extends SandboxPty {
  private resolveDone!: () => void;
  /** The container's first process on this host: undefined until asked, then a pid or null (not visible). */
  private rootPid: number | null | undefined;
  private rootPidAsked = false;
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

  /** The container's process blocked reading the terminal; null until the engine has said where it runs. */
  terminalReader(): number | null {
    if (this.exited) return null;
    if (!this.rootPidAsked) {
      this.rootPidAsked = true;
      void (this.control.hostPid?.() ?? Promise.resolve(null)).catch(() => null).then((pid) => (this.rootPid = pid));
    }
    return this.rootPid ? terminalReader(processTree(this.rootPid)) : null;
  }

  /** Stop the container (every process in it); the exit follows once it is committed and removed. */
  kill(): void {
    if (this.exited) return;
    void this.control.kill().catch(() => {});
  }
}
