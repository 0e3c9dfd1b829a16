/**
 * One checkpoint served as an OpenAI model: its tokenizer and chat template here, its onnxruntime session
 * in the policy worker (never in this process: session.run blocks the event loop that serves HTTP). Every
 * request is one `policy.generate`; the worker's BatchDecoder decodes concurrent requests together, one
 * step for all rows (greedy, sampled, top-k/top-p and log-prob rows alike), up to `maxBatch` rows, the
 * rest waiting for a free row.
 */
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { loadTokenizerFile, type Tokenizer } from '../../../native/model/tokenizer';
import type { GenerateResult, PolicyInfo, SampledToken } from '../../../native/model/policy-api';
import { loadChatTemplate } from '../../agent/chat/jinja';
import type { ChatTemplate } from '../../agent/chat/template';
import { onnxReplyBudget } from '../../agent/policy/onnx';
import { chunkedCodec, splitTokensOf, type TokenCodec } from '../../agent/tokens/codec';
import type { CallOptions } from '../../ipc/common/client';
import type { MethodInput, MethodOutput } from '../../ipc/common/define';
import type { policyContract, PolicySettings, PolicyTokenEvent } from '../../processes/contracts/policy';
import { LOAD_TIMEOUT_MS } from '../models/policy-engine';
import { ApiError } from './errors';
import { renderPrompt } from './prompt';
import type { ParsedRequest } from './request';
import { TextStream } from './text-stream';
import { parseToolCalls, toolCallStart, type ParsedCall } from './tool-calls';

type Contract = typeof policyContract;

/** The policy worker as this server uses it: calls, and the token events of streamed requests. */
export interface PolicyWorkerClient {
  call<M extends 'policy.load' | 'policy.generate' | 'policy.unload'>(
    method: M,
    input: MethodInput<Contract, M>,
    options?: CallOptions,
  ): Promise<MethodOutput<Contract, M>>;
  on(event: 'policy.token', listener: (e: PolicyTokenEvent) => void): () => void;
}

/** OpenAI's floor for a log-prob that is -Infinity (JSON has no infinities). */
const LOGPROB_FLOOR = -9999;

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface Completion {
  content: string;
  toolCalls: ParsedCall[];
  finishReason: FinishReason;
  logprobs: TokenLogprob[] | null;
  usage: { prompt: number; completion: number; cached: number };
  /** The decoder's account of this request (queue, prefill, decode, mean batch): a `t1lab` extension. */
  timing: GenerateResult['timing'];
}

/** What a streamed request hears as tokens arrive: text that is safe to send, and each token's log-prob. */
export interface CompletionSink {
  delta(content: string, logprobs: TokenLogprob[]): void;
}

export interface ServedModelOptions {
  checkpoint: string;
  /** The model id clients name (default: the checkpoint folder's name). */
  name?: string;
  worker: PolicyWorkerClient;
  settings?: PolicySettings;
}

export class ServedModel {
  readonly id: string;
  readonly checkpoint: string;
  readonly created = Math.floor(Date.now() / 1000);
  private readonly streams = new Map<string, (e: PolicyTokenEvent) => void>();
  private unsubscribe: () => void = () => {};
  private reloading: Promise<unknown> | null = null;

  private readonly worker: PolicyWorkerClient;
  private readonly settings: PolicySettings;

  private constructor(
    options: ServedModelOptions,
    /** This server's hold on the checkpoint in the worker (released by close). */
    private readonly holder: string,
    readonly info: PolicyInfo,
    private readonly tokenizer: Tokenizer,
    private readonly codec: TokenCodec,
    readonly template: ChatTemplate,
  ) {
    this.checkpoint = resolve(options.checkpoint);
    this.id = options.name ?? basename(this.checkpoint);
    this.worker = options.worker;
    this.settings = options.settings ?? {};
    this.unsubscribe = this.worker.on('policy.token', (e) => this.streams.get(e.streamId)?.(e));
  }

  static async load(options: ServedModelOptions): Promise<ServedModel> {
    const dir = resolve(options.checkpoint);
    const tokenizer = loadTokenizerFile(dir);
    const plain: TokenCodec = { encode: (t) => tokenizer.encode(t), decode: (ids) => tokenizer.decode(ids) };
    const split = splitTokensOf(JSON.parse(tokenizer.json));
    const codec = split ? chunkedCodec(plain, split) : plain;
    const template = loadChatTemplate(dir);
    const holder = `policy-serve-${randomUUID()}`;
    const info = await options.worker.call(
      'policy.load',
      { checkpoint: dir, settings: options.settings ?? {}, holder },
      { timeoutMs: LOAD_TIMEOUT_MS },
    );
    return new ServedModel({ ...options, checkpoint: dir }, holder, info, tokenizer, codec, template);
  }

  /** The prompt's token ids: the checkpoint's template over the messages (and tools), tokenized. */
  promptIds(request: ParsedRequest): number[] {
    const text = renderPrompt(this.template, request.body.messages, request.tools);
    let ids: number[];
    try {
      ids = this.codec.encode(text);
    } catch (error) {
      throw new ApiError(
        400,
        `messages: the tokenizer cannot encode them: ${(error as Error).message.slice(0, 200)}`,
        'messages',
        'invalid_value',
      );
    }
    if (ids.length >= this.info.maxPositions) {
      throw new ApiError(
        400,
        `messages: the prompt is ${ids.length} tokens and the model's context window is ${this.info.maxPositions}`,
        'messages',
        'context_length_exceeded',
      );
    }
    return ids;
  }

  /** `promptIds` from `promptIds(request)`, taken first so that a bad prompt is a 400 before a stream starts. */
  async complete(
    request: ParsedRequest,
    promptIds: readonly number[],
    signal: AbortSignal,
    sink?: CompletionSink,
  ): Promise<Completion> {
    const s = request.sampling;
    const room = this.info.maxPositions - promptIds.length;
    // Unset: the `onnx:` policy's reply budget, so `eval --policy openai:` against this server asks what `onnx:` asks.
    const maxTokens = Math.min(s.maxTokens ?? onnxReplyBudget(this.info.maxPositions), room);
    // The tokenizer's end-of-turn ids, as the `onnx:` policy stops on.
    const stopIds = new Set(this.tokenizer.stopTokenIds);
    const tools = request.tools;
    const text = new TextStream({
      decode: (ids) => this.codec.decode(ids),
      stopTokenIds: stopIds,
      stops: s.stop,
      ...(tools.length ? { holdFrom: toolCallStart } : {}),
    });
    const top = s.logprobs?.top ?? 0;
    const streamId = sink ? `serve-${randomUUID()}` : undefined;
    let heard = 0;
    const hear = (t: Pick<SampledToken, 'id' | 'logprob' | 'alternatives'>) => {
      heard++;
      const delta = text.push(t.id);
      const lp = s.logprobs ? [this.logprobOf(t, top)] : [];
      if (delta || lp.length) sink?.delta(delta, lp);
    };
    if (streamId) this.streams.set(streamId, (e) => hear(e));
    let result: MethodOutput<Contract, 'policy.generate'>;
    try {
      result = await this.generate(
        {
          checkpoint: this.checkpoint,
          promptIds: [...promptIds],
          options: {
            maxTokens,
            temperature: s.temperature,
            topP: s.topP,
            topK: s.topK,
            seed: s.seed,
            stopTokenIds: s.ignoreEos ? [] : [...stopIds],
            stopSequences: s.stop,
            alternatives: top,
          },
          ...(streamId ? { streamId } : {}),
        },
        signal,
        () => heard === 0,
      );
    } finally {
      if (streamId) this.streams.delete(streamId);
    }
    // Tokens whose events did not reach the stream (none, normally: events travel before the reply).
    for (const t of result.tokens.slice(heard)) if (sink) hear(t);
    if (!sink) text.pushAll(result.tokens.map((t) => t.id));
    const { delta, text: content } = text.finish();
    const parsed = parseToolCalls(content, tools);
    if (sink && delta && !parsed.calls.length) sink.delta(delta, []);
    const finishReason: FinishReason = parsed.calls.length
      ? 'tool_calls'
      : result.stopReason === 'max-tokens' || result.stopReason === 'context-full'
        ? 'length'
        : 'stop';
    return {
      content: parsed.content,
      toolCalls: parsed.calls,
      finishReason,
      logprobs: s.logprobs ? result.tokens.map((t) => this.logprobOf(t, top)) : null,
      usage: { prompt: promptIds.length, completion: result.tokens.length, cached: result.timing.cachedPromptTokens },
      timing: result.timing,
    };
  }

  /**
   * One `policy.generate`. A policy worker that crashed is restarted empty by its supervisor: load the
   * checkpoint again (once for all the requests that saw it) and retry, unless tokens were already streamed.
   */
  private async generate(
    input: MethodInput<Contract, 'policy.generate'>,
    signal: AbortSignal,
    retriable: () => boolean,
  ): Promise<MethodOutput<Contract, 'policy.generate'>> {
    try {
      return await this.worker.call('policy.generate', input, { signal });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'CANCELLED' || signal.aborted) throw error;
      const lost =
        code === 'WORKER_CRASHED' || (code === 'NOT_FOUND' && /is not loaded/.test((error as Error).message));
      if (!lost || !retriable()) throw error;
      this.reloading ??= this.worker
        .call(
          'policy.load',
          { checkpoint: this.checkpoint, settings: this.settings, holder: this.holder },
          { timeoutMs: LOAD_TIMEOUT_MS },
        )
        .finally(() => (this.reloading = null));
      await this.reloading;
      return this.worker.call('policy.generate', input, { signal });
    }
  }

  private tokenText(id: number): { token: string; bytes: number[] | null } {
    return {
      token: this.tokenizer.decode([id]),
      bytes: this.tokenizer.byteLevel ? Array.from(this.tokenizer.tokenBytes(id)) : null,
    };
  }

  private logprobOf(t: Pick<SampledToken, 'id' | 'logprob' | 'alternatives'>, top: number): TokenLogprob {
    return {
      ...this.tokenText(t.id),
      logprob: Math.max(LOGPROB_FLOOR, t.logprob),
      top_logprobs: (t.alternatives ?? [])
        .slice(0, top)
        .map((a) => ({ ...this.tokenText(a.id), logprob: Math.max(LOGPROB_FLOOR, a.logprob) })),
    };
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.worker.call('policy.unload', { checkpoint: this.checkpoint, holder: this.holder }).catch(() => {});
  }
}
