/**
 * `model check`: sample sequences with the KV-cache sampling graph (batched, temperature 1), then score
 * them with the full-sequence scoring graph twice: with the graph's own routing and with the sampler's
 * routing replayed (R3). The log-prob differences are those of the replayed pass (the trainer's path);
 * routing agreement compares each scoring pass's own top-k with the sampler's, per token, layer and slot.
 */
import type { HostTensor } from '../onnx/runtime';
import { parameterSpecs, type ModelConfig } from './config';
import { BatchDecoder } from './decoder';
import { GenerateOptions, type GenerateResult } from './policy-api';
import { loadT1Policy } from './policy-model';
import { createPlacedSession, type ProviderChoice } from './providers';
import { buildTrainingGraph, lengthBucket } from './training-graph';

export interface CheckReport {
  tokens: number;
  maxAbsLogprobDiff: number;
  meanAbsLogprobDiff: number;
  routingAgreement: number;
  routingAgreementWithReplay: number;
  /** Where the sampler and the scorer ran (they differ only when one fell back to the CPU). */
  sampler: { provider: 'cpu' | 'cuda'; fallbackReason: string | null };
  scorer: { provider: 'cpu' | 'cuda'; fallbackReason: string | null };
}

export interface CheckOptions {
  prompts: number[][];
  newTokens: number;
  seed: number;
  threads?: number;
  /** Execution provider of both graphs (default cpu): `model check --provider cuda` checks the CUDA path. */
  provider?: ProviderChoice;
}

export async function checkSamplingAgainstScoring(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  options: CheckOptions,
): Promise<CheckReport> {
  const choice = options.provider ?? 'cpu';
  const { samples, sampler } = await sampleWithCache(config, weights, options);
  const batch = scoringBatch(config, weights, options.prompts, samples);
  const plain = await score(config, batch, { forcedRouting: false, choice, threads: options.threads });
  const replayed = await score(config, batch, { forcedRouting: true, choice, threads: options.threads });
  const diffs = logprobDiffs(samples, options.prompts, replayed.logprobs, batch.T);
  return {
    tokens: diffs.count,
    maxAbsLogprobDiff: diffs.max,
    meanAbsLogprobDiff: diffs.count ? diffs.sum / diffs.count : 0,
    routingAgreement: routingAgreement(batch.sampledExperts, plain.experts, config.num_experts_per_tok),
    routingAgreementWithReplay: routingAgreement(batch.sampledExperts, replayed.experts, config.num_experts_per_tok),
    sampler,
    scorer: replayed.placement,
  };
}

/** Each prompt sampled at temperature 1 by the KV-cache graph, in one batch, with the routing of every token. */
async function sampleWithCache(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  options: CheckOptions,
): Promise<{ samples: GenerateResult[]; sampler: CheckReport['sampler'] }> {
  const policy = await loadT1Policy(config, weights, {
    provider: options.provider ?? 'cpu',
    intraOpThreads: options.threads,
  });
  try {
    const decoder = new BatchDecoder(policy.decoder);
    const samples = await Promise.all(
      options.prompts.map((p, i) =>
        decoder.generate(p, {
          ...GenerateOptions.parse({ maxTokens: options.newTokens, temperature: 1 }),
          seed: options.seed + i,
        }),
      ),
    );
    return { samples, sampler: { provider: policy.provider, fallbackReason: policy.fallbackReason } };
  } finally {
    await policy.decoder.session.release();
  }
}

/** The sampled sequences as one padded scoring batch: ids, targets, mask, the sampler's experts to replay. */
interface ScoringBatch {
  B: number;
  T: number;
  feeds: Record<string, HostTensor>;
  /** The sampler's experts as int64 [L, B, T, k], fed to the replaying pass. */
  forced: BigInt64Array;
  /** The same as numbers, -1 where no token was sampled (padding). */
  sampledExperts: Int32Array;
}

function scoringBatch(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  prompts: readonly number[][],
  samples: readonly GenerateResult[],
): ScoringBatch {
  const L = config.num_hidden_layers;
  const k = config.num_experts_per_tok;
  const B = samples.length;
  const sequences = samples.map((s, i) => [...prompts[i]!, ...s.tokens.map((t) => t.id)]);
  const T = lengthBucket(Math.max(...sequences.map((s) => s.length - 1)));
  const ids = new BigInt64Array(B * T);
  const targets = new BigInt64Array(B * T);
  const mask = new Float32Array(B * T);
  const forced = new BigInt64Array(L * B * T * k);
  const sampledExperts = new Int32Array(L * B * T * k).fill(-1);
  sequences.forEach((seq, b) => {
    const routes = [...samples[b]!.promptRouting!, ...samples[b]!.tokens.map((t) => t.routing)];
    for (let t = 0; t < seq.length - 1; t++) {
      ids[b * T + t] = BigInt(seq[t]!);
      targets[b * T + t] = BigInt(seq[t + 1]!);
      mask[b * T + t] = 1;
      const route = routes[t];
      if (!route) continue;
      for (let l = 0; l < L; l++)
        for (let j = 0; j < k; j++) {
          const o = ((l * B + b) * T + t) * k + j;
          forced[o] = BigInt(route.experts[l]![j]!);
          sampledExperts[o] = route.experts[l]![j]!;
        }
    }
  });
  const feeds: Record<string, HostTensor> = {
    input_ids: { dtype: 'int64', dims: [B, T], data: ids },
    targets: { dtype: 'int64', dims: [B, T], data: targets },
    attention_mask: { dtype: 'float32', dims: [B, T], data: mask },
  };
  for (const p of parameterSpecs(config))
    feeds[p.name] = { dtype: 'float32', dims: p.shape, data: weights.get(p.name)! };
  return { B, T, feeds, forced, sampledExperts };
}

/** One pass of the full-sequence scoring graph: with its own routing, or the sampler's replayed (R3). */
async function score(
  config: ModelConfig,
  batch: ScoringBatch,
  how: { forcedRouting: boolean; choice: ProviderChoice; threads?: number },
): Promise<{ logprobs: Float32Array; experts: BigInt64Array; placement: CheckReport['scorer'] }> {
  const { B, T } = batch;
  const graph = buildTrainingGraph(config, {
    batch: B,
    length: T,
    dtype: 'float32',
    expertCompute: 'dense',
    forcedRouting: how.forcedRouting,
    loss: null,
  });
  const placed = await createPlacedSession(graph.bytes, { choice: how.choice, intraOpThreads: how.threads });
  const session = placed.session;
  try {
    const dims = [config.num_hidden_layers, B, T, config.num_experts_per_tok];
    const out = await session.run(
      how.forcedRouting
        ? { ...batch.feeds, forced_experts: { dtype: 'int64', dims, data: batch.forced } }
        : batch.feeds,
      ['logprobs', 'experts'],
    );
    return {
      logprobs: out.logprobs!.data as Float32Array,
      experts: out.experts!.data as BigInt64Array,
      placement: { provider: placed.provider, fallbackReason: placed.fallbackReason },
    };
  } finally {
    await session.release();
  }
}

/** The share of the sampler's (token, layer, slot) choices that a scoring pass's top-k also chose. */
function routingAgreement(sampledExperts: Int32Array, experts: BigInt64Array, k: number): number {
  let same = 0;
  let total = 0;
  for (let o = 0; o < sampledExperts.length; o += k) {
    if (sampledExperts[o] === -1) continue;
    const want = new Set(Array.from(sampledExperts.subarray(o, o + k)));
    for (let j = 0; j < k; j++) {
      total++;
      if (want.has(Number(experts[o + j]))) same++;
    }
  }
  return total ? same / total : 1;
}

/** |sampler log-prob - scorer log-prob| over every sampled token. */
function logprobDiffs(
  samples: readonly GenerateResult[],
  prompts: readonly number[][],
  scored: Float32Array,
  T: number,
): { max: number; sum: number; count: number } {
  let max = 0;
  let sum = 0;
  let count = 0;
  samples.forEach((s, b) => {
    const start = prompts[b]!.length - 1;
    s.tokens.forEach((tok, i) => {
      const d = Math.abs(tok.logprob - scored[b * T + start + i]!);
      max = Math.max(max, d);
      sum += d;
      count++;
    });
  });
  return { max, sum, count };
}
