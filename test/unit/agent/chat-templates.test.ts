import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chatml } from '../../../electron/agent/chat/chatml';
import { jinjaTemplate, loadChatTemplate } from '../../../electron/agent/chat/jinja';
import { AGENT_TOOLS } from '../../../electron/agent/protocol/tools';
import type { ChatMessage } from '../../../electron/domain/trajectory';
import { makeTempDir } from '../../helpers/tmp';

/** A Qwen2.5-style template: tools in the system turn, tool calls as <tool_call>, tool results as <tool_response>. */
const QWEN_LIKE = `{%- if tools %}{{- '<|im_start|>system\\n' + messages[0].content + '\\n\\n# Tools\\n<tools>' }}{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}{{- '\\n</tools><|im_end|>\\n' }}{%- else %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}
{%- for message in messages[1:] %}
{%- if message.role == 'user' %}{{- '<|im_start|>user\\n' + message.content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}{{- '<|im_start|>assistant\\n' + message.content }}{%- if message.tool_calls %}{%- for tc in message.tool_calls %}{{- '\\n<tool_call>\\n{"name": "' + tc.function.name + '", "arguments": ' + (tc.function.arguments | tojson) + '}\\n</tool_call>' }}{%- endfor %}{%- endif %}{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}{{- '<|im_start|>user\\n<tool_response>\\n' + message.content + '\\n</tool_response><|im_end|>\\n' }}
{%- endif %}{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}`;

const conversation: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'do it' },
  { role: 'assistant', content: 'ok', toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"ls"}' }] },
  { role: 'tool', toolCallId: 'c1', content: 'a.txt' },
];

describe('chat templates', () => {
  const tmp = makeTempDir();
  afterAll(() => tmp.remove());

  it('ChatML renders roles, tool calls and tool results, with a generation prompt', () => {
    expect(chatml.render(conversation, { addGenerationPrompt: true })).toBe(
      '<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\ndo it<|im_end|>\n' +
        '<|im_start|>assistant\nok\n<tool_call>\n{"name":"bash","arguments":{"command":"ls"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\na.txt\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
    expect(chatml.render(conversation.slice(0, 2), { addGenerationPrompt: false }).endsWith('do it<|im_end|>\n')).toBe(
      true,
    );
  });

  it("renders a checkpoint's own Jinja template, tools included", () => {
    const t = jinjaTemplate(QWEN_LIKE);
    expect(t.rendersTools).toBe(true);
    const text = t.render(conversation, { addGenerationPrompt: true, tools: AGENT_TOOLS });
    expect(text).toContain('# Tools\n<tools>\n{"type": "function"');
    expect(text).toContain('<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call><|im_end|>');
    expect(text).toContain('<tool_response>\na.txt\n</tool_response>');
    expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('loads a template from tokenizer_config.json or chat_template.jinja, else ChatML', () => {
    const dir = tmp.path;
    expect(loadChatTemplate(dir)).toBe(chatml);
    writeFileSync(
      join(dir, 'tokenizer_config.json'),
      JSON.stringify({ chat_template: QWEN_LIKE, eos_token: { content: '<|im_end|>' } }),
    );
    const fromConfig = loadChatTemplate(dir);
    expect(fromConfig.name).toMatch(/tokenizer_config.json#chat_template$/);
    expect(fromConfig.endOfTurn).toBe('<|im_end|>');
    writeFileSync(join(dir, 'chat_template.jinja'), '{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}');
    expect(loadChatTemplate(dir).render(conversation.slice(0, 2), { addGenerationPrompt: false })).toBe(
      '[system]sys[user]do it',
    );
    writeFileSync(join(dir, 'chat_template.jinja'), '{% for m in messages %}');
    expect(() => loadChatTemplate(dir)).toThrow(/cannot parse/);
  });
});
