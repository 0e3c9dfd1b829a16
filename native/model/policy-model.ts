/**
 * A loaded policy: the sampling session (on the chosen provider) and what the decoder needs to drive it.
 * Our checkpoints build their graph from config + weights; external ONNX LLM exports (the common layout:
 * input_ids, attention_mask, position_ids, past_key_values.N.key/value -> logits, present.N.key/value)
 * load as they are, for evaluation, without routing.
 */
import type { ModelConfig } from './config';
import type { DecoderModel } from './decoder';
import { createPlacedSession, type ProviderChoice } from './providers';
import { buildSamplingGraph } from './sampling-graph';
import type { ExpertCompute } from './transformer';

export interface SessionSettings {
  provider: ProviderChoice;
  intraOpThreads?: number;
  interOpThreads?: number;
  log?: (message: string) => void;
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
 * re-measures on any machine): decoding at batch 8 is faster dense (one batched MatMul beats E groups of
 * gather/compute/scatter on a handful of tokens); forward+backward over full sequences is faster sparse
 * (k/E of the expert FLOPs outweighs the extra ops).
 */
export const SAMPLING_EXPERT_COMPUTE: ExpertCompute = 'dense';
export const TRAINING_EXPERT_COMPUTE: ExpertCompute = 'sparse';

export async function loadT1Policy(config: ModelConfig, weights: ReadonlyMap<string, Float32Array>, settings: SessionSettings, expertCompute = SAMPLING_EXPERT_COMPUTE): Promise<LoadedPolicy> {
  const graph = buildSamplingGraph(config, weights, { expertCompute });
  const placed = await createPlacedSession(graph.bytes, { choice: settings.provider, intraOpThreads: settings.intraOpThreads, interOpThreads: settings.interOpThreads });
  settings.log?.(
    `sampling graph: ${graph.nodeCount} nodes, ${(graph.bytes.length / 2 ** 20).toFixed(1)} MiB, built in ${graph.buildMs.toFixed(0)} ms; session on ${placed.provider} in ${placed.createMs.toFixed(0)} ms${placed.fallbackReason ? ` (${placed.fallbackReason})` : ''}`,
  );
  return {
    decoder: {
      session: placed.session,
      layers: config.num_hidden_layers,
      kvHeads: config.num_key_value_heads,
      headDim: config.head_dim,
      vocabSize: config.vocab_size,
      maxPositions: config.max_position_embeddings,
      routing: true,
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

export async function loadExternalPolicy(model: Uint8Array, hfConfig: ExternalConfig, settings: SessionSettings): Promise<LoadedPolicy> {
  const placed = await createPlacedSession(model, { choice: settings.provider, intraOpThreads: settings.intraOpThreads, interOpThreads: settings.interOpThreads });
  const session = placed.session;
  const inputs = session.inputShapes();
  for (const required of ['input_ids', 'attention_mask', 'position_ids', 'past_key_values.0.key']) {
    if (!inputs[required]) {
      await session.release();
      throw new Error(`model.onnx: input '${required}' is missing; expected the common layout (input_ids, attention_mask, position_ids, past_key_values.N.key/value)`);
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
    typeof pastShape[3] === 'number' ? pastShape[3] : (hfConfig.head_dim ?? (hfConfig.hidden_size && hfConfig.num_attention_heads ? hfConfig.hidden_size / hfConfig.num_attention_heads : undefined));
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
    },
    provider: placed.provider,
    fallbackReason: placed.fallbackReason,
    buildMs: 0,
    createMs: placed.createMs,
  };
}
