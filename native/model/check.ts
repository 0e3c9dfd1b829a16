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
  const policy = await loadT1Policy(config, weights, { provider: choice, intraOpThreads: options.threads });
  const sampler = { provider: policy.provider, fallbackReason: policy.fallbackReason };
  let scorer: CheckReport['scorer'] = { provider: 'cpu', fallbackReason: null };
  let samples: GenerateResult[];
  try {
    const decoder = new BatchDecoder(policy.decoder);
    samples = await Promise.all(
      options.prompts.map((p, i) =>
        decoder.generate(p, {
          ...GenerateOptions.parse({ maxTokens: options.newTokens, temperature: 1 }),
          seed: options.seed + i,
        }),
      ),
    );
  } finally {
    await policy.decoder.session.release();
  }
  const L = config.num_hidden_layers;
  const k = config.num_experts_per_tok;
  const B = samples.length;
  const sequences = samples.map((s, i) => [...options.prompts[i]!, ...s.tokens.map((t) => t.id)]);
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

  const score = async (forcedRouting: boolean) => {
    const graph = buildTrainingGraph(config, {
      batch: B,
      length: T,
      dtype: 'float32',
      expertCompute: 'dense',
      forcedRouting,
      loss: null,
    });
    const placed = await createPlacedSession(graph.bytes, { choice, intraOpThreads: options.threads });
    const session = placed.session;
    scorer = { provider: placed.provider, fallbackReason: placed.fallbackReason };
    try {
      const out = await session.run(
        forcedRouting ? { ...feeds, forced_experts: { dtype: 'int64', dims: [L, B, T, k], data: forced } } : feeds,
        ['logprobs', 'experts'],
      );
      return { logprobs: out.logprobs!.data as Float32Array, experts: out.experts!.data as BigInt64Array };
    } finally {
      await session.release();
    }
  };
  const plain = await score(false);
  const replayed = await score(true);

  const agreement = (experts: BigInt64Array) => {
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
  };
  let maxDiff = 0;
  let sumDiff = 0;
  let count = 0;
  samples.forEach((s, b) => {
    const start = options.prompts[b]!.length - 1;
    s.tokens.forEach((tok, i) => {
      const d = Math.abs(tok.logprob - replayed.logprobs[b * T + start + i]!);
      maxDiff = Math.max(maxDiff, d);
      sumDiff += d;
      count++;
    });
  });
  return {
    tokens: count,
    maxAbsLogprobDiff: maxDiff,
    meanAbsLogprobDiff: count ? sumDiff / count : 0,
    routingAgreement: agreement(plain.experts),
    routingAgreementWithReplay: agreement(replayed.experts),
    sampler,
    scorer,
  };
}
