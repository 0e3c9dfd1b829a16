/**
 * An OpenAI `messages` list as the lab's chat messages, rendered by the checkpoint's own chat template
 * (jinja.ts, or ChatML) with the generation prompt: the same text an `onnx:` policy's episode renders for
 * the same conversation, so the server and the local policy feed the model the same tokens.
 */
import type { ChatMessage } from '../../domain/trajectory';
import type { ChatTemplate } from '../../agent/chat/template';
import type { ToolSpec } from '../../agent/protocol/tools';
import type { RequestMessage, RequestTool } from './request';
import { toolsSystemBlock } from './tool-calls';

function text(content: RequestMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  // Text parts are joined with a newline, as vLLM does.
  return content.map((p) => p.text).join('\n');
}

export function toChatMessages(messages: readonly RequestMessage[]): ChatMessage[] {
  return messages.map((m, i): ChatMessage => {
    const content = text(m.content);
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content };
      case 'user':
        return { role: 'user', content };
      case 'tool':
        return { role: 'tool', content, ...(m.tool_call_id ? { toolCallId: m.tool_call_id } : {}) };
      case 'assistant': {
        const calls = (m.tool_calls ?? []).map((c, j) => ({
          id: c.id ?? `call_${i}_${j}`,
          name: c.function.name,
          arguments:
            typeof c.function.arguments === 'string'
              ? c.function.arguments
              : JSON.stringify(c.function.arguments ?? {}),
        }));
        return { role: 'assistant', content, ...(calls.length ? { toolCalls: calls } : {}) };
      }
    }
  });
}

/**
 * The prompt text. Tools go to a template that lists them itself; otherwise their Hermes block is added
 * to the system message (a new one first when there is none), as Qwen's templates place it.
 */
export function renderPrompt(
  template: ChatTemplate,
  messages: readonly RequestMessage[],
  tools: readonly RequestTool[],
): string {
  const chat = toChatMessages(messages);
  if (!tools.length) return template.render(chat, { addGenerationPrompt: true });
  if (template.rendersTools)
    return template.render(chat, { addGenerationPrompt: true, tools: tools as unknown as ToolSpec[] });
  const block = toolsSystemBlock(tools);
  const first = chat[0];
  const withTools =
    first?.role === 'system'
      ? [{ ...first, content: first.content ? `${first.content}\n\n${block}` : block }, ...chat.slice(1)]
      : [{ role: 'system' as const, content: block }, ...chat];
  return template.render(withTools, { addGenerationPrompt: true });
}
