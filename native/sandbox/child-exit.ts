/**
 * When a spawned process has ended, even if something else still holds its output pipes.
 *
 * Node's 'close' waits for the child's stdio to close as well as for its exit. A process outside the child's
 * tree that holds those pipes keeps them open for ever: bubblewrap's own intermediate process, orphaned
 * while it waits for its parent's go-ahead (an eventfd) because the outer bwrap died in that window, does
 * exactly that. A run waiting on 'close' alone then never ends, whatever its wall limit or abort says
 * (killing the tree stops at the root, which is already reaped); a PPO step waited on such an episode for
 * half an hour. So after the exit the output gets `graceMs` to drain, then `onStuck` runs (kill what is
 * left), the pipes are destroyed, and the exit is reported with `stuck: true`.
 */
import type { ChildProcess } from 'node:child_process';

export interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
  /** The child exited but its pipes stayed open past the grace: someone else held them. */
  stuck: boolean;
}

export function childEnded(child: ChildProcess, graceMs: number, onStuck: () => void): Promise<ChildEnd> {
  return new Promise((resolve) => {
    let grace: NodeJS.Timeout | null = null;
    let done = false;
    const finish = (end: ChildEnd) => {
      if (done) return;
      done = true;
      if (grace) clearTimeout(grace);
      resolve(end);
    };
    child.once('error', (error) => finish({ code: null, signal: null, error, stuck: false }));
    child.once('close', (code, signal) => finish({ code, signal, stuck: false }));
    child.once('exit', (code, signal) => {
      grace = setTimeout(() => {
        onStuck();
        for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
        finish({ code, signal, stuck: true });
      }, graceMs);
    });
  });
}
