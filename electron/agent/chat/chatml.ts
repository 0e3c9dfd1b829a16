/**
 * ChatML (`<|im_start|>role\n...<|im_end|>\n`), the default template. Tool results are rendered the way
 * Qwen's templates do: a user turn holding `<tool_response>...</tool_response>`; native tool calls become
 * `<tool_call>` blocks in the assistant text. Tools themselves are listed by the protocol's system prompt.
 */
import type { ChatMessage } from '../../domain/trajectory';
import { toolCallText, type ChatTemplate, type RenderOptions } from './template';

export const IM_START = '<|im_start|>';
export const IM_END = '<|im_end|>';

function block(role: string, content: string): string {
  return `${IM_START}${role}\n${content}${IM_END}\n`;
}

function assistantContent(m: ChatMessage): string {
  const calls = (m.toolCalls ?? []).map((c) => toolCallText(c.name, c.arguments));
  return [m.content, ...calls].filter((part) => part.length > 0).join('\n');
}

export const chatml: ChatTemplate = {
  name: 'chatml',
  rendersTools: false,
  endOfTurn: IM_END,
  render(messages: readonly ChatMessage[], options: RenderOptions): string {
    let out = '';
    for (const m of messages) {
      if (m.role === 'tool') out += block('user', `<tool_response>\n${m.content}\n</tool_response>`);
      else if (m.role === 'assistant') out += block('assistant', assistantContent(m));
      else out += block(m.role, m.content);
    }
    if (options.addGenerationPrompt) out += `${IM_START}assistant\n`;
    return out;
  },
};
