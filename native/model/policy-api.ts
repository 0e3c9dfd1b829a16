/**
 * What a caller of the local policy sends and gets back: the `onnx:CHECKPOINT` policy of the harness, the
 * CLI's `model sample`, the Models page. Schemas first (they cross the worker boundary); types inferred.
 * No onnxruntime here: electron/agent may import this file.
 */
import { z } from 'zod';

/** 'stopped': the caller asked the decoder to stop (a Stop button) and keeps what was sampled; 'cancelled' discards it. */
export const StopReason = z.enum(['stop-token', 'stop-sequence', 'max-tokens', 'context-full', 'cancelled', 'stopped']);
export type StopReason = z.infer<typeof StopReason>;

export const GenerateOptions = z.object({
  maxTokens: z.number().int().min(1).max(1_000_000),
  /** 0: greedy. Log-probs are of the tempered distribution before top-k/top-p truncation (the behaviour policy PPO needs at temperature 1). */
  temperature: z.number().min(0).max(100).default(1),
  /** Nucleus sampling: keep the smallest set of tokens whose probability reaches topP (1: off). */
  topP: z.number().gt(0).max(1).default(1),
  /** Keep only the topK most likely tokens (0: off). */
  topK: z.number().int().min(0).default(0),
  /** Same seed, same prompt, same weights: same tokens. A random seed is drawn when absent. */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  /** Generation stops after sampling one of these ids (e.g. <|im_end|>); it is part of the output. */
  stopTokenIds: z.array(z.number().int().min(0)).default([]),
  /** Generation stops once the decoded output contains one of these (needs the checkpoint's tokenizer). */
  stopSequences: z.array(z.string().min(1)).default([]),
  /**
   * Also return, at each sampled position, this many most likely tokens with their log-probs (of the same
   * tempered, untruncated distribution as `logprob`); 0: none. The step then fetches the logits.
   */
  alternatives: z.number().int().min(0).max(20).default(0),
});
export type GenerateOptions = z.input<typeof GenerateOptions>;
export type ResolvedGenerateOptions = z.output<typeof GenerateOptions>;

/** Routing of one token as the sampler processed it: per MoE layer, the k experts and their gate weights. */
export const TokenRouting = z.object({
  experts: z.array(z.array(z.number().int())),
  gates: z.array(z.array(z.number())),
});
export type TokenRouting = z.infer<typeof TokenRouting>;

/** A candidate token at a sampled position and its log-prob. */
export const TokenAlternative = z.object({ id: z.number().int(), logprob: z.number() });
export type TokenAlternative = z.infer<typeof TokenAlternative>;

export const SampledToken = z.object({
  id: z.number().int(),
  logprob: z.number(),
  /** The most likely tokens at this position, most likely first (GenerateOptions.alternatives > 0). */
  alternatives: z.array(TokenAlternative).optional(),
  /** Null for external checkpoints (no routing outputs). */
  routing: TokenRouting.nullable(),
});
export type SampledToken = z.infer<typeof SampledToken>;

export const GenerateResult = z.object({
  tokens: z.array(SampledToken),
  stopReason: StopReason,
  /** Routing of every prompt token, as processed in prefill (R3 replays these too); null for external checkpoints. */
  promptRouting: z.array(TokenRouting).nullable(),
  /** The prompt ids the sampler ran on, as the worker received them (the loss-drift check's record). */
  promptIds: z.array(z.number().int()).optional(),
  timing: z.object({
    queueMs: z.number(),
    prefillMs: z.number(),
    decodeMs: z.number(),
    steps: z.number().int(),
    meanBatch: z.number(),
    /** Prompt tokens whose KV cache came from an earlier request with the same prefix (not recomputed). */
    cachedPromptTokens: z.number().int(),
  }),
});
export type GenerateResult = z.infer<typeof GenerateResult>;

export const PolicyInfo = z.object({
  checkpoint: z.string(),
  kind: z.enum(['t1-moe', 'external-onnx']),
  provider: z.enum(['cpu', 'cuda']),
  /** Why CUDA was not used (null when it was, or when CPU was asked for). */
  providerFallbackReason: z.string().nullable(),
  vocabSize: z.number().int(),
  maxPositions: z.number().int(),
  layers: z.number().int(),
  expertsPerToken: z.number().int().nullable(),
  /** Token ids that end a turn by default (from the tokenizer: <|im_end|>, <|endoftext|>), when known. */
  eosTokenIds: z.array(z.number().int()),
  weightsVersion: z.number().int(),
});
export type PolicyInfo = z.infer<typeof PolicyInfo>;

/**
 * The local policy as the harness sees it (implemented over the policy worker in electron/lab/models).
 * Many generate() calls may be in flight: they are decoded together in batches.
 */
export interface OnnxPolicyEngine {
  info(): Promise<PolicyInfo>;
  generate(promptIds: readonly number[], options: GenerateOptions, signal?: AbortSignal): Promise<GenerateResult>;
  /** Load new weights (a checkpoint folder of the same architecture); in-flight episodes continue on them from their next step. */
  swapWeights(checkpointDir: string): Promise<PolicyInfo>;
  close(): Promise<void>;
}
