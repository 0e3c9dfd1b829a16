import { describe, expect, it } from 'vitest';
import { createProtocol } from '../../../electron/agent/protocol';
import { CONFIRM_COMPLETION } from '../../../electron/agent/protocol/terminus';
import type { Action } from '../../../electron/domain/trajectory';

const prompt = { maxTurns: 300, timeoutSec: 900, toolsInTemplate: false };

describe('Hermes/Qwen protocol', () => {
  const hermes = createProtocol('hermes');

  it('parses one tool call after reasoning and <think>', () => {
    const turn = hermes.parse({
      text: '<think>look first</think>I will list.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la", "timeout": 5}}\n</tool_call>',
    });
    expect(turn.error).toBeNull();
    expect(turn.actions).toEqual([{ tool: 'bash', command: 'ls -la', timeoutSec: 5 }]);
    expect(turn.reasoning).toBe('look first\n\nI will list.');
  });

  it('accepts a call whose closing tag was eaten by a stop sequence, and arguments given as a JSON string', () => {
    const turn = hermes.parse({
      text: '<tool_call>{"name": "keys", "arguments": "{\\"keys\\": [\\"q\\"], \\"duration\\": 0.5}"}',
    });
    expect(turn.actions).toEqual([{ tool: 'keys', keys: ['q'], durationSec: 0.5 }]);
  });

  it.each([
    ['no call at all', 'I think I am done.', /No tool call found/],
    [
      'two calls',
      '<tool_call>{"name":"submit","arguments":{}}</tool_call><tool_call>{"name":"submit","arguments":{}}</tool_call>',
      /2 tool calls; make exactly one/,
    ],
    ['broken JSON', '<tool_call>{"name": "bash", "arguments": {"command": "ls"</tool_call>', /not valid JSON/],
    [
      'unknown tool',
      '<tool_call>{"name": "python", "arguments": {}}</tool_call>',
      /Unknown tool "python". Tools: bash, keys, submit/,
    ],
    [
      'bash without command',
      '<tool_call>{"name": "bash", "arguments": {}}</tool_call>',
      /bash needs a non-empty string "command"/,
    ],
    ['keys not a list', '<tool_call>{"name": "keys", "arguments": {"keys": 3}}</tool_call>', /keys needs "keys"/],
    [
      'negative timeout',
      '<tool_call>{"name": "bash", "arguments": {"command": "ls", "timeout": -1}}</tool_call>',
      /positive number of seconds/,
    ],
  ])('explains a turn that does not parse: %s', (_name, text, message) => {
    const turn = hermes.parse({ text });
    expect(turn.actions).toEqual([]);
    expect(turn.error).toMatch(message);
    // The explanation goes back as a plain user message (there was no call to answer).
    expect(hermes.observationMessages(turn.error!, { parsed: turn, turn: { text } })[0]?.role).toBe('user');
  });

  it('lists the tools in its system prompt unless the chat template does', () => {
    expect(hermes.systemPrompt(prompt)).toContain('<tools>');
    expect(hermes.systemPrompt(prompt)).toContain('"name":"bash"');
    expect(hermes.systemPrompt({ ...prompt, toolsInTemplate: true })).not.toContain('<tools>');
    expect(hermes.systemPrompt(prompt)).toContain('at most 300 turns and 15 minutes');
  });

  it('writes actions that it parses back to the same actions', () => {
    const actions: Action[] = [
      { tool: 'bash', command: 'echo "a\\nb" | wc -l' },
      { tool: 'keys', keys: ['C-c'], durationSec: 1 },
      { tool: 'submit' },
    ];
    for (const a of actions) expect(hermes.parse(hermes.writeAction(a, 'c1')).actions).toEqual([a]);
  });
});

describe('Terminus-2 protocol', () => {
  it('turns commands into keystrokes with durations, and asks to confirm completion', () => {
    const terminus = createProtocol('terminus');
    const reply = JSON.stringify({
      analysis: 'empty dir',
      plan: 'make file',
      commands: [{ keystrokes: 'touch a\n', duration: 0.1 }, { keystrokes: 'C-c' }],
      task_complete: true,
    });
    const first = terminus.parse({ text: reply });
    expect(first.error).toBeNull();
    expect(first.actions).toEqual([
      { tool: 'keys', keys: ['touch a\n'], durationSec: 0.1 },
      { tool: 'keys', keys: ['C-c'], durationSec: 1 },
    ]);
    expect(first.note).toBe(CONFIRM_COMPLETION);
    expect(first.reasoning).toBe('empty dir\n\nmake file');
    const second = terminus.parse({
      text: JSON.stringify({ analysis: '', plan: '', commands: [], task_complete: true }),
    });
    expect(second.actions).toEqual([{ tool: 'submit' }]);
  });

  it('a completion not confirmed in the next turn must be asked again', () => {
    const terminus = createProtocol('terminus');
    const done = JSON.stringify({ commands: [], task_complete: true });
    terminus.parse({ text: done });
    terminus.parse({ text: JSON.stringify({ commands: [], task_complete: false }) });
    expect(terminus.parse({ text: done }).actions).toEqual([]);
  });

  it('finds JSON inside a fence, warns about extra text, explains broken replies', () => {
    const terminus = createProtocol('terminus');
    const fenced = terminus.parse({ text: 'Sure!\n```json\n{"commands": [{"keystrokes": "ls\\n"}]}\n```' });
    expect(fenced.actions).toHaveLength(1);
    expect(fenced.note).toMatch(/text outside the JSON/);
    expect(terminus.parse({ text: 'no json here' }).error).toMatch(/No JSON object found/);
    expect(terminus.parse({ text: '{"commands": [{"keystrokes": 1}]}' }).error).toMatch(
      /commands\[0\] needs a string "keystrokes"/,
    );
    expect(terminus.parse({ text: '{"commands": "ls"}' }).error).toMatch(/"commands" is missing or not an array/);
    expect(terminus.parse({ text: '{"commands": [], "task_complete": "yes"}' }).error).toMatch(/true or false/);
  });
});

describe('native tools protocol', () => {
  const tools = createProtocol('tools');

  it('takes exactly one native call and answers every call id', () => {
    const ok = tools.parse({
      text: 'listing',
      toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }],
    });
    expect(ok.actions).toEqual([{ tool: 'bash', command: 'ls' }]);
    expect(ok.callIds).toEqual(['call_1']);
    const two = {
      text: '',
      toolCalls: [
        { id: 'a', name: 'submit', arguments: '{}' },
        { id: 'b', name: 'submit', arguments: '{}' },
      ],
    };
    const parsed = tools.parse(two);
    expect(parsed.error).toMatch(/2 tool calls/);
    expect(tools.observationMessages(parsed.error!, { parsed, turn: two }).map((m) => [m.role, m.toolCallId])).toEqual([
      ['tool', 'a'],
      ['tool', 'b'],
    ]);
    expect(tools.parse({ text: 'just talking' }).error).toMatch(/did not call a tool/);
    expect(tools.parse({ text: '', toolCalls: [{ id: 'x', name: 'bash', arguments: '{"command": ' }] }).error).toMatch(
      /not valid JSON/,
    );
  });
});
