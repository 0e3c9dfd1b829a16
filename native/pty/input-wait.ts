/**
 * Telling a command that waits for typed input from one that is busy: while a command runs, a tick asks
 * the sandbox which of its processes is blocked reading the terminal. A command whose output has been
 * quiet for QUIET_MS and which reads the terminal on two ticks in a row, with no output in between, is
 * waiting for input. `run` then returns at once, the command left running, as a timeout would: the
 * caller can type into it or stop it, where it would otherwise wait out its whole timeout.
 *
 * Two sightings with nothing printed between them, not one: the shell reads the terminal again as soon
 * as a command ends, a moment before its end marker reaches this process.
 */

/** How often a running command is checked. */
export const INPUT_WAIT_TICK_MS = 250;
/** Output quiet this long before a reader counts: a program's prompt is printed before its read. */
export const INPUT_WAIT_QUIET_MS = 1_000;

export interface InputWaitWatch {
  /** The sandbox process blocked reading the terminal now, or null. */
  reader: () => number | null;
  /** performance.now() of the last output the terminal sent. */
  lastOutputAt: () => number;
  /** Whether the command has started (its start marker came back) and may be judged. */
  judging: () => boolean;
  /** Called once, when the command is found waiting; the watch stops itself. */
  onWaiting: () => void;
}

/** Start watching; returns a function that stops the watch. */
export function watchInputWait(watch: InputWaitWatch): () => void {
  let sightedAt: number | null = null;
  const timer = setInterval(() => {
    const now = performance.now();
    const quietSince = watch.lastOutputAt();
    if (!watch.judging() || now - quietSince < INPUT_WAIT_QUIET_MS || watch.reader() === null) {
      sightedAt = null;
      return;
    }
    if (sightedAt === null || sightedAt < quietSince) {
      sightedAt = now;
      return;
    }
    clearInterval(timer);
    watch.onWaiting();
  }, INPUT_WAIT_TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
