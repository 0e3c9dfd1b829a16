/**
 * The body of `POST /v1/chat/completions`, checked field by field: a value the server cannot honour is a
 * 400 that names the field (`param`), never silently ignored. Fields it does not know are ignored, as
 * OpenAI-compatible servers do (clients send `user`, `metadata`, ...). `ignore_eos` and `top_k` are
 * vLLM's extensions, kept with vLLM's meaning.
 */
import { z } from 'zod';
import { ApiError } from './errors';

/** OpenAI's own bounds where it has them (4 stop strings, 20 top log-probs, 128 tools). */
export const REQUEST_LIMITS = { messages: 10_000, stops: 4, topLogprobs: 20, tools: 128 } as const;

const Text = z.string().max(4_000_000);
const TextPart = z.object({ type: z.literal('text'), text: Text });
const Content = z.union([Text, z.array(TextPart).max(10_000)]);

const ToolCallIn = z.object({
  id: z.string().max(200).optional(),
  type: z.literal('function').optional(),
  function: z.object({
    name: z.string().min(1).max(200),
    arguments: z.union([Text, z.record(z.string(), z.unknown())]).optional(),
  }),
});

const Message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: Content.nullable().optional(),
  name: z.string().max(200).optional(),
  tool_calls: z.array(ToolCallIn).max(64).nullable().optional(),
  tool_call_id: z.string().max(200).optional(),
});

const Tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1).max(200),
    description: z.string().max(100_000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

export const ChatCompletionRequest = z.object({
  model: z.string().min(1).max(500),
  messages: z.array(Message).min(1).max(REQUEST_LIMITS.messages),
  tools: z.array(Tool).max(REQUEST_LIMITS.tools).nullable().optional(),
  tool_choice: z.unknown().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(REQUEST_LIMITS.topLogprobs).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  top_k: z.number().int().min(-1).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  seed: z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
  stop: z
    .union([z.string().min(1).max(1000), z.array(z.string().min(1).max(1000)).max(REQUEST_LIMITS.stops)])
    .nullable()
    .optional(),
  n: z.number().int().nullable().optional(),
  presence_penalty: z.number().nullable().optional(),
  frequency_penalty: z.number().nullable().optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  response_format: z.object({ type: z.string() }).nullable().optional(),
  ignore_eos: z.boolean().nullable().optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;
export type RequestMessage = z.infer<typeof Message>;
export type RequestTool = z.infer<typeof Tool>;

/** `messages[2].content` from zod's path ['messages', 2, 'content']. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || 'body';
}

/** What the sampler is asked for, resolved from the request (defaults applied, checks done). */
export interface SamplingRequest {
  temperature: number;
  topP: number;
  topK: number;
  /** Null: the server's default (the lab's reply budget, within the room the prompt leaves). */
  maxTokens: number | null;
  seed: number | undefined;
  stop: string[];
  /** 0 without `logprobs`; the alternatives per position with `top_logprobs`. */
  logprobs: { top: number } | null;
  ignoreEos: boolean;
}

export interface ParsedRequest {
  body: ChatCompletionRequest;
  sampling: SamplingRequest;
  stream: boolean;
  includeUsage: boolean;
  /** Offered tools (none when `tool_choice` is "none"). */
  tools: RequestTool[];
}

/** A seed of any size as the sampler's 32-bit one (OpenAI's seeds are 64-bit). */
function seed32(seed: number): number {
  return ((seed % 2 ** 32) + 2 ** 32) % 2 ** 32;
}

/** Check a request body; throws ApiError(400) naming the first field at fault. */
export function parseChatRequest(raw: unknown): ParsedRequest {
  const parsed = ChatCompletionRequest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fieldName(issue.path);
    throw new ApiError(400, `${field}: ${issue.message}`, field, 'invalid_value');
  }
  const body = parsed.data;
  const bad = (field: string, message: string): never => {
    throw new ApiError(400, `${field}: ${message}`, field, 'invalid_value');
  };
  if ((body.n ?? 1) !== 1)
    bad('n', 'only n = 1 is supported (one choice per request; send requests in parallel instead, they are batched)');
  if ((body.presence_penalty ?? 0) !== 0) bad('presence_penalty', 'penalties are not supported (only 0)');
  if ((body.frequency_penalty ?? 0) !== 0) bad('frequency_penalty', 'penalties are not supported (only 0)');
  if (body.logit_bias && Object.keys(body.logit_bias).length) bad('logit_bias', 'not supported');
  if (body.response_format && body.response_format.type !== 'text')
    bad('response_format.type', `'${body.response_format.type.slice(0, 40)}' is not supported (only text)`);
  if (body.top_logprobs != null && body.top_logprobs > 0 && !body.logprobs) bad('top_logprobs', 'needs logprobs: true');
  if (body.stream_options && !body.stream) bad('stream_options', 'is only allowed with stream: true');
  const choice = body.tool_choice ?? 'auto';
  if (choice !== 'auto' && choice !== 'none')
    bad(
      'tool_choice',
      `only "auto" and "none" are supported (the model is not constrained to call a tool), got ${JSON.stringify(choice).slice(0, 80)}`,
    );
  body.messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (m.role !== 'assistant' && (m.content === null || m.content === undefined))
      bad(`${at}.content`, `a ${m.role} message needs content`);
    if (m.role !== 'assistant' && m.tool_calls?.length)
      bad(`${at}.tool_calls`, 'only assistant messages carry tool calls');
    if (m.role === 'assistant' && (m.content === null || m.content === undefined) && !m.tool_calls?.length)
      bad(`${at}.content`, 'an assistant message needs content or tool_calls');
  });
  const names = new Set<string>();
  (body.tools ?? []).forEach((t, i) => {
    if (names.has(t.function.name)) bad(`tools[${i}].function.name`, `'${t.function.name}' is offered twice`);
    names.add(t.function.name);
  });
  const topK = body.top_k ?? 0;
  return {
    body,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    tools: choice === 'none' ? [] : (body.tools ?? []),
    sampling: {
      temperature: body.temperature ?? 1,
      topP: body.top_p ?? 1,
      topK: topK < 0 ? 0 : topK,
      maxTokens: body.max_completion_tokens ?? body.max_tokens ?? null,
      seed: body.seed == null ? undefined : seed32(body.seed),
      stop: body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop,
      logprobs: body.logprobs ? { top: body.top_logprobs ?? 0 } : null,
      ignoreEos: body.ignore_eos === true,
    },
  };
}
