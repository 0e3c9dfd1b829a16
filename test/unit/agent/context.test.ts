import { describe, expect, it } from 'vitest';
import {
  droppedNote,
  estimatingMeter,
  fitContext,
  type ContextMeter,
  type ContextState,
} from '../../../electron/agent/context';
import type { ChatMessage } from '../../../electron/domain/trajectory';

/** One token per character: sizes are easy to reason about. */
const charMeter: ContextMeter = { measure: (ms) => ms.reduce((n, m) => n + m.content.length, 0), observe() {} };

const OBSERVATION = 200;
/** Size of a conversation of `turns` turns under `charMeter`. */
const size = (turns: number) => 20 + turns * (20 + OBSERVATION);

function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: 's'.repeat(10) },
    { role: 'user', content: 'i'.repeat(10) },
  ];
  for (let t = 0; t < turns; t++)
    messages.push(
      {
        role: 'assistant',
        content: `a${t}`.padEnd(20, '.'),
        toolCalls: [{ id: `c${t}`, name: 'bash', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: `c${t}`, content: 'o'.repeat(OBSERVATION) },
    );
  return messages;
}

describe('context strategy', () => {
  it('leaves a conversation that fits alone', () => {
    const state: ContextState = { instruction: 'i'.repeat(10), dropped: [] };
    const d = fitContext(conversation(2), 1000, charMeter, 'drop-oldest', 2, state);
    expect(d).toMatchObject({ event: null, stop: false });
  });

  it('drop-oldest removes whole turns, oldest first, keeps system and instruction, and says so', () => {
    const state: ContextState = { instruction: 'i'.repeat(10), dropped: [] };
    const messages = conversation(5);
    const budget = size(4) + droppedNote([0]).length;
    const d = fitContext(messages, budget, charMeter, 'drop-oldest', 5, state);
    expect(d.stop).toBe(false);
    expect(d.event).toMatchObject({
      turn: 5,
      strategy: 'drop-oldest',
      droppedTurns: [0],
      tokensBefore: size(5),
      tokensAfter: budget,
      budget,
    });
    expect(d.messages[0]).toBe(messages[0]);
    expect(d.messages[1]!.content).toContain('[Note: turn 1 was removed');
    expect(d.messages[2]!.content.startsWith('a1')).toBe(true);
    // Every tool call is still answered: pairs are dropped together.
    expect(d.messages.filter((m) => m.role === 'tool')).toHaveLength(4);
    // Later, the numbering continues from what was dropped before.
    const next = [...d.messages, ...conversation(7).slice(12)];
    const d2 = fitContext(next, size(4) + droppedNote([0, 1, 2]).length, charMeter, 'drop-oldest', 7, state);
    expect(d2.event?.droppedTurns).toEqual([1, 2]);
    expect(state.dropped).toEqual([0, 1, 2]);
    expect(d2.messages[1]!.content).toContain('turns 1-3 were removed');
  });

  it('stops when even the latest turn alone does not fit, or when the strategy is stop', () => {
    const state: ContextState = { instruction: 'i'.repeat(10), dropped: [] };
    expect(fitContext(conversation(3), size(1), charMeter, 'drop-oldest', 3, state)).toMatchObject({ stop: true });
    expect(state.dropped).toEqual([]);
    const d = fitContext(conversation(3), size(2), charMeter, 'stop', 3, state);
    expect(d).toMatchObject({ stop: true, event: { strategy: 'stop', droppedTurns: [] } });
  });

  it('the estimating meter learns the chars-per-token ratio from reported prompt sizes', () => {
    const meter = estimatingMeter(3);
    const messages = conversation(20);
    const first = meter.measure(messages);
    meter.observe(messages, Math.round(first / 2));
    expect(meter.measure(messages)).toBeLessThan(first * 0.6);
  });
});
