/**
 * A pty's output read to its end when its process exits, deterministically. Linux can lose the last bytes a
 * process wrote just before it exited: once the slave's last descriptor closes, the master's read may fail
 * with EIO while those bytes are still in the tty's flip buffer (a paused terminal, resumed around the exit,
 * lost its tail in about one run of ten). So the lab holds the slave open itself for the pty's life, and the
 * master never sees it close while the sandbox runs. At the exit a marker is written through that slave: it
 * queues behind everything the process wrote, and when the reader meets it (it is cut from the output) the
 * lab's slave is closed. The master reads EIO only then, with nothing left unread.
 */
import { randomBytes } from 'node:crypto';
import { close, constants, openSync, write } from 'node:fs';
import { MarkerCut } from './marker-cut';

/**
 * An APC string, in capitals and digits only: no terminal shows it, and no output flag (ONLCR, OLCUC) of the
 * slave's termios changes it on the way.
 */
const markerText = (): string => `\x1b_T1LAB-EXIT-${randomBytes(8).toString('hex').toUpperCase()}\x1b\\`;

export class PtyExitDrain {
  private cut: MarkerCut | null = null;

  private constructor(private slave: number | null) {}

  /** Opens the pty's slave (`/dev/pts/N`); null where that cannot be done, and the output is then read as before. */
  static open(ptsName: string | undefined): PtyExitDrain | null {
    if (process.platform !== 'linux' || !ptsName?.startsWith('/dev/pts/')) return null;
    try {
      // Blocking: the marker's write waits in the thread pool while a paused reader leaves no room for it.
      return new PtyExitDrain(openSync(ptsName, constants.O_RDWR | constants.O_NOCTTY));
    } catch {
      return null;
    }
  }

  /** The process has exited: queue the marker behind its output (once). */
  start(): void {
    if (this.cut || this.slave === null) return;
    this.cut = new MarkerCut(markerText());
    const marker = this.cut.marker;
    write(this.slave, marker, (error) => {
      // The master is gone (closed by the lab): there is nothing more to read.
      if (error) this.release();
    });
  }

  /** The output to pass on: unchanged until the exit, then without the marker; the slave is let go after it. */
  filter(data: string): string {
    if (!this.cut) return data;
    const text = this.cut.push(data);
    if (this.cut.found) this.release();
    return text;
  }

  /** What the filter held back when the marker never came (the pty was closed first). */
  leftover(): string {
    return this.cut?.flush() ?? '';
  }

  /** Closes the lab's slave: the master reads EIO once nothing else holds it. */
  release(): void {
    if (this.slave === null) return;
    close(this.slave, () => {});
    this.slave = null;
  }
}
