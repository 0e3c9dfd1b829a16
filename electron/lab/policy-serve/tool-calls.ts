/**
 * Tools for a checkpoint whose chat template does not list them itself (ChatML, the lab's own
 * checkpoints): a system-prompt block in the Hermes/Qwen convention, the one the lab's models are trained
 * on. A completion's `<tool_call>{"name", "arguments"}</tool_call>` blocks are found by the lab's Hermes
 * protocol scanner (the same one that parses an `onnx:` policy's turns) and become OpenAI `tool_calls`.
 */
import { scanHermes } from '../../agent/protocol/hermes';
import type { RequestTool } from './request';

const TOOL_CALL_OPEN = '<tool_call>';
const TOOL_CALL_BLOCK = /<tool_call>[\s\S]*?(?:<\/tool_call>|$)/g;

/** The block Qwen's templates append to the system prompt when tools are given. */
export function toolsSystemBlock(tools: readonly RequestTool[]): string {
  return (
    '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
    'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
    tools.map((t) => JSON.stringify(t)).join('\n') +
    '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
  );
}

export interface ParsedCall {
  name: string;
  /** The arguments as a JSON string (OpenAI's shape). */
  arguments: string;
}

/**
 * The content and tool calls of a completion. Every block must be a JSON object with a string `name` among
 * the offered tools; otherwise nothing is taken as a call and the whole text stays content (as vLLM's
 * Hermes parser does), so a client sees exactly what the model wrote.
 */
export function parseToolCalls(
  text: string,
  offered: readonly RequestTool[],
): { content: string; calls: ParsedCall[] } {
  if (!offered.length || !text.includes(TOOL_CALL_OPEN)) return { content: text, calls: [] };
  const names = new Set(offered.map((t) => t.function.name));
  const calls: ParsedCall[] = [];
  for (const body of scanHermes(text).bodies) {
    let call: unknown;
    try {
      call = JSON.parse(body.trim());
    } catch {
      return { content: text, calls: [] };
    }
    const { name, arguments: args } = (call ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof call !== 'object' || Array.isArray(call) || typeof name !== 'string' || !names.has(name))
      return { content: text, calls: [] };
    calls.push({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
  }
  if (!calls.length) return { content: text, calls: [] };
  return { content: text.replace(TOOL_CALL_BLOCK, '').trim(), calls };
}

/**
 * Where streamed content must stop while tools are offered: at a tool call, or at an end of the text that
 * may become one (for tokenizers in which `<tool_call>` is not a single token); -1 when nowhere.
 */
export function toolCallStart(text: string): number {
  const at = text.indexOf(TOOL_CALL_OPEN);
  if (at >= 0) return at;
  for (let k = Math.min(TOOL_CALL_OPEN.length - 1, text.length); k > 0; k--)
    if (text.endsWith(TOOL_CALL_OPEN.slice(0, k))) return text.length - k;
  return -1;
}
