/**
 * The Terminus-2 JSON protocol (Harbor's reference agent): every turn is one JSON object
 * `{analysis, plan, commands: [{keystrokes, duration}], task_complete}`. Keystrokes go to the terminal
 * verbatim (a string that is exactly a key name, like "C-c", is that key); completion must be confirmed by a
 * second `task_complete: true`, as Terminus-2 asks.
 */
import type { Action, ChatMessage } from '../../domain/trajectory';
import { agentIntro, limitsLine } from './prompt';
import { NAMED_KEYS } from '../../../native/pty/keys';
import { DEFAULT_KEYS_DURATION_SEC, MAX_KEYS_DURATION_SEC } from './tools';
import {
  failedTurn,
  type ActionProtocol,
  type AssistantTurn,
  type ObservationContext,
  type ParsedTurn,
  type PromptContext,
} from './types';

const FORMAT = `{
  "analysis": "what the terminal shows and what it means",
  "plan": "what you will do next, and why",
  "commands": [{"keystrokes": "ls -la\\n", "duration": 0.1}],
  "task_complete": false
}`;

export const CONFIRM_COMPLETION =
  'You set "task_complete": true. Are you sure the task is complete? The environment will be checked and you cannot change anything afterwards. ' +
  'If so, answer again with "task_complete": true; otherwise continue working.';

/** The first JSON object in the reply: bare, inside a ```json fence, or between the first `{` and the last `}`. */
function extractJson(text: string): { json: string; extra: boolean } | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) return { json: trimmed, extra: false };
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/.exec(trimmed);
  if (fence?.[1]?.trim().startsWith('{')) return { json: fence[1].trim(), extra: true };
  const first = trimmed.indexOf('{');
  const last = trimmed.lastIndexOf('}');
  if (first < 0 || last <= first) return null;
  return { json: trimmed.slice(first, last + 1), extra: true };
}

export function createTerminusProtocol(): ActionProtocol {
  let completionPending = false;
  return {
    name: 'terminus',
    tools: [],
    systemPrompt(context: PromptContext): string {
      return [
        agentIntro(),
        limitsLine(context),
        `Answer every turn with one JSON object and nothing else:\n${FORMAT}`,
        'keystrokes are sent to the terminal verbatim: end a command with "\\n" to run it. A keystroke string that is exactly a key name ' +
          `(${NAMED_KEYS.join(', ')}) sends that key. duration is how many seconds to wait for output afterwards ` +
          `(default ${DEFAULT_KEYS_DURATION_SEC}, at most ${MAX_KEYS_DURATION_SEC}); keep it short for quick commands and poll again for slow ones. ` +
          'Set "task_complete": true when the task is done; you will be asked to confirm.',
      ].join('\n\n');
    },
    parse(turn: AssistantTurn): ParsedTurn {
      const found = extractJson(turn.text);
      if (!found)
        return failedTurn(`No JSON object found in your reply. Answer with exactly one JSON object:\n${FORMAT}`);
      let value: unknown;
      try {
        value = JSON.parse(found.json);
      } catch (error) {
        return failedTurn(
          `Your reply is not valid JSON (${(error as Error).message}). Answer with exactly one JSON object:\n${FORMAT}`,
        );
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return failedTurn(`Your reply must be a JSON object:\n${FORMAT}`);
      const v = value as Record<string, unknown>;
      const reasoning =
        [v.analysis, v.plan].filter((s): s is string => typeof s === 'string' && s.length > 0).join('\n\n') || null;
      if (!Array.isArray(v.commands))
        return failedTurn('"commands" is missing or not an array (use [] to send nothing).', reasoning);
      if (v.task_complete !== undefined && typeof v.task_complete !== 'boolean')
        return failedTurn('"task_complete" must be true or false.', reasoning);
      const actions: Action[] = [];
      for (const [i, c] of v.commands.entries()) {
        const cmd = c as { keystrokes?: unknown; duration?: unknown };
        if (typeof cmd !== 'object' || cmd === null || typeof cmd.keystrokes !== 'string') {
          return failedTurn(`commands[${i}] needs a string "keystrokes". Nothing was sent.`, reasoning);
        }
        if (cmd.duration !== undefined && (typeof cmd.duration !== 'number' || !(cmd.duration >= 0))) {
          return failedTurn(`commands[${i}].duration must be a number of seconds >= 0. Nothing was sent.`, reasoning);
        }
        const durationSec = Math.min(
          MAX_KEYS_DURATION_SEC,
          (cmd.duration as number | undefined) ?? DEFAULT_KEYS_DURATION_SEC,
        );
        actions.push({ tool: 'keys', keys: [cmd.keystrokes], durationSec });
      }
      let note: string | null = found.extra
        ? 'Note: your reply had text outside the JSON object; answer with the JSON object only.'
        : null;
      if (v.task_complete === true) {
        if (completionPending) actions.push({ tool: 'submit' });
        else note = note ? `${note}\n\n${CONFIRM_COMPLETION}` : CONFIRM_COMPLETION;
        completionPending = !completionPending;
      } else completionPending = false;
      return { actions, callIds: actions.map(() => null), reasoning, error: null, note };
    },
    observationMessages(observation: string, context: ObservationContext): ChatMessage[] {
      return [
        {
          role: 'user',
          content: context.parsed.error
            ? `Your previous reply could not be used: ${observation}`
            : `New Terminal Output:\n\n${observation}`,
        },
      ];
    },
    writeAction(action: Action): AssistantTurn {
      const commands =
        action.tool === 'bash'
          ? [{ keystrokes: `${action.command}\n`, duration: action.timeoutSec ?? DEFAULT_KEYS_DURATION_SEC }]
          : action.tool === 'keys'
            ? action.keys.map((k) => ({ keystrokes: k, duration: action.durationSec ?? DEFAULT_KEYS_DURATION_SEC }))
            : [];
      return {
        text: JSON.stringify({ analysis: '', plan: '', commands, task_complete: action.tool === 'submit' }, null, 2),
      };
    },
  };
}
