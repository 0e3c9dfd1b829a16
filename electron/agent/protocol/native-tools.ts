/**
 * Native function calling (OpenAI-compatible servers): tools are sent with the request, the model answers
 * with `tool_calls`, and each call is answered by a `tool` message carrying its id (the API requires every
 * call to be answered, even ones that were refused).
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

export function createNativeToolsProtocol(): ActionProtocol {
  return {
    name: 'tools',
    tools: AGENT_TOOLS,
    systemPrompt(context: PromptContext): string {
      return [
        agentIntro(),
        limitsLine(context),
        'Act through the tools you are given (bash, keys, submit): make exactly one tool call per turn. Call "submit" when the task is done.',
      ].join('\n\n');
    },
    parse(turn: AssistantTurn): ParsedTurn {
      const calls = turn.toolCalls ?? [];
      const reasoning = turn.text.trim() || null;
      if (calls.length === 0)
        return failedTurn(
          'You did not call a tool. Make exactly one tool call per turn (bash, keys or submit).',
          reasoning,
        );
      if (calls.length > 1)
        return failedTurn(
          `You made ${calls.length} tool calls; make exactly one per turn. Nothing was run.`,
          reasoning,
        );
      const call = calls[0]!;
      const result = toolCallToAction(call.name, call.arguments);
      if (!result.ok) return failedTurn(result.error, reasoning);
      return { actions: [result.action], callIds: [call.id], reasoning, error: null, note: null };
    },
    observationMessages(observation: string, context: ObservationContext): ChatMessage[] {
      const calls = context.turn.toolCalls ?? [];
      if (calls.length === 0) return [{ role: 'user', content: observation }];
      return calls.map((c) => ({ role: 'tool' as const, toolCallId: c.id, content: observation }));
    },
    writeAction(action: Action, callId: string): AssistantTurn {
      const call = actionToToolCall(action);
      return { text: '', toolCalls: [{ id: callId, name: call.name, arguments: JSON.stringify(call.arguments) }] };
    },
  };
}
