/**
 * What the agent reads back after acting: the new output (or the screen while a full-screen program runs),
 * the exit code and the duration, cut to a budget keeping head and tail, with a note saying what was cut.
 */

/** Terminus-2 cuts observations to 10 KB; a sensible default for models with 32k+ contexts. */
export const DEFAULT_OBSERVATION_CHARS = 10_000;
/** Share of the budget kept from the head; the tail (where errors and prompts are) gets the rest. */
const HEAD_SHARE = 0.4;

export interface Cut {
  text: string;
  /** Chars removed from the middle (0 when the text fit). */
  cutChars: number;
}

/** Keep the head and tail of `text` within `maxChars`, cutting at line breaks when one is near. */
export function cutMiddle(text: string, maxChars: number): Cut {
  if (text.length <= maxChars) return { text, cutChars: 0 };
  const budget = Math.max(0, maxChars);
  let headEnd = Math.floor(budget * HEAD_SHARE);
  let tailStart = text.length - (budget - headEnd);
  // Prefer whole lines when a line break is within an eighth of the budget.
  const slack = Math.floor(budget / 8);
  const nl = text.lastIndexOf('\n', headEnd);
  if (nl >= 0 && headEnd - nl <= slack) headEnd = nl + 1;
  const nl2 = text.indexOf('\n', tailStart);
  if (nl2 >= 0 && nl2 - tailStart <= slack) tailStart = nl2 + 1;
  const cutChars = tailStart - headEnd;
  return { text: `${text.slice(0, headEnd)}${cutNote(cutChars)}${text.slice(tailStart)}`, cutChars };
}

export function cutNote(chars: number): string {
  return `\n[... ${chars.toLocaleString('en-US')} characters cut from the middle of the output ...]\n`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export interface CommandObservation {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Already cut upstream (by the shell session), to be reported. */
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
  const cut = cutMiddle(body, maxChars);
  const truncatedChars = cut.cutChars + o.truncatedChars;
  let status: string;
  if (o.timedOut) status = `[still running after ${o.timeoutSec} s; it keeps running: send keys (e.g. C-c) to interact with or stop it]`;
  else status = `[exit code ${o.exitCode ?? 'unknown'} · ${seconds(o.durationMs)}]`;
  const upstream = o.truncatedChars > 0 && cut.cutChars === 0 ? `\n[${o.truncatedChars.toLocaleString('en-US')} characters of output were cut]` : '';
  const text = `${cut.text}${cut.text.endsWith('\n') || cut.text.length === 0 ? '' : '\n'}${status}${upstream}`;
  return { text, truncatedChars };
}

/** The observation of a `keys` call: new output, or the screen of a full-screen program. */
export function formatKeys(o: { output: string; screen?: string[]; durationMs: number; truncatedChars: number }, maxChars: number): Formatted {
  const body = o.screen ? `[current screen:]\n${trimScreen(o.screen).join('\n')}` : o.output.length ? o.output : '[no new output]';
  const cut = cutMiddle(body, maxChars);
  return { text: cut.text, truncatedChars: cut.cutChars + o.truncatedChars };
}

/** Screens are mostly blank lines at the bottom: drop trailing blanks and trailing spaces. */
export function trimScreen(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}
