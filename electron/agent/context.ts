/**
 * The context budget: before each turn the conversation is measured against the policy's window (minus the
 * room kept for the reply). When it does not fit, the configured strategy applies and the trajectory records
 * it: `drop-oldest` removes the oldest turns (assistant message and its observation together, so tool calls
 * stay answered), keeping the system prompt and the instruction and at least the latest turn, and tells the
 * agent what was removed; `stop` ends the episode. Measuring is exact with a tokenizer and chat template,
 * else an estimate calibrated on the prompt sizes the server reports.
 */
import type { ChatMessage, ContextEvent } from '../domain/trajectory';
import type { ChatTemplate } from './chat/template';
import type { TokenCodec } from './tokens/codec';

export type ContextStrategy = 'drop-oldest' | 'stop';
export const CONTEXT_STRATEGIES: readonly ContextStrategy[] = ['drop-oldest', 'stop'];

export interface ContextMeter {
  measure(messages: readonly ChatMessage[]): number;
  /** What the server said the prompt of `messages` cost (estimating meters learn from it). */
  observe(messages: readonly ChatMessage[], promptTokens: number): void;
}

/** Exact: tokens of the rendered conversation with its generation prompt. */
export function exactMeter(codec: TokenCodec, template: ChatTemplate): ContextMeter {
  return {
    measure: (messages) => codec.encode(template.render(messages, { addGenerationPrompt: true })).length,
    observe() {},
  };
}

/** Per-message overhead of chat formatting, in tokens (role header and end marker). */
const MESSAGE_OVERHEAD = 4;

function chars(messages: readonly ChatMessage[]): number {
  return messages.reduce(
    (n, m) => n + m.content.length + (m.toolCalls ?? []).reduce((k, c) => k + c.name.length + c.arguments.length, 0),
    0,
  );
}

/** An estimate: chars per token starts pessimistic (3) and follows what the server reports. */
export function estimatingMeter(initialCharsPerToken = 3): ContextMeter {
  let charsPerToken = initialCharsPerToken;
  return {
    measure: (messages) => Math.ceil(chars(messages) / charsPerToken) + MESSAGE_OVERHEAD * messages.length,
    observe(messages, promptTokens) {
      const content = promptTokens - MESSAGE_OVERHEAD * messages.length;
      if (content > 50) charsPerToken = Math.max(1, Math.min(8, chars(messages) / content));
    },
  };
}

/** Messages from index 2 on, grouped into turns: an assistant message and what answers it. */
function turnGroups(messages: readonly ChatMessage[]): ChatMessage[][] {
  const groups: ChatMessage[][] = [];
  for (const m of messages.slice(2)) {
    if (m.role === 'assistant' || groups.length === 0) groups.push([m]);
    else groups[groups.length - 1]!.push(m);
  }
  return groups;
}

export function droppedNote(turns: readonly number[]): string {
  const first = turns[0]! + 1;
  const last = turns[turns.length - 1]! + 1;
  const which = first === last ? `turn ${first} was` : `turns ${first}-${last} were`;
  return `\n\n[Note: ${which} removed from this conversation to fit the context window. What they changed in the environment remains.]`;
}

export interface ContextState {
  /** The instruction as first given (the note about dropped turns is appended to it). */
  instruction: string;
  /** Absolute indices of the turns dropped so far, oldest first. */
  dropped: number[];
}

export interface ContextDecision {
  messages: ChatMessage[];
  event: ContextEvent | null;
  /** The conversation cannot fit: the episode ends with `context`. */
  stop: boolean;
}

/**
 * Fit `messages` ([system, instruction, ...turns]) into `budget` tokens. `turn` is the index of the turn
 * about to be asked for; `state` carries what was dropped before (messages passed in are already without it).
 */
export function fitContext(
  messages: ChatMessage[],
  budget: number,
  meter: ContextMeter,
  strategy: ContextStrategy,
  turn: number,
  state: ContextState,
): ContextDecision {
  const before = meter.measure(messages);
  if (before <= budget) return { messages, event: null, stop: false };
  const event = (droppedTurns: number[], after: number): ContextEvent => ({
    turn,
    strategy,
    droppedTurns,
    tokensBefore: before,
    tokensAfter: after,
    budget,
  });
  if (strategy === 'stop') return { messages, event: event([], before), stop: true };
  const [system, instruction] = messages as [ChatMessage, ChatMessage];
  const groups = turnGroups(messages);
  // The turns still present are the most recent ones; their absolute numbers follow the dropped ones.
  const firstPresent = turn - groups.length;
  const dropping: number[] = [];
  let candidate = messages;
  let size = before;
  while (size > budget && groups.length > 1) {
    groups.shift();
    dropping.push(firstPresent + dropping.length);
    const dropped = [...state.dropped, ...dropping];
    candidate = [system, { ...instruction, content: state.instruction + droppedNote(dropped) }, ...groups.flat()];
    size = meter.measure(candidate);
  }
  if (size > budget) return { messages, event: event(dropping, size), stop: true };
  state.dropped.push(...dropping);
  return { messages: candidate, event: event(dropping, size), stop: false };
}
