/** Turning a tool call (a name and JSON arguments) into an `Action`, with errors the agent can act on. */
import type { Action } from '../../domain/trajectory';
import { NAMED_KEYS } from '../../../native/pty/keys';
import { AGENT_TOOLS, DEFAULT_KEYS_DURATION_SEC, MAX_KEYS_DURATION_SEC } from './tools';

export type ActionResult = { ok: true; action: Action } | { ok: false; error: string };

const TOOL_NAMES = AGENT_TOOLS.map((t) => t.function.name).join(', ');

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `args` may be an object or a JSON string of one (native calls carry strings). */
export function toolCallToAction(name: unknown, args: unknown): ActionResult {
  if (typeof name !== 'string' || !name)
    return { ok: false, error: `The tool call has no "name". Tools: ${TOOL_NAMES}.` };
  let a: unknown = args ?? {};
  if (typeof a === 'string') {
    const text = a;
    if (text.trim() === '') a = {};
    else {
      try {
        a = JSON.parse(text);
      } catch (error) {
        return {
          ok: false,
          error: `The arguments of "${name}" are not valid JSON (${(error as Error).message}): ${text.slice(0, 200)}`,
        };
      }
    }
  }
  if (!isObject(a))
    return {
      ok: false,
      error: `The arguments of "${name}" must be a JSON object, got ${JSON.stringify(a)?.slice(0, 200)}.`,
    };
  switch (name) {
    case 'bash': {
      if (typeof a.command !== 'string' || a.command.trim() === '') {
        return {
          ok: false,
          error: 'bash needs a non-empty string "command", e.g. {"name": "bash", "arguments": {"command": "ls -la"}}.',
        };
      }
      if (a.timeout !== undefined && (typeof a.timeout !== 'number' || !(a.timeout > 0))) {
        return {
          ok: false,
          error: `bash "timeout" must be a positive number of seconds, got ${JSON.stringify(a.timeout)}.`,
        };
      }
      return {
        ok: true,
        action: {
          tool: 'bash',
          command: a.command,
          ...(a.timeout !== undefined ? { timeoutSec: a.timeout as number } : {}),
        },
      };
    }
    case 'keys': {
      const keys = typeof a.keys === 'string' ? [a.keys] : a.keys;
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
        return {
          ok: false,
          error: `keys needs "keys": a non-empty array of strings (text, or named keys: ${NAMED_KEYS.join(', ')}), e.g. {"keys": ["C-c"]}.`,
        };
      }
      if (a.duration !== undefined && (typeof a.duration !== 'number' || !(a.duration >= 0))) {
        return {
          ok: false,
          error: `keys "duration" must be a number of seconds >= 0, got ${JSON.stringify(a.duration)}.`,
        };
      }
      const duration = Math.min(MAX_KEYS_DURATION_SEC, (a.duration as number | undefined) ?? DEFAULT_KEYS_DURATION_SEC);
      return { ok: true, action: { tool: 'keys', keys: keys as string[], durationSec: duration } };
    }
    case 'submit':
      return { ok: true, action: { tool: 'submit' } };
    default:
      return { ok: false, error: `Unknown tool "${name}". Tools: ${TOOL_NAMES}.` };
  }
}

/** An action as a tool call's name and arguments (the inverse of `toolCallToAction`). */
export function actionToToolCall(action: Action): { name: string; arguments: Record<string, unknown> } {
  switch (action.tool) {
    case 'bash':
      return {
        name: 'bash',
        arguments: {
          command: action.command,
          ...(action.timeoutSec !== undefined ? { timeout: action.timeoutSec } : {}),
        },
      };
    case 'keys':
      return {
        name: 'keys',
        arguments: { keys: action.keys, ...(action.durationSec !== undefined ? { duration: action.durationSec } : {}) },
      };
    case 'submit':
      return { name: 'submit', arguments: {} };
  }
}
