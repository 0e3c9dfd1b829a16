/**
 * An action protocol: how the agent is told about its tools, how its turns are parsed into actions, and how
 * observations go back into the conversation. One per policy (chosen per policy), a fresh instance per episode
 * (Terminus-2 keeps a little state: the pending completion it asks to confirm).
 */
import type { Action, ChatMessage, ProtocolName, ToolCall } from '../../domain/trajectory';
import type { ToolSpec } from './tools';

export interface PromptContext {
  maxTurns: number;
  /** The agent's time budget for the whole episode. */
  timeoutSec: number;
  /** The chat template lists tools itself (from `tools`): leave them out of the system prompt. */
  toolsInTemplate: boolean;
  /** A short prompt (the same tools, fewer words) for small models whose window must hold the task. */
  compact?: boolean;
}

export interface AssistantTurn {
  text: string;
  toolCalls?: ToolCall[];
}

export interface ParsedTurn {
  actions: Action[];
  /** Tool-call ids aligned with `actions` (native calls), null where the protocol has none. */
  callIds: (string | null)[];
  reasoning: string | null;
  /** The turn did not parse: this message is the observation, nothing runs. */
  error: string | null;
  /** Said to the agent after the observation (e.g. Terminus-2's request to confirm completion); the loop appends it. */
  note: string | null;
}

export interface ObservationContext {
  parsed: ParsedTurn;
  /** The assistant turn (its native tool calls must each be answered). */
  turn: AssistantTurn;
}

export interface ActionProtocol {
  readonly name: ProtocolName;
  /** Tools sent natively (the `tools` protocol) or handed to a template that renders them. */
  readonly tools: ToolSpec[];
  systemPrompt(context: PromptContext): string;
  parse(turn: AssistantTurn): ParsedTurn;
  /** The messages that carry an observation (with any note already appended) back to the agent. */
  observationMessages(observation: string, context: ObservationContext): ChatMessage[];
  /** An action written as this protocol's assistant turn (the oracle and scripted policies use it). */
  writeAction(action: Action, callId: string): AssistantTurn;
}

export function failedTurn(error: string, reasoning: string | null = null): ParsedTurn {
  return { actions: [], callIds: [], reasoning, error, note: null };
}
