/** The Models page's data: checkpoints as listed and a playground sample, as plain data. */
import { z } from 'zod';

export const ModelFile = z.object({
  name: z.string(),
  bytes: z.number().int(),
  /** From the checkpoint's manifest; null for external checkpoints. */
  sha256: z.string().nullable(),
});

export const ModelSummary = z.object({
  path: z.string(),
  name: z.string(),
  format: z.enum(['t1', 'external-onnx', 'hf']),
  status: z.enum(['ok', 'invalid']),
  /** Why the checkpoint cannot be used, naming the file and field. */
  error: z.string().nullable(),
  parameters: z.number().int().nullable(),
  activeParameters: z.number().int().nullable(),
  totalBytes: z.number().int(),
  files: z.array(ModelFile),
  /** config.json as written (architecture fields). */
  config: z.record(z.string(), z.unknown()).nullable(),
  tokenizerVocab: z.number().int().nullable(),
  /** Where the policy worker placed it, once loaded: 'cuda' or 'cpu' and, for cpu, why not cuda. */
  provider: z.object({ name: z.enum(['cpu', 'cuda']), fallbackReason: z.string().nullable() }).nullable(),
  /** A checkpoint inside a training run folder: the run, its stage, and the step it was saved at. */
  lineage: z.object({ trainingRun: z.string(), stage: z.string().nullable(), step: z.number().int() }).nullable(),
  /** One of the PPO policy worker's weight snapshots (`policy/v-N`): an internal copy, hidden by default. */
  snapshot: z.boolean(),
});
export type ModelSummary = z.infer<typeof ModelSummary>;

export const ModelList = z.object({
  /** Folder searched (the lab's data dir) and any extra folders given. */
  roots: z.array(z.string()),
  checkpoints: z.array(ModelSummary),
});
export type ModelList = z.infer<typeof ModelList>;

export const PlaygroundRequest = z.object({
  path: z.string().min(1).max(4096),
  prompt: z.string().max(100_000),
  maxTokens: z.number().int().min(1).max(4096).default(64),
  temperature: z.number().min(0).max(10).default(1),
  topP: z.number().gt(0).max(1).default(1),
  topK: z.number().int().min(0).default(0),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  provider: z.enum(['auto', 'cpu', 'cuda']).default('auto'),
  /** onnxruntime intra-op threads; unset: the session's default. A change reloads the session. */
  threads: z.number().int().min(1).max(256).optional(),
  /** Stop when the generated text contains one of these (the stop text is kept, generation ends there). */
  stop: z.array(z.string().min(1).max(200)).max(8).default([]),
  /** The most likely tokens (with log-probs) to return at each sampled position; 0: none. */
  alternatives: z.number().int().min(0).max(20).default(0),
  /** Stream each token as `models.sampleToken` under this id (chosen by the caller); `models.stopSample` ends it. */
  sampleId: z.string().min(1).max(100).optional(),
});
export type PlaygroundRequest = z.input<typeof PlaygroundRequest>;

/** A candidate token at a sampled position: its text and log-prob. */
export const PlaygroundAlternative = z.object({ id: z.number().int(), text: z.string(), logprob: z.number() });
export type PlaygroundAlternative = z.infer<typeof PlaygroundAlternative>;

export const PlaygroundToken = z.object({
  id: z.number().int(),
  text: z.string(),
  logprob: z.number(),
  /** The most likely tokens at this position, most likely first (PlaygroundRequest.alternatives > 0). */
  alternatives: z.array(PlaygroundAlternative).optional(),
  /** [layer][k] expert ids and gate weights; null for external checkpoints. */
  experts: z.array(z.array(z.number().int())).nullable(),
  gates: z.array(z.array(z.number())).nullable(),
});
export type PlaygroundToken = z.infer<typeof PlaygroundToken>;

export const PlaygroundResult = z.object({
  promptTokens: z.number().int(),
  tokens: z.array(PlaygroundToken),
  stopReason: z.string(),
  seed: z.number().int(),
  provider: z.enum(['cpu', 'cuda']),
  providerFallbackReason: z.string().nullable(),
  numExperts: z.number().int().nullable(),
  timing: z.object({ prefillMs: z.number(), decodeMs: z.number() }),
});
export type PlaygroundResult = z.infer<typeof PlaygroundResult>;

/** One token of a streamed sample, as it is sampled (its routing comes with the result). */
export const PlaygroundTokenEvent = z.object({ sampleId: z.string(), index: z.number().int(), token: PlaygroundToken });
export type PlaygroundTokenEvent = z.infer<typeof PlaygroundTokenEvent>;
