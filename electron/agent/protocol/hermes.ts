/**
 * The Hermes/Qwen tool-call convention: optional reasoning (free text, or `<think>...</think>`), then exactly
 * one `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`. Observations come back as `tool` messages
 * (ChatML renders them as `<tool_response>`). A missing closing tag is accepted: servers that stop on
 * `</tool_call>` drop the stop string.
 */
import type { Action, ChatMessage } from '../../domain/trajectory';
import { actionToToolCall, toolCallToAction } from './actions';
import { agentIntro, limitsLine } from './prompt';
import { AGENT_TOOLS } from './tools';
import {
  failedTurn,
  type ActionProtocol,
  type AssistantTurn,
  type ObservationContext,
  type ParsedTurn,
  type PromptContext,
} from './types';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const EXAMPLE = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';

export function toolsBlock(): string {
  return (
    '# Tools\n\nYou may call one function per turn to work on the task.\n\n' +
    'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
    AGENT_TOOLS.map((t) => JSON.stringify(t)).join('\n') +
    '\n</tools>\n\nFor the function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
  );
}

/**
 * Split off `<think>` blocks and find the tool-call bodies (the last one may be unclosed). Exported for
 * `t1lab policy serve`, which turns the same bodies into OpenAI `tool_calls`.
 */
export function scanHermes(text: string): { reasoning: string; bodies: string[] } {
  let rest = text;
  const thoughts: string[] = [];
  rest = rest.replace(/<think>([\s\S]*?)(<\/think>|$)/g, (_m, inner: string) => {
    thoughts.push(inner.trim());
    return '';
  });
  const bodies: string[] = [];
  let outside = '';
  let cursor = 0;
  for (;;) {
    const open = rest.indexOf(OPEN, cursor);
    if (open < 0) {
      outside += rest.slice(cursor);
      break;
    }
    outside += rest.slice(cursor, open);
    const close = rest.indexOf(CLOSE, open + OPEN.length);
    bodies.push(rest.slice(open + OPEN.length, close < 0 ? undefined : close));
    if (close < 0) break;
    cursor = close + CLOSE.length;
  }
  const reasoning = [...thoughts, outside.trim()].filter(Boolean).join('\n\n');
  return { reasoning, bodies };
}

export function parseHermes(text: string): ParsedTurn {
  const { reasoning, bodies } = scanHermes(text);
  const why = reasoning || null;
  if (bodies.length === 0) {
    return failedTurn(
      `No tool call found in your reply. End every turn with exactly one tool call, for example:\n${EXAMPLE}\nCall "submit" when the task is done.`,
      why,
    );
  }
  if (bodies.length > 1)
    return failedTurn(`Your reply has ${bodies.length} tool calls; make exactly one per turn. Nothing was run.`, why);
  const body = (bodies[0] as string).trim();
  let call: unknown;
  try {
    call = JSON.parse(body);
  } catch (error) {
    return failedTurn(
      `The tool call is not valid JSON (${(error as Error).message}). It was:\n${body.slice(0, 500)}\nWrite it as:\n${EXAMPLE}`,
      why,
    );
  }
  if (typeof call !== 'object' || call === null || Array.isArray(call)) {
    return failedTurn(
      `The tool call must be a JSON object with "name" and "arguments", got: ${body.slice(0, 200)}`,
      why,
    );
  }
  const { name, arguments: args } = call as { name?: unknown; arguments?: unknown };
  const result = toolCallToAction(name, args);
  if (!result.ok) return failedTurn(result.error, why);
  return { actions: [result.action], callIds: [null], reasoning: why, error: null, note: null };
}

/**
 * The same three tools and call format in about a tenth of the words, for small local models: a nano
 * checkpoint's 2,048-token window cannot spend 2,000 of them on the tool descriptions.
 */
export function compactHermesPrompt(context: PromptContext): string {
  const minutes = Math.max(1, Math.round(context.timeoutSec / 60));
  return (
    'You solve a task in a Linux shell; the task files are in the working directory. Make one tool call per turn:\n' +
    `${EXAMPLE}\n` +
    'Tools: bash {command, timeout?} runs a command; keys {keys: [...], duration?} sends keystrokes (Enter, C-c, Tab); submit {} ends the episode and checks your work.\n' +
    `Limits: ${context.maxTurns} turns, ${minutes} min.`
  );
}

export function createHermesProtocol(): ActionProtocol {
  return {
    name: 'hermes',
    tools: AGENT_TOOLS,
    systemPrompt(context: PromptContext): string {
      if (context.compact) return compactHermesPrompt(context);
      const parts = [agentIntro(), limitsLine(context)];
      if (!context.toolsInTemplate) parts.push(toolsBlock());
      parts.push(
        'Each turn: think briefly if you need to, then make exactly one tool call. Call "submit" when the task is done.',
      );
      return parts.join('\n\n');
    },
    parse(turn: AssistantTurn): ParsedTurn {
      return parseHermes(turn.text);
    },
    observationMessages(observation: string, context: ObservationContext): ChatMessage[] {
      // A turn that did not parse made no call: its explanation is a plain user message.
      return [{ role: context.parsed.error ? 'user' : 'tool', content: observation }];
    },
    writeAction(action: Action): AssistantTurn {
      const call = actionToToolCall(action);
      return { text: `${OPEN}\n${JSON.stringify(call)}\n${CLOSE}` };
    },
  };
}
