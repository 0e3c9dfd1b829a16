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
  /** bash asked for more input (an unclosed quote, bracket, here-document or loop) and the lab cancelled it. */
  incomplete?: boolean;
  /** The command waits for typed input on the terminal and was left running. */
  waitingForInput?: boolean;
}

export interface Formatted {
  text: string;
  truncatedChars: number;
}

/** The observation of a `bash` call. */
export function formatCommand(o: CommandObservation, maxChars: number): Formatted {
  const body = o.screen
    ? `[full-screen program running; current screen:]\n${trimScreen(o.screen).join('\n')}`
    : o.output;
  const cut = capHeadTail(body, maxChars);
  const truncatedChars = cut.truncatedChars + o.truncatedChars;
  let status: string;
  if (o.waitingForInput)
    status = `[waiting for input on the terminal after ${seconds(o.durationMs)}; it keeps running: type into it with keys (e.g. ["y", "Enter"]) or stop it with C-c]`;
  else if (o.timedOut)
    status = `[still running after ${o.timeoutSec} s; it keeps running: send keys (e.g. C-c) to interact with or stop it]`;
  else if (o.incomplete)
    status = `[incomplete command: bash waited for more input (an unclosed quote, bracket, here-document or loop?); it was cancelled · exit code ${o.exitCode ?? 'unknown'}]`;
  else status = `[exit code ${o.exitCode ?? 'unknown'} · ${seconds(o.durationMs)}]`;
  const text = `${cut.text}${cut.text.endsWith('\n') || cut.text.length === 0 ? '' : '\n'}${status}`;
  return { text, truncatedChars };
}

/** The observation of a `keys` call: new output, or the screen of a full-screen program. */
export function formatKeys(
  o: { output: string; screen?: string[]; durationMs: number; truncatedChars: number },
  maxChars: number,
): Formatted {
  const body = o.screen
    ? `[current screen:]\n${trimScreen(o.screen).join('\n')}`
    : o.output.length
      ? o.output
      : '[no new output]';
  const cut = capHeadTail(body, maxChars);
  return { text: cut.text, truncatedChars: cut.truncatedChars + o.truncatedChars };
}

/** Screens are mostly blank lines at the bottom: drop trailing blanks and trailing spaces. */
export function trimScreen(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/**
 * Chat-control strings a program could print to forge structure in the conversation: ChatML-style special
 * tokens (`<|im_end|>`, `<|eot_id|>`, ...) and the tool-call, tool-response and reasoning tags. Tokenizers
 * and servers recognise them inside message text, so terminal output holding one would end the turn or
 * close the tool response early for the model (and put a real control token in the TITO ledger).
 */
const CONTROL_STRINGS = /<\|[A-Za-z0-9_.-]{1,48}\|>|<\/?(?:tool_call|tool_response|think)>/g;
/** Inserted after the first character of a control string: it reads the same but is no longer the token. */
const BREAK = '\u200b';

/** What the shell printed, with every chat-control string broken so it tokenizes as plain text. */
export function neutralizeControlTokens(text: string): string {
  return text.replace(CONTROL_STRINGS, (match) => `${match[0]}${BREAK}${match.slice(1)}`);
}
