/** A completion in OpenAI's wire shapes: the whole `chat.completion`, and the chunks of a streamed one. */
import type { Completion, TokenLogprob } from './served-model';

export interface ResponseContext {
  id: string;
  created: number;
  model: string;
}

function usage(c: Completion): Record<string, unknown> {
  return {
    prompt_tokens: c.usage.prompt,
    completion_tokens: c.usage.completion,
    total_tokens: c.usage.prompt + c.usage.completion,
    prompt_tokens_details: { cached_tokens: c.usage.cached },
  };
}

/** The decoder's account of the request, beside OpenAI's fields (clients ignore what they do not know). */
function t1lab(c: Completion): Record<string, unknown> {
  const t = c.timing;
  return {
    queue_ms: t.queueMs,
    prefill_ms: t.prefillMs,
    decode_ms: t.decodeMs,
    steps: t.steps,
    mean_batch: t.meanBatch,
    cached_prompt_tokens: t.cachedPromptTokens,
  };
}

function toolCalls(c: Completion, ctx: ResponseContext) {
  return c.toolCalls.map((call, i) => ({
    id: `call_${ctx.id.slice(-12)}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
}

export function completionBody(c: Completion, ctx: ResponseContext): Record<string, unknown> {
  const calls = toolCalls(c, ctx);
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: calls.length && !c.content ? null : c.content,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        logprobs: c.logprobs ? { content: c.logprobs } : null,
        finish_reason: c.finishReason,
      },
    ],
    usage: usage(c),
    t1lab: t1lab(c),
  };
}

function chunk(ctx: ResponseContext, choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: ctx.id, object: 'chat.completion.chunk', created: ctx.created, model: ctx.model, choices, ...extra };
}

export function roleChunk(ctx: ResponseContext): Record<string, unknown> {
  return chunk(ctx, [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
}

export function deltaChunk(
  ctx: ResponseContext,
  content: string,
  logprobs: TokenLogprob[] | null,
): Record<string, unknown> {
  return chunk(ctx, [
    { index: 0, delta: { content }, logprobs: logprobs ? { content: logprobs } : null, finish_reason: null },
  ]);
}

/** The end of a stream: the tool calls (each whole, in one chunk), the finish reason, and usage when asked. */
export function finalChunks(c: Completion, ctx: ResponseContext, includeUsage: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const calls = toolCalls(c, ctx);
  if (calls.length)
    out.push(
      chunk(ctx, [
        {
          index: 0,
          delta: { tool_calls: calls.map((call, index) => ({ index, ...call })) },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
  out.push(chunk(ctx, [{ index: 0, delta: {}, logprobs: null, finish_reason: c.finishReason }], { t1lab: t1lab(c) }));
  if (includeUsage) out.push(chunk(ctx, [], { usage: usage(c) }));
  return out;
}
