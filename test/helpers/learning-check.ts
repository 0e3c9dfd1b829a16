/**
 * What the learning checks start from: a tiny checkpoint that, on one task's first turn, writes either of two
 * tool calls about equally often (a supervised warm start on both), and the probability it gives each call.
 * The exact prompt ids come from a real episode of the harness (a probe policy that records what the ledger
 * fed it), so the warm start trains on the same ids that PPO's rollouts will present.
 */
import { join } from 'node:path';
import { loadCheckpoint, saveCheckpoint } from '../../native/model/checkpoint';
import type { ModelConfig } from '../../native/model/config';
import { initParameters } from '../../native/model/init';
import { trainBpe } from '../../native/model/tokenizer';
import { TINY_TEXT, tinyTrainConfig } from './tiny-checkpoint';
import { TrainingGraphCache } from '../../native/model/graph-cache';
import { sftLoss } from '../../native/model/losses';
import { loadTokenizerFile } from '../../native/model/tokenizer';
import { runTrainingStep } from '../../native/model/train-step';
import { loadChatTemplate } from '../../electron/agent/chat/jinja';
import { createProtocol } from '../../electron/agent/protocol';
import type { Policy } from '../../electron/agent/policy/types';
import { chunkedCodec, splitTokensOf, type TokenCodec } from '../../electron/agent/tokens/codec';
import { runTaskEpisode } from '../../electron/lab/runs/run-episode';
import { loadTaskSource } from '../../electron/lab/tasks';
import { packMicroBatch, type TokenSequence } from '../../electron/lab/training/batching';
import { readTokenizerConfig } from '../../electron/lab/training/trainer';
import { adamwStep, createOptimizerState, DEFAULT_ADAMW } from '../../electron/rl/adamw';
import type { TrainRow } from '../../electron/rl/batch';
import { scoreRows } from '../../electron/rl/scoring';

/**
 * A tiny checkpoint whose tokenizer was trained on the texts the check uses (the compact system prompt, the
 * instruction, the tool calls), so prompts are tens of tokens, not hundreds, and each training step is cheap.
 */
export function writeChoiceCheckpoint(dir: string, texts: readonly string[], seed = 1): string {
  const config = tinyTrainConfig({
    vocab_size: 640,
    hidden_size: 32,
    head_dim: 16,
    moe_intermediate_size: 32,
    max_position_embeddings: 256,
  });
  const sample = texts.join('\n');
  const trained = trainBpe({
    corpus: [sample, sample, TINY_TEXT, '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nok<|im_end|>\n'],
    vocabSize: config.vocab_size,
  });
  saveCheckpoint(dir, {
    config,
    tokenizer: trained.json,
    tokenizerConfig: trained.config,
    parameters: initParameters(config, seed),
    labVersion: 'test',
  });
  return dir;
}

/** The checkpoint's codec as the `onnx:` policy builds it (electron/lab/runs/onnx-policy.ts). */
export function checkpointCodec(dir: string): { codec: TokenCodec; stopIds: readonly number[] } {
  const tokenizer = loadTokenizerFile(dir);
  const plain: TokenCodec = { encode: (t) => tokenizer.encode(t), decode: (ids) => tokenizer.decode(ids) };
  const split = splitTokensOf(JSON.parse(tokenizer.json));
  return { codec: split ? chunkedCodec(plain, split) : plain, stopIds: tokenizer.stopTokenIds };
}

/** A bash tool call as the Hermes protocol writes it, then the end-of-turn token: what the policy samples. */
export function toolCallIds(dir: string, command: string): number[] {
  const { codec, stopIds } = checkpointCodec(dir);
  const text = createProtocol('hermes').writeAction({ tool: 'bash', command }, 'call').text;
  return [...codec.encode(text), stopIds[0]!];
}

/**
 * The ids the harness feeds the `onnx:` policy of `dir` on the first turn of the suite's first task (with a
 * window of the model's positions, so the same compact prompt), from a real episode in a sandbox.
 */
export async function firstTurnPrompt(dir: string, suite: string, maxTurns: number, work: string): Promise<number[]> {
  const { codec } = checkpointCodec(dir);
  const template = loadChatTemplate(dir);
  const window = loadCheckpoint(dir).config.max_position_embeddings;
  const task = (await loadTaskSource(suite)).tasks[0]!;
  let seen: number[] | null = null;
  const probe: Policy = {
    id: 'probe',
    protocol: 'hermes',
    model: null,
    contextWindow: window,
    maxCompletionTokens: 64,
    compactPrompt: true,
    tokenLevel: { codec, template },
    template,
    async startEpisode() {
      return {
        async turn(request) {
          seen ??= [...request.promptIds!];
          const ids = codec.encode('<tool_call>\n{"name": "submit", "arguments": {}}\n</tool_call>');
          return {
            text: codec.decode(ids),
            tokens: { ids, logprobs: ids.map(() => 0) },
            fed: { ids: request.promptIds!, routing: null },
            usage: { prompt: 0, completion: ids.length, cached: 0 },
            costUsd: null,
            finishReason: 'stop',
          };
        },
      };
    },
    close: async () => {},
  };
  await runTaskEpisode({
    task,
    policy: probe,
    harness: { maxTurns, contextStrategy: 'drop-oldest', observationChars: 10_000, tito: 'exact' },
    key: 'probe',
    attempt: 0,
    seed: 1,
    dir: { abs: join(work, 'probe'), rel: 'probe' },
  });
  if (!seen) throw new Error('the probe episode never asked for a turn');
  return seen;
}

/** A training sequence: the prompt, then the completion, trained on the completion only. */
export function completionSequence(prompt: readonly number[], completion: readonly number[]): TokenSequence {
  const ids = [...prompt, ...completion];
  return { ids, tokenInputs: { loss_mask: ids.slice(1).map((_, p) => (p + 1 >= prompt.length ? 1 : 0)) } };
}

/**
 * Supervised steps with the SFT loss (token-mean NLL of the completions) and AdamW on `params` in place:
 * `batchOf(step)` gives each step's sequences (one micro-batch); `decay`: the rate falls linearly to 0.
 * Returns the last step's loss.
 */
export async function supervisedSteps(
  config: ModelConfig,
  params: Map<string, Float32Array>,
  batchOf: (step: number) => readonly TokenSequence[],
  o: { steps: number; lr: number; decay?: boolean },
): Promise<number> {
  const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
  const optimizer = createOptimizerState(params);
  let loss = NaN;
  try {
    for (let step = 0; step < o.steps; step++) {
      const sequences = batchOf(step);
      const pack = packMicroBatch(sequences, {
        rows: sequences.length,
        loss: sftLoss,
        scalars: { aux_coef: 0 },
        maxLength: config.max_position_embeddings,
      });
      const entry = await cache.get({ batch: pack.rows, length: pack.length, forcedRouting: false, loss: sftLoss });
      const out = await runTrainingStep(config, entry, params, pack.batch);
      loss = out.loss;
      adamwStep(
        params,
        out.gradients,
        optimizer,
        new Map(),
        o.decay ? o.lr * (1 - step / o.steps) : o.lr,
        DEFAULT_ADAMW,
      );
    }
  } finally {
    await cache.clear();
  }
  return loss;
}

/** Supervised steps on `sequences` (the whole set each step) from checkpoint `from`; the result saved as `to`. */
export async function supervisedWarmStart(
  from: string,
  to: string,
  sequences: readonly TokenSequence[],
  o: { steps: number; lr: number; decay?: boolean },
): Promise<{ loss: number }> {
  const point = loadCheckpoint(from);
  const loss = await supervisedSteps(point.config, point.parameters, () => sequences, o);
  saveCheckpoint(to, {
    config: point.config,
    tokenizer: point.tokenizer,
    tokenizerConfig: readTokenizerConfig(from),
    parameters: point.parameters,
    labVersion: 'test',
  });
  return { loss };
}

/** Per row, the log-probs of its loss positions (the model's probability of each completion token). */
export async function completionLogprobs(
  config: ModelConfig,
  params: ReadonlyMap<string, Float32Array>,
  sequences: readonly TokenSequence[],
): Promise<number[][]> {
  const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
  try {
    const rows: TrainRow[] = sequences.map((s) => ({
      inputIds: s.ids.slice(0, -1),
      targets: s.ids.slice(1),
      lossMask: Array.from(s.tokenInputs.loss_mask!),
      samplerLogprobs: [],
      routing: null,
    }));
    const scored = await scoreRows(config, cache, params, rows, false);
    return rows.map((r, i) => r.lossMask.flatMap((m, t) => (m === 1 ? [scored.logprobs[i]![t]!] : [])));
  } finally {
    await cache.clear();
  }
}

/** Per completion, the probability that the checkpoint's policy (temperature 1) samples exactly it after `prompt`. */
export async function completionProbabilities(
  dir: string,
  prompt: readonly number[],
  completions: readonly (readonly number[])[],
): Promise<number[]> {
  const point = loadCheckpoint(dir);
  const logps = await completionLogprobs(
    point.config,
    point.parameters,
    completions.map((c) => completionSequence(prompt, c)),
  );
  return logps.map((l) => Math.exp(l.reduce((a, b) => a + b, 0)));
}
