/**
 * What the agent reads back after acting: the new output (or the screen while a full-screen program runs),
 * the exit code and the duration, cut to a budget keeping head and tail, with a note saying what was cut.
 * Capping is the shell layer's head+tail cut (native/util/head-tail), so the note reads the same everywhere.
 */
import { capHeadTail } from '../../native/util/head-tail';

/** Terminus-2 cuts observations to 10 KB; a sensible default for models with 32k+ contexts. */
export const DEFAULT_OBSERVATION_CHARS = 10_000;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export interface CommandObservation {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Chars the shell session already cut from the middle (its output carries the note). */
  truncatedChars: number;
  timeoutSec: number;
  /** The screen, when a full-screen program took over. */
  screen?: string[];
}

export interface Formatted {
  text: string;
  truncatedChars: number;
}

/** The observation of a `bash` call. */
export function formatCommand(o: CommandObservation, maxChars: number): Formatted {
  const body = o.screen ? `[full-screen program running; current screen:]\n${trimScreen(o.screen).join('\n')}` : o.output;
  const cut = capHeadTail(body, maxChars);
  const truncatedChars = cut.truncatedChars + o.truncatedChars;
  let status: string;
  if (o.timedOut) status = `[still running after ${o.timeoutSec} s; it keeps running: send keys (e.g. C-c) to interact with or stop it]`;
  else status = `[exit code ${o.exitCode ?? 'unknown'} · ${seconds(o.durationMs)}]`;
  const text = `${cut.text}${cut.text.endsWith('\n') || cut.text.length === 0 ? '' : '\n'}${status}`;
  return { text, truncatedChars };
}

/** The observation of a `keys` call: new output, or the screen of a full-screen program. */
export function formatKeys(o: { output: string; screen?: string[]; durationMs: number; truncatedChars: number }, maxChars: number): Formatted {
  const body = o.screen ? `[current screen:]\n${trimScreen(o.screen).join('\n')}` : o.output.length ? o.output : '[no new output]';
  const cut = capHeadTail(body, maxChars);
  return { text: cut.text, truncatedChars: cut.truncatedChars + o.truncatedChars };
}

/** Screens are mostly blank lines at the bottom: drop trailing blanks and trailing spaces. */
export function trimScreen(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}
