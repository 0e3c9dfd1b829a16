/**
 * A shell session as the harness and the UI use it: a sandboxed shell on a pty, mirrored by a headless
 * screen, optionally recorded. The harness drives it with `run` and `sendKeys`; the UI streams its bytes.
 */

export type NamedKey = 'Enter' | 'C-c' | 'C-d' | 'C-z' | 'C-l' | 'Tab' | 'Escape' | 'Backspace' | 'Up' | 'Down' | 'Left' | 'Right' | 'Home' | 'End' | 'PageUp' | 'PageDown';

export interface CommandResult {
  /** What the command printed (markers stripped), capped head+tail. */
  output: string;
  /** null when it did not finish before the timeout (it keeps running). */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Chars cut from the middle of the output, 0 when nothing was cut. */
  truncatedChars: number;
}

export interface ShellSession {
  readonly id: string;
  /** Run a command and wait for it to finish (or give up after timeoutMs, leaving it running). */
  run(command: string, options?: { timeoutMs?: number; maxOutputChars?: number }): Promise<CommandResult>;
  /** Send text and named keys verbatim, e.g. ['ls -la', 'Enter'] or ['C-c']. */
  sendKeys(keys: (string | { key: NamedKey })[]): void;
  /** Output since the last read (or since start), capped head+tail. */
  readNew(options?: { maxOutputChars?: number }): { output: string; truncatedChars: number };
  /** The visible screen as text lines. */
  screen(): { lines: string[]; cols: number; rows: number; cursor: { x: number; y: number }; alternate: boolean };
  resize(cols: number, rows: number): void;
  /** True while a full-screen program (alternate screen buffer) runs. */
  readonly alternateScreen: boolean;
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (exit: { exitCode: number | null; limit: string | null }) => void): { dispose(): void };
  /** Kill every process of the session and close the recording. */
  close(): Promise<void>;
}
