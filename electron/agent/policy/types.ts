/**
 * A policy: whatever answers an assistant turn. One interface for every kind — the oracle, scripted
 * replays, OpenAI-compatible servers and the local ONNX model — so the harness is identical for all.
 * Token-level policies also carry token ids, log-probs and MoE routing, and expose their tokenizer and
 * chat template so the harness can keep the TITO ledger.
 */
import type { PolicySettings } from '../../domain/runs';
import type {
  ChatMessage,
  FinishReason,
  ProtocolName,
  SampledTokens,
  TokenUsage,
  ToolCall,
} from '../../domain/trajectory';
import type { ChatTemplate } from '../chat/template';
import type { ActionProtocol } from '../protocol/types';
import type { ToolSpec } from '../protocol/tools';
import type { TokenCodec } from '../tokens/codec';

/** HTTP retries of the API policies (http-retry.ts): exponential backoff on 429, 5xx, network errors and timeouts. */
export interface RetryOptions {
  /** Per attempt. */
  timeoutMs: number;
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * What a user sets for a policy (the run's `policySettings`, see schemas/runs.ts), plus what tests inject.
 * Each policy takes what applies to it.
 */
export type PolicyOptions = PolicySettings & {
  retry?: Partial<RetryOptions>;
  /** Where API keys are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
};

export interface PolicyRequest {
  /** The conversation as the agent sees it now (after the context strategy). */
  messages: readonly ChatMessage[];
  /** Tools to offer natively (the `tools` protocol); empty otherwise. */
  tools: ToolSpec[];
  /** Token-level policies: the ledger's ids to continue from (exactly the fresh rendering). */
  promptIds?: readonly number[];
  /** The chat template's text of `messages`, with the generation prompt (token-level policies). */
  promptText?: string;
  /** Aborted at the agent's deadline or when the episode is cancelled. */
  signal: AbortSignal;
  turn: number;
}

export interface PolicyReply {
  /** The assistant text (reasoning and tool-call markup included), without the end-of-turn marker. */
  text: string;
  toolCalls?: ToolCall[];
  /** Token-level policies: what was sampled, verbatim (end-of-turn token included when it was sampled). */
  tokens?: SampledTokens;
  /**
   * Token-level policies: the prompt ids the sampler actually ran on (for the loss-drift check) and the
   * routing of each (R3: per token, per MoE layer, the top-k experts; null for dense or external models).
   */
  fed?: { ids: readonly number[]; routing: number[][][] | null };
  usage: TokenUsage;
  costUsd: number | null;
  finishReason: FinishReason;
}

export interface EpisodeInfo {
  taskId: string;
  instruction: string;
  /** The task's reference solution as top-level shell commands (the oracle types one per turn), or null. */
  solutionCommands: string[] | null;
  /** The agent's time budget (the oracle lets each command use all of it). */
  agentTimeoutSec: number;
  /** The episode's protocol instance (policies that write actions use it). */
  protocol: ActionProtocol;
  seed: number;
}

export interface PolicyEpisode {
  turn(request: PolicyRequest): Promise<PolicyReply>;
  close?(): Promise<void>;
}

export interface TokenLevel {
  codec: TokenCodec;
  template: ChatTemplate;
}

export interface Policy {
  /** The spec it was made from, e.g. `openai:http://127.0.0.1:8000/v1#qwen3-8b`. */
  readonly id: string;
  readonly protocol: ProtocolName;
  readonly model: string | null;
  /** Prompt + completion tokens the model can hold, when known (the context strategy needs it). */
  readonly contextWindow: number | null;
  /** Tokens kept free for the reply when measuring the prompt against the window. */
  readonly maxCompletionTokens: number;
  /** Use the protocol's compact system prompt (small local models: see `wantsCompactPrompt`). */
  readonly compactPrompt?: boolean;
  /** Present for token-level policies: the ledger is kept with these. */
  readonly tokenLevel?: TokenLevel;
  /** The template used to render (and measure) the conversation, when the policy renders locally. */
  readonly template?: ChatTemplate;
  startEpisode(info: EpisodeInfo): Promise<PolicyEpisode>;
  close(): Promise<void>;
}

/** Local models with a window up to this many tokens get the protocol's compact system prompt. */
export const COMPACT_PROMPT_MAX_WINDOW = 8192;

export function wantsCompactPrompt(contextWindow: number): boolean {
  return contextWindow <= COMPACT_PROMPT_MAX_WINDOW;
}

/** A policy failure: the episode stops with `policy_error`. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

export const ZERO_USAGE: TokenUsage = { prompt: 0, completion: 0, cached: 0 };
