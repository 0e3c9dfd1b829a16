/** OpenAI tool calls from Hermes/Qwen `<tool_call>` blocks, through the lab's Hermes scanner. */
import { describe, expect, it } from 'vitest';
import { chatml } from '../../../../electron/agent/chat/chatml';
import { renderPrompt } from '../../../../electron/lab/policy-serve/prompt';
import type { RequestTool } from '../../../../electron/lab/policy-serve/request';
import { parseToolCalls, toolCallStart, toolsSystemBlock } from '../../../../electron/lab/policy-serve/tool-calls';

const BASH: RequestTool = {
  type: 'function',
  function: {
    name: 'bash',
    description: 'run a command',
    parameters: { type: 'object', properties: { command: { type: 'string' } } },
  },
};

describe('tool calls', () => {
  it('takes every well-formed call of an offered tool, and the text around them as content', () => {
    const text =
      'I will look.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>\n<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}</tool_call>';
    expect(parseToolCalls(text, [BASH])).toEqual({
      content: 'I will look.',
      calls: [
        { name: 'bash', arguments: '{"command":"ls"}' },
        { name: 'bash', arguments: '{"command": "pwd"}' },
      ],
    });
  });

  it('accepts a call cut before its closing tag (a stop at </tool_call>)', () => {
    expect(parseToolCalls('<tool_call>{"name": "bash", "arguments": {}}', [BASH]).calls).toEqual([
      { name: 'bash', arguments: '{}' },
    ]);
  });

  it('leaves everything as content when a call is not JSON, names a tool not offered, or no tools were offered', () => {
    for (const [text, tools] of [
      ['<tool_call>{"name": "bash", "argu</tool_call>', [BASH]],
      ['<tool_call>{"name": "rm", "arguments": {}}</tool_call>', [BASH]],
      ['<tool_call>{"name": "bash", "arguments": {}}</tool_call>', []],
    ] as const) {
      expect(parseToolCalls(text, tools)).toEqual({ content: text, calls: [] });
    }
  });

  it('finds where streamed content must stop: the tag, or an end that may become it', () => {
    expect(toolCallStart('abc<tool_call>{')).toBe(3);
    expect(toolCallStart('abc<tool_')).toBe(3);
    expect(toolCallStart('abc')).toBe(-1);
  });

  it('adds the tools block to the system message of a template that does not list tools (ChatML)', () => {
    const withSystem = renderPrompt(
      chatml,
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      [BASH],
    );
    expect(withSystem).toBe(
      `<|im_start|>system\nBe brief.\n\n${toolsSystemBlock([BASH])}<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n`,
    );
    const without = renderPrompt(chatml, [{ role: 'user', content: 'hi' }], [BASH]);
    expect(without.startsWith(`<|im_start|>system\n${toolsSystemBlock([BASH])}<|im_end|>\n`)).toBe(true);
  });

  it('renders a conversation with calls and their answers as the lab renders its own episodes', () => {
    const text = renderPrompt(
      chatml,
      [
        { role: 'user', content: [{ type: 'text', text: 'list' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ],
      [],
    );
    expect(text).toBe(
      '<|im_start|>user\nlist<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\na.txt\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
  });
});
