/**
 * Chat templates: how a conversation becomes the exact text a model reads. A checkpoint's own Jinja template
 * when it ships one (jinja.ts), else ChatML (chatml.ts). Token-level policies and the TITO ledger depend on
 * the rendering being exact, so both implementations are pure functions of the messages.
 */
import type { ChatMessage } from '../../domain/trajectory';
import type { ToolSpec } from '../protocol/tools';

export interface RenderOptions {
  /** End with the header of a new assistant turn (what a sampler continues from). */
  addGenerationPrompt: boolean;
  /** Tools, for templates that render them themselves (`rendersTools`). */
  tools?: ToolSpec[];
}

export interface ChatTemplate {
  readonly name: string;
  /** The template lists `tools` itself; the protocol then leaves them out of the system prompt. */
  readonly rendersTools: boolean;
  /** Text that ends an assistant turn: a sampler stops there (ChatML: `<|im_end|>`). */
  readonly endOfTurn: string;
  render(messages: readonly ChatMessage[], options: RenderOptions): string;
}

/** A native tool call as text, the way Hermes/Qwen templates write it inside an assistant message. */
export function toolCallText(name: string, args: string): string {
  let parsed: unknown = args;
  try {
    parsed = JSON.parse(args);
  } catch {
    // keep the raw string: the model wrote something that is not JSON, and the transcript must show it
  }
  return `<tool_call>\n${JSON.stringify({ name, arguments: parsed })}\n</tool_call>`;
}
