/**
 * A shell session as the harness and the UI use it: a sandboxed shell on a pty, mirrored by a headless
 * screen, optionally recorded. The harness drives it with `run` and `sendKeys`; the UI streams its bytes.
 */

type Letter =
  | 'a'
  | 'b'
  | 'c'
  | 'd'
  | 'e'
  | 'f'
  | 'g'
  | 'h'
  | 'i'
  | 'j'
  | 'k'
  | 'l'
  | 'm'
  | 'n'
  | 'o'
  | 'p'
  | 'q'
  | 'r'
  | 's'
  | 't'
  | 'u'
  | 'v'
  | 'w'
  | 'x'
  | 'y'
  | 'z';

export type NamedKey =
  | 'Enter'
  | 'C-c'
  | 'C-d'
  | 'C-z'
  | 'C-l'
  | 'Tab'
  | 'Escape'
  | 'Backspace'
  | 'Up'
  | 'Down'
  | 'Left'
  | 'Right'
  | 'Home'
  | 'End'
  | 'PageUp'
  | 'PageDown'
  // Additive: any control letter, Meta+char, and the rest of a keyboard.
  | `C-${Letter}`
  | `M-${string}`
  | 'Delete'
  | 'Insert'
  | 'Space'
  | 'F1'
  | 'F2'
  | 'F3'
  | 'F4'
  | 'F5'
  | 'F6'
  | 'F7'
  | 'F8'
  | 'F9'
  | 'F10'
  | 'F11'
  | 'F12';

export interface CommandResult {
  /** What the command printed (markers stripped), capped head+tail. */
  output: string;
  /** null when it did not finish before the timeout (it keeps running). */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Chars cut from the middle of the output, 0 when nothing was cut. */
  truncatedChars: number;
  /** A sandbox limit that fired while it ran (by name), or null (additive). */
  limit?: string | null;
  /** The command was incomplete (bash asked for more input: an unclosed quote, bracket or here-document) and was cancelled. */
  incomplete?: boolean;
  /**
   * The command is waiting for typed input (a process of it is blocked reading the terminal with its
   * output quiet): `run` returned without waiting for the timeout, and the command keeps running.
   */
  waitingForInput?: boolean;
}

export interface ShellSession {
  readonly id: string;
  /**
   * Run a command and wait for it to finish (or give up after timeoutMs, or as soon as it waits for typed
   * input where the backend can tell, leaving it running).
   */
  run(command: string, options?: { timeoutMs?: number; maxOutputChars?: number }): Promise<CommandResult>;
  /** Send text and named keys verbatim, e.g. ['ls -la', 'Enter'] or ['C-c']. */
  sendKeys(keys: (string | { key: NamedKey })[]): void;
  /** Output since the last read (or since start), capped head+tail. */
  readNew(options?: { maxOutputChars?: number }): { output: string; truncatedChars: number };
  /** The visible screen as text lines (as parsed so far; `await flushed()` first for the latest). */
  screen(): { lines: string[]; cols: number; rows: number; cursor: { x: number; y: number }; alternate: boolean };
  resize(cols: number, rows: number): void;
  /** True while a full-screen program (alternate screen buffer) runs. */
  readonly alternateScreen: boolean;
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (exit: { exitCode: number | null; limit: string | null }) => void): { dispose(): void };
  /** Kill every process of the session and close the recording. */
  close(): Promise<void>;
  /**
   * Kill every process of the session and resolve once they are gone, without waiting for the output
   * tail, the screen or the recording (close() finishes those). Additive.
   */
  stop?(): Promise<void>;

  // Additive:
  /** Resolves once the screen has parsed everything received so far. */
  flushed?(): Promise<void>;
  /** Resolves when the shell shows its first prompt (run() waits for it by itself). */
  ready?(): Promise<void>;
  /** A command is running (started and not finished), whoever typed it. */
  readonly busy?: boolean;
  /** Where the asciicast recording is written, or null. */
  readonly recordingPath?: string | null;
  /** Pause / resume reading the pty (flow control); output waits in the kernel meanwhile. */
  pause?(): void;
  resume?(): void;
}
