/** Request checks of `t1lab policy serve`: defaults, and a 400 that names the field at fault. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../electron/lab/policy-serve/errors';
import { parseChatRequest } from '../../../../electron/lab/policy-serve/request';

const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

function fault(body: unknown): { status: number; param: string | null; message: string } {
  try {
    parseChatRequest(body);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('parseChatRequest', () => {
  it("applies OpenAI's defaults and maps the sampling fields", () => {
    const r = parseChatRequest({
      ...base,
      user: 'ignored',
      stop: 'END',
      seed: -1,
      logprobs: true,
      top_logprobs: 3,
      max_completion_tokens: 7,
    });
    expect(r.stream).toBe(false);
    expect(r.sampling).toEqual({
      temperature: 1,
      topP: 1,
      topK: 0,
      maxTokens: 7,
      seed: 2 ** 32 - 1,
      stop: ['END'],
      logprobs: { top: 3 },
      ignoreEos: false,
    });
  });

  it('offers no tools with tool_choice "none"', () => {
    expect(
      parseChatRequest({ ...base, tool_choice: 'none', tools: [{ type: 'function', function: { name: 'f' } }] }).tools,
    ).toEqual([]);
  });

  it.each([
    [{ ...base, temperature: 5 }, 'temperature'],
    [{ ...base, messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
    [{ ...base, messages: [{ role: 'user' }] }, 'messages[0].content'],
    [{ ...base, messages: [] }, 'messages'],
    [{ messages: base.messages }, 'model'],
    [{ ...base, n: 2 }, 'n'],
    [{ ...base, top_logprobs: 2 }, 'top_logprobs'],
    [{ ...base, tool_choice: 'required' }, 'tool_choice'],
    [{ ...base, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    [{ ...base, max_tokens: 0 }, 'max_tokens'],
    [
      {
        ...base,
        tools: [
          { type: 'function', function: { name: 'f' } },
          { type: 'function', function: { name: 'f' } },
        ],
      },
      'tools[1].function.name',
    ],
    [{ ...base, response_format: { type: 'json_object' } }, 'response_format.type'],
  ])('%j is a 400 naming %s', (body, param) => {
    const f = fault(body);
    expect(f.status).toBe(400);
    expect(f.param).toBe(param);
    expect(f.message.startsWith(`${param}:`)).toBe(true);
  });
});
