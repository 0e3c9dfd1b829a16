/**
 * `onnx:CHECKPOINT`: the local MoE policy. Token in, token out: the harness hands it the TITO ledger's ids,
 * it samples through the policy worker (batched with the other episodes) and returns the ids verbatim with
 * their log-probs and per-layer routing, which the ledger and the trainer keep.
 */
import type { OnnxPolicyEngine } from '../../../native/model/policy-api';
import { LabError } from '../../ipc/common/errors';
import type { ChatTemplate } from '../chat/template';
import type { TokenCodec } from '../tokens/codec';
import {
  PolicyError,
  wantsCompactPrompt,
  type Policy,
  type PolicyEpisode,
  type PolicyOptions,
  type PolicyReply,
} from './types';

export interface OnnxParts {
  checkpoint: string;
  engine: OnnxPolicyEngine;
  codec: TokenCodec;
  template: ChatTemplate;
  /** Ids that end an assistant turn (the tokenizer's <|im_end|>, <|endoftext|>, eos). */
  stopTokenIds: readonly number[];
}

/** Completion tokens per turn when not set: enough for reasoning and a tool call... */
const DEFAULT_MAX_TOKENS = 1024;
/**
 * ...but at most this share of the context window: what is reserved for the reply is taken from the
 * conversation's budget, and a small model (nano: 2048 positions) must keep room for the task's prompt.
 */
const DEFAULT_REPLY_SHARE = 1 / 8;

/** Completion tokens per turn for a window: `maxTokens` when set (at most half the window), else the default. */
export function onnxReplyBudget(contextWindow: number, maxTokens?: number): number {
  return Math.min(
    maxTokens ?? Math.min(DEFAULT_MAX_TOKENS, Math.floor(contextWindow * DEFAULT_REPLY_SHARE)),
    Math.floor(contextWindow / 2),
  );
}

export async function createOnnxPolicy(parts: OnnxParts, options: PolicyOptions = {}): Promise<Policy> {
  const protocol = options.protocol ?? 'hermes';
  if (protocol === 'tools')
    throw new LabError(
      'INVALID_PARAMS',
      'onnx: policies write their tool calls as text: use --protocol hermes or terminus',
    );
  const info = await parts.engine.info();
  const contextWindow = Math.min(options.contextWindow ?? info.maxPositions, info.maxPositions);
  const maxCompletionTokens = onnxReplyBudget(contextWindow, options.maxTokens);
  const stops = new Set(parts.stopTokenIds);
  return {
    id: `onnx:${parts.checkpoint}`,
    protocol,
    model: parts.checkpoint,
    contextWindow,
    maxCompletionTokens,
    compactPrompt: wantsCompactPrompt(contextWindow),
    tokenLevel: { codec: parts.codec, template: parts.template },
    template: parts.template,
    async startEpisode(episode): Promise<PolicyEpisode> {
      const base = options.seed ?? episode.seed;
      return {
        async turn(request): Promise<PolicyReply> {
          const promptIds = request.promptIds;
          if (!promptIds) throw new PolicyError('the onnx policy needs the token ledger (promptIds)');
          const room = contextWindow - promptIds.length;
          if (room <= 0)
            throw new PolicyError(
              `the prompt (${promptIds.length} tokens) fills the context window (${contextWindow})`,
            );
          const result = await parts.engine.generate(
            promptIds,
            {
              maxTokens: Math.min(maxCompletionTokens, room),
              temperature: options.temperature ?? 1,
              // A different stream per turn, reproducible from the episode's seed.
              seed: (base + request.turn * 0x9e3779b1) >>> 0,
              stopTokenIds: [...stops],
            },
            request.signal,
          );
          if (result.stopReason === 'cancelled')
            throw request.signal.reason ?? new PolicyError('generation was cancelled');
          const ids = result.tokens.map((t) => t.id);
          const routed = result.tokens.every((t) => t.routing !== null);
          const content = ids.length && stops.has(ids[ids.length - 1]!) ? ids.slice(0, -1) : ids;
          return {
            text: parts.codec.decode(content),
            tokens: {
              ids,
              logprobs: result.tokens.map((t) => t.logprob),
              ...(routed ? { routing: result.tokens.map((t) => t.routing!.experts) } : {}),
            },
            fed: { ids: result.promptIds ?? promptIds, routing: result.promptRouting?.map((r) => r.experts) ?? null },
            usage: { prompt: promptIds.length, completion: ids.length, cached: 0 },
            costUsd: null,
            finishReason:
              result.stopReason === 'stop-token' || result.stopReason === 'stop-sequence' ? 'stop' : 'length',
          };
        },
      };
    },
    close: () => parts.engine.close(),
  };
}
