/** The streamed text of `t1lab policy serve`: stop strings cut and held back, split UTF-8 held, tool calls held. */
import { describe, expect, it } from 'vitest';
import { TextStream } from '../../../../electron/lab/policy-serve/text-stream';
import { toolCallStart } from '../../../../electron/lab/policy-serve/tool-calls';

// A toy vocabulary: each id is a piece of text; 99 ends the turn; 7 and 8 are the two halves of 'é' (bytes C3 A9).
const PIECES: Record<number, string> = {
  1: 'Hel',
  2: 'lo',
  3: ' wor',
  4: 'ld',
  5: ' EN',
  6: 'D!',
  9: '<tool_call>',
  10: '{"name": "bash"}',
  11: '</tool_call>',
};
function decode(ids: readonly number[]): string {
  let out = '';
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id === 7) out += ids[i + 1] === 8 ? 'é' : '\uDCC3';
    else if (id === 8) out += ids[i - 1] === 7 ? '' : '\uDCA9';
    else out += PIECES[id] ?? '';
  }
  return out;
}

const stream = (stops: string[] = [], holdFrom?: (t: string) => number) =>
  new TextStream({ decode, stopTokenIds: new Set([99]), stops, ...(holdFrom ? { holdFrom } : {}) });

describe('TextStream', () => {
  it('sends each token as it comes, without the end-of-turn token', () => {
    const s = stream();
    expect([1, 2, 3, 4, 99].map((id) => s.push(id))).toEqual(['Hel', 'lo', ' wor', 'ld', '']);
    expect(s.finish()).toEqual({ delta: '', text: 'Hello world' });
  });

  it('holds a character split across tokens until it is whole', () => {
    const s = stream();
    expect([1, 7, 8].map((id) => s.push(id))).toEqual(['Hel', '', 'é']);
  });

  it('holds what may become a stop string, and cuts at the stop string', () => {
    const s = stream([' END!']);
    expect([1, 2, 5, 6, 3].map((id) => s.push(id))).toEqual(['Hel', 'lo', '', '', '']);
    expect(s.finish()).toEqual({ delta: '', text: 'Hello' });
  });

  it('sends held text that did not become a stop string', () => {
    const s = stream([' ENDING']);
    expect([1, 5, 3].map((id) => s.push(id))).toEqual(['Hel', '', ' EN wor']);
  });

  it('holds a tool call, from its tag on, for the end', () => {
    const s = stream([], toolCallStart);
    expect([1, 9, 10, 11].map((id) => s.push(id))).toEqual(['Hel', '', '', '']);
    expect(s.finish()).toEqual({
      delta: '<tool_call>{"name": "bash"}</tool_call>',
      text: 'Hel<tool_call>{"name": "bash"}</tool_call>',
    });
  });
});
