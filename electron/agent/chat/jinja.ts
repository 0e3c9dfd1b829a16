/**
 * A checkpoint's own chat template (Hugging Face convention: `chat_template` in tokenizer_config.json, or a
 * `chat_template.jinja` file), rendered with @huggingface/jinja. Messages are passed in the Hugging Face
 * shape (`tool_calls[].function.{name, arguments}`, `tool_call_id`) that such templates expect.
 */
import { Template } from '@huggingface/jinja';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '../../domain/trajectory';
import { LabError } from '../../ipc/common/errors';
import { chatml } from './chatml';
import type { ChatTemplate, RenderOptions } from './template';

export interface JinjaTemplateOptions {
  name?: string;
  /** Values templates read besides the messages: bos_token, eos_token... */
  specialTokens?: Record<string, string>;
  /** What ends an assistant turn; default: eos_token, else `<|im_end|>`. */
  endOfTurn?: string;
}

function hfMessage(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content };
  if (m.toolCalls?.length) {
    out.tool_calls = m.toolCalls.map((c) => {
      let args: unknown = c.arguments;
      try {
        args = JSON.parse(c.arguments);
      } catch {
        // a malformed call is shown as the model wrote it
      }
      return { id: c.id, type: 'function', function: { name: c.name, arguments: args } };
    });
  }
  if (m.toolCallId) out.tool_call_id = m.toolCallId;
  return out;
}

export function jinjaTemplate(source: string, options: JinjaTemplateOptions = {}): ChatTemplate {
  let template: Template;
  try {
    template = new Template(source);
  } catch (error) {
    throw new LabError(
      'INVALID_PARAMS',
      `chat template ${options.name ?? ''}: cannot parse: ${(error as Error).message}`,
    );
  }
  const special = options.specialTokens ?? {};
  return {
    name: options.name ?? 'jinja',
    rendersTools: /\btools\b/.test(source),
    endOfTurn: options.endOfTurn ?? special.eos_token ?? '<|im_end|>',
    render(messages: readonly ChatMessage[], render: RenderOptions): string {
      return template.render({
        ...special,
        messages: messages.map(hfMessage),
        add_generation_prompt: render.addGenerationPrompt,
        tools: render.tools?.length ? render.tools : undefined,
      });
    },
  };
}

/** `tokenizer_config.json`'s special tokens may be strings or `{content: ...}` objects. */
function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string')
    return (value as { content: string }).content;
  return undefined;
}

/**
 * The chat template of a checkpoint folder: `chat_template.jinja`, else `tokenizer_config.json`'s
 * `chat_template` (a string, or a list of named templates of which `default` is used), else ChatML.
 */
export function loadChatTemplate(dir: string): ChatTemplate {
  const configPath = join(dir, 'tokenizer_config.json');
  let config: Record<string, unknown> = {};
  if (existsSync(configPath)) {
    try {
      config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new LabError('INVALID_PARAMS', `${configPath}: not valid JSON: ${(error as Error).message}`);
    }
  }
  const specialTokens: Record<string, string> = {};
  for (const key of ['bos_token', 'eos_token', 'pad_token', 'unk_token']) {
    const text = tokenText(config[key]);
    if (text !== undefined) specialTokens[key] = text;
  }
  const jinjaPath = join(dir, 'chat_template.jinja');
  if (existsSync(jinjaPath)) return jinjaTemplate(readFileSync(jinjaPath, 'utf8'), { name: jinjaPath, specialTokens });
  const raw = config.chat_template;
  if (typeof raw === 'string') return jinjaTemplate(raw, { name: `${configPath}#chat_template`, specialTokens });
  if (Array.isArray(raw)) {
    const named = raw as { name?: string; template?: string }[];
    const chosen = named.find((t) => t.name === 'default') ?? named[0];
    if (chosen?.template)
      return jinjaTemplate(chosen.template, { name: `${configPath}#chat_template.${chosen.name ?? 0}`, specialTokens });
  }
  return chatml;
}
