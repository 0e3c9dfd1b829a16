/**
 * `openai:BASE_URL#MODEL`: any OpenAI-compatible chat-completions server (vLLM, SGLang, llama.cpp server,
 * Ollama, hosted APIs). The API key comes from an environment variable (OPENAI_API_KEY unless told
 * otherwise), never from the command line. Temperature and seed are passed through; usage is accounted and
 * priced when prices are given; 429/5xx/timeouts are retried with backoff.
 */
import { z } from 'zod';
import { LabError } from '../../ipc/common/errors';
import type { ChatMessage, FinishReason } from '../../domain/trajectory';
import { DEFAULT_RETRY, postJson } from './http-retry';
import {
  PolicyError,
  wantsCompactPrompt,
  type Policy,
  type PolicyEpisode,
  type PolicyOptions,
  type PolicyReply,
} from './types';

const Completion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().optional(),
          reasoning_content: z.string().nullable().optional(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().optional(),
                function: z.object({
                  name: z.string(),
                  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
                }),
              }),
            )
            .nullable()
            .optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().optional(),
      completion_tokens: z.number().optional(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullable().optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
});

/** `openai:BASE_URL#MODEL` -> base URL and model. */
export function parseOpenAiSpec(spec: string): { baseUrl: string; model: string } {
  const body = spec.replace(/^openai:/, '');
  const hash = body.lastIndexOf('#');
  if (hash <= 0 || hash === body.length - 1)
    throw new LabError(
      'INVALID_PARAMS',
      `policy '${spec}': write it as openai:BASE_URL#MODEL, e.g. openai:http://127.0.0.1:8000/v1#qwen3-8b`,
    );
  const baseUrl = body.slice(0, hash).replace(/\/+$/, '');
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new LabError('INVALID_PARAMS', `policy '${spec}': '${baseUrl}' is not an http(s) URL`);
  }
  return { baseUrl, model: body.slice(hash + 1) };
}

function wireMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    };
  }
  if (m.role === 'tool') {
    // Text protocols answer without a call id: the server's template sees a user turn, as Qwen's renders it.
    if (!m.toolCallId) return { role: 'user', content: `<tool_response>\n${m.content}\n</tool_response>` };
    return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
  return { role: m.role, content: m.content };
}

function finishReason(raw: string | null | undefined): FinishReason {
  if (raw === 'length') return 'length';
  if (raw === 'tool_calls' || raw === 'function_call') return 'tool_calls';
  return 'stop';
}

/** Prices are USD per million tokens (cached prompt tokens default to the input price); `seed` fixes the seed, else each episode's is used. */
export function createOpenAiPolicy(spec: string, options: PolicyOptions = {}): Policy {
  const { baseUrl, model } = parseOpenAiSpec(spec);
  const env = options.env ?? process.env;
  const keyVar = options.apiKeyEnv ?? 'OPENAI_API_KEY';
  if (options.apiKeyEnv && !env[keyVar])
    throw new LabError('INVALID_PARAMS', `--api-key-env ${keyVar}: that environment variable is not set`);
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const protocol = options.protocol ?? 'tools';
  const url = `${baseUrl}/chat/completions`;

  return {
    id: spec,
    protocol,
    model,
    contextWindow: options.contextWindow ?? null,
    maxCompletionTokens: options.maxTokens ?? 2048,
    // A small window given with --context-window gets the compact prompt, as the same model's `onnx:` policy
    // does (a lab checkpoint behind `t1lab policy serve` is then prompted exactly as its local policy).
    compactPrompt: options.contextWindow !== undefined && wantsCompactPrompt(options.contextWindow),
    async startEpisode(info): Promise<PolicyEpisode> {
      const seed = options.seed ?? info.seed;
      return {
        async turn(request): Promise<PolicyReply> {
          const payload: Record<string, unknown> = { model, messages: request.messages.map(wireMessage), seed };
          if (options.temperature !== undefined) payload.temperature = options.temperature;
          if (options.maxTokens !== undefined) payload.max_tokens = options.maxTokens;
          if (request.tools.length) payload.tools = request.tools;
          const key = env[keyVar];
          const result = await postJson(
            url,
            payload,
            key ? { authorization: `Bearer ${key}` } : {},
            request.signal,
            retry,
          );
          const parsed = Completion.safeParse(result.body);
          if (!parsed.success)
            throw new PolicyError(
              `${url} answered with something that is not a chat completion: ${JSON.stringify(result.body).slice(0, 300)}`,
            );
          const choice = parsed.data.choices[0]!;
          const usage = parsed.data.usage;
          const prompt = usage?.prompt_tokens ?? 0;
          const completion = usage?.completion_tokens ?? 0;
          const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
          const prices = options.prices;
          const costUsd = prices
            ? ((prompt - cached) * prices.inputPerMTok +
                cached * (prices.cachedPerMTok ?? prices.inputPerMTok) +
                completion * prices.outputPerMTok) /
              1e6
            : null;
          const toolCalls = choice.message.tool_calls?.map((c, i) => ({
            id: c.id ?? `call_${request.turn}_${i}`,
            name: c.function.name,
            arguments:
              typeof c.function.arguments === 'string'
                ? c.function.arguments
                : JSON.stringify(c.function.arguments ?? {}),
          }));
          const reasoning = choice.message.reasoning_content;
          const content = choice.message.content ?? '';
          return {
            text: reasoning ? `<think>${reasoning}</think>${content}` : content,
            ...(toolCalls?.length ? { toolCalls } : {}),
            usage: { prompt, completion, cached },
            costUsd,
            finishReason: finishReason(choice.finish_reason),
          };
        },
      };
    },
    async close() {},
  };
}
