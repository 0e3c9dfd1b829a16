/**
 * A loaded policy: the sampling session (on the chosen provider) and what the decoder needs to drive it.
 * Our checkpoints build their graph from config + weights; external ONNX LLM exports (the common layout:
 * input_ids, attention_mask, position_ids, past_key_values.N.key/value -> logits, present.N.key/value)
 * load as they are, for evaluation, without routing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { externalDataThreshold } from '../onnx/external-data';
import { moeLayers, type ModelConfig } from './config';
import type { DecoderModel } from './decoder';
import { createPlacedSession, type ProviderChoice } from './providers';
import { buildSamplingGraph } from './sampling-graph';
import type { ExpertCompute } from './transformer';

export interface SessionSettings {
  provider: ProviderChoice;
  intraOpThreads?: number;
  interOpThreads?: number;
  graphOptimization?: 'basic' | 'extended' | 'all';
  executionMode?: 'sequential' | 'parallel';
  spinning?: boolean;
  log?: (message: string) => void;
}

/** What of the settings goes to the session (placement and threads). */
function placement(settings: SessionSettings) {
  return {
    choice: settings.provider,
    intraOpThreads: settings.intraOpThreads,
    interOpThreads: settings.interOpThreads,
    graphOptimization: settings.graphOptimization,
    executionMode: settings.executionMode,
    spinning: settings.spinning,
  };
}

export interface LoadedPolicy {
  decoder: DecoderModel;
  provider: 'cpu' | 'cuda';
  fallbackReason: string | null;
  buildMs: number;
  createMs: number;
}

/**
 * Expert compute per graph, kept from the measurements of test/bench/model.bench.ts (`t1lab model bench`
 * measures both on any machine). Forward+backward over full sequences: sparse (k/E of the expert FLOPs
 * outweighs the extra ops) for nano and micro. Decoding: dense wins while the experts are small (nano at
 * batch 8: 3.2k vs 2.0k tok/s; one batched MatMul beats E gather/compute/scatter groups), sparse once they
 * are not (micro: 0.98k vs 0.36k tok/s at batch 8, 383 vs 128 at batch 1; dense streams every expert's
 * weights for a handful of tokens). The crossover sits between nano's 0.6M and micro's 1.6M expert
 * weights per layer.
 */
export const DENSE_DECODE_MAX_EXPERT_WEIGHTS = 1_000_000;
// 'fused' (onnxruntime's com.microsoft MoE op) is measured too: 5x fewer nodes, about as fast as sparse on
// this CPU (micro b8 5.7 vs 5.4 ms/step, one thread), faster for nano. It is not the default because its
// routing is recomputed inside the op: the routing outputs equal the experts used only up to exact ties,
// while dense and sparse use the very indices they output (what R3 replays must be what was computed).

export function samplingExpertCompute(config: ModelConfig): ExpertCompute {
  if (config.num_experts === 0) return 'dense';
  const perLayer = config.num_experts * 3 * config.hidden_size * config.moe_intermediate_size;
  return perLayer <= DENSE_DECODE_MAX_EXPERT_WEIGHTS ? 'dense' : 'sparse';
}
export const TRAINING_EXPERT_COMPUTE: ExpertCompute = 'sparse';

/** How the policy's sampling graph is built; the defaults are the fast forms, the others are for comparison. */
export interface PolicyGraphVariant {
  /** 'new' (default): the decoder keeps the cache; 'present': the common layout, the cache copied through every step. */
  cacheOutputs?: 'new' | 'present';
  /** Sample in the graph (default true); false: every row sampled in JavaScript from the logits. */
  samplingHead?: boolean;
  /** Sparse experts: gate and up as one product per expert (default true; the same values). */
  fuseGateUp?: boolean;
}

export async function loadT1Policy(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  settings: SessionSettings,
  expertCompute = samplingExpertCompute(config),
  variant: PolicyGraphVariant = {},
): Promise<LoadedPolicy> {
  const cacheOutputs = variant.cacheOutputs ?? 'new';
  const samplingHead = variant.samplingHead ?? true;
  // Past protobuf's 2 GiB the weights go to an external data file in a private folder, and the session
  // opens the model from there; the folder is removed once the session holds the weights.
  const external = weightBytes(weights) > externalDataThreshold() ? mkdtempSync(join(tmpdir(), 't1lab-onnx-')) : null;
  let placed: Awaited<ReturnType<typeof createPlacedSession>>;
  let graph: ReturnType<typeof buildSamplingGraph>;
  try {
    graph = buildSamplingGraph(config, weights, {
      expertCompute,
      cacheOutputs,
      samplingHead,
      fuseGateUp: variant.fuseGateUp ?? true,
      ...(external ? { externalData: join(external, 'model.onnx.data') } : {}),
    });
    if (external) writeFileSync(join(external, 'model.onnx'), graph.bytes);
    placed = await createPlacedSession(external ? join(external, 'model.onnx') : graph.bytes, placement(settings));
  } finally {
    if (external) rmSync(external, { recursive: true, force: true });
  }
  settings.log?.(
    `sampling graph: ${graph.nodeCount} nodes, ${(graph.bytes.length / 2 ** 20).toFixed(1)} MiB${external ? ' (weights as external data)' : ''}, built in ${graph.buildMs.toFixed(0)} ms; session on ${placed.provider} in ${placed.createMs.toFixed(0)} ms${placed.fallbackReason ? ` (${placed.fallbackReason})` : ''}`,
  );
  return {
    decoder: {
      session: placed.session,
      layers: config.num_hidden_layers,
      kvHeads: config.num_key_value_heads,
      headDim: config.head_dim,
      vocabSize: config.vocab_size,
      maxPositions: config.max_position_embeddings,
      routing: moeLayers(config).length > 0,
      cacheOutputs,
      samplingHead,
    },
    provider: placed.provider,
    fallbackReason: placed.fallbackReason,
    buildMs: graph.buildMs,
    createMs: placed.createMs,
  };
}

/** What we read from an external checkpoint's config.json (Hugging Face names); all optional. */
export interface ExternalConfig {
  vocab_size?: number;
  max_position_embeddings?: number;
  num_hidden_layers?: number;
  num_key_value_heads?: number;
  num_attention_heads?: number;
  hidden_size?: number;
  head_dim?: number;
}

/** Bytes of float32 weights (what the sampling graph's initializers hold). */
function weightBytes(weights: ReadonlyMap<string, Float32Array>): number {
  let n = 0;
  for (const w of weights.values()) n += w.byteLength;
  return n;
}

/** `model`: the model.onnx path (its external data, if any, beside it) or its bytes. */
export async function loadExternalPolicy(
  model: Uint8Array | string,
  hfConfig: ExternalConfig,
  settings: SessionSettings,
): Promise<LoadedPolicy> {
  const placed = await createPlacedSession(model, placement(settings));
  const session = placed.session;
  const inputs = session.inputShapes();
  for (const required of ['input_ids', 'attention_mask', 'position_ids', 'past_key_values.0.key']) {
    if (!inputs[required]) {
      await session.release();
      throw new Error(
        `model.onnx: input '${required}' is missing; expected the common layout (input_ids, attention_mask, position_ids, past_key_values.N.key/value)`,
      );
    }
  }
  if (!session.outputNames.includes('logits') || !session.outputNames.includes('present.0.key')) {
    await session.release();
    throw new Error("model.onnx: outputs 'logits' and 'present.N.key/value' are expected");
  }
  const layers = Object.keys(inputs).filter((n) => /^past_key_values\.\d+\.key$/.test(n)).length;
  const pastShape = inputs['past_key_values.0.key']!.shape;
  const kvHeads = typeof pastShape[1] === 'number' ? pastShape[1] : hfConfig.num_key_value_heads;
  const headDim =
    typeof pastShape[3] === 'number'
      ? pastShape[3]
      : (hfConfig.head_dim ??
        (hfConfig.hidden_size && hfConfig.num_attention_heads
          ? hfConfig.hidden_size / hfConfig.num_attention_heads
          : undefined));
  if (!kvHeads || !headDim) {
    await session.release();
    throw new Error('model.onnx: the cache shape (kv heads, head size) is neither in the graph nor in config.json');
  }
  return {
    decoder: {
      session,
      layers,
      kvHeads,
      headDim,
      vocabSize: hfConfig.vocab_size ?? Number.MAX_SAFE_INTEGER,
      maxPositions: hfConfig.max_position_embeddings ?? 2048,
      routing: false,
      cacheOutputs: 'present',
      samplingHead: false,
    },
    provider: placed.provider,
    fallbackReason: placed.fallbackReason,
    buildMs: 0,
    createMs: placed.createMs,
  };
}
