/**
 * Carrying out one action in the episode's shell and describing what happened. `bash` runs a command to
 * completion (or its timeout, leaving it running); `keys` types and waits. Either way the observation is the
 * new output, or the screen while a full-screen program runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { NamedKey, ShellSession } from '../../../native/pty/types';
import type { Action, Execution } from '../../domain/trajectory';
import { formatCommand, formatKeys } from '../observation';
import { isNamedKey } from '../../../native/pty/keys';
import { DEFAULT_COMMAND_TIMEOUT_SEC, DEFAULT_KEYS_DURATION_SEC } from '../protocol/tools';

export interface ExecuteContext {
  session: ShellSession;
  /** Chars of observation the agent gets per action. */
  observationChars: number;
  /** Milliseconds left before the agent's deadline. */
  remainingMs: number;
  signal: AbortSignal;
  /** Index of the action in its turn. */
  index: number;
}

export interface Executed {
  observation: string;
  execution: Execution;
  /** The action waited until the agent's remaining time ran out: the agent's time is over. */
  reachedDeadline: boolean;
}

/** Stop waiting when the episode is aborted (the lab closes the shell, which kills the command). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function toKeys(keys: readonly string[]): (string | { key: NamedKey })[] {
  return keys.map((k) => (isNamedKey(k) ? { key: k } : k));
}

export async function executeAction(
  action: Exclude<Action, { tool: 'submit' }>,
  ctx: ExecuteContext,
): Promise<Executed> {
  const { session } = ctx;
  if (action.tool === 'bash') {
    if (session.busy) {
      // Typing a new command into a running program would feed it as input: say so instead.
      return {
        observation:
          '[a command is still running, so nothing was run: use keys to interact with it, C-c to stop it, or keys [] with a duration to wait]',
        execution: {
          action: ctx.index,
          exitCode: null,
          timedOut: false,
          durationMs: 0,
          truncatedChars: 0,
          screen: false,
        },
        reachedDeadline: false,
      };
    }
    const requestedSec = action.timeoutSec ?? DEFAULT_COMMAND_TIMEOUT_SEC;
    const boundedByDeadline = ctx.remainingMs / 1000 <= requestedSec;
    const timeoutSec = Math.max(0.001, Math.min(requestedSec, ctx.remainingMs / 1000));
    const result = await untilAborted(
      session.run(action.command, { timeoutMs: Math.ceil(timeoutSec * 1000), maxOutputChars: ctx.observationChars }),
      ctx.signal,
    );
    const leftRunning = result.timedOut || result.waitingForInput === true;
    const screen = leftRunning && session.alternateScreen ? session.screen().lines : undefined;
    const formatted = formatCommand(
      { ...result, timeoutSec: Math.round(timeoutSec * 100) / 100, screen },
      ctx.observationChars,
    );
    return {
      observation: formatted.text,
      execution: {
        action: ctx.index,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        ...(result.waitingForInput ? { waitingForInput: true } : {}),
        durationMs: result.durationMs,
        truncatedChars: formatted.truncatedChars,
        screen: !!screen,
      },
      reachedDeadline: result.timedOut && boundedByDeadline,
    };
  }
  const started = performance.now();
  session.sendKeys(toKeys(action.keys));
  const requestedMs = (action.durationSec ?? DEFAULT_KEYS_DURATION_SEC) * 1000;
  const waitMs = Math.min(requestedMs, ctx.remainingMs);
  if (waitMs > 0) await sleep(waitMs, undefined, { signal: ctx.signal }).catch(() => {});
  const alternate = session.alternateScreen;
  const fresh = session.readNew({ maxOutputChars: ctx.observationChars });
  const durationMs = performance.now() - started;
  const formatted = formatKeys(
    {
      output: fresh.output,
      screen: alternate ? session.screen().lines : undefined,
      durationMs,
      truncatedChars: fresh.truncatedChars,
    },
    ctx.observationChars,
  );
  return {
    observation: formatted.text,
    execution: {
      action: ctx.index,
      exitCode: null,
      timedOut: false,
      durationMs,
      truncatedChars: formatted.truncatedChars,
      screen: alternate,
    },
    reachedDeadline: ctx.remainingMs <= requestedMs && !ctx.signal.aborted,
  };
}
