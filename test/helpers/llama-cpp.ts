/**
 * llama.cpp (node-llama-cpp's prebuilt CPU build) as an independent reference for the lab's engine, and
 * the lab's side of the same measurements. llama.cpp runs with an F32 KV cache and without flash
 * attention: both round queries or keys to F16 on the CPU (measured: log-prob differences of 4e-3 to
 * 2e-2 on the test models with them, 1e-5 without), which would hide the 1e-3 the comparison asks for.
 * One thread: llama.cpp's worker threads spin between steps, and on a loaded 2-core machine each call
 * took seconds with the default thread count (milliseconds with one).
 */
import { getLlama, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaModel } from 'node-llama-cpp';
import type { ModelConfig } from '../../native/model/config';
import { BatchDecoder } from '../../native/model/decoder';
import { GenerateOptions } from '../../native/model/policy-api';
import { loadT1Policy, samplingExpertCompute } from '../../native/model/policy-model';
import { buildSamplingGraph } from '../../native/model/sampling-graph';
import { RuntimeSession, type HostTensor } from '../../native/onnx/runtime';

let llamaPromise: Promise<Llama> | null = null;
function llama(): Promise<Llama> {
  llamaPromise ??= getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  return llamaPromise;
}

export class LlamaReference {
  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    /** One sequence, its history cleared before each use. */
    private readonly seq: LlamaContextSequence,
  ) {}

  static async open(ggufPath: string, contextSize = 256): Promise<LlamaReference> {
    const model = await (await llama()).loadModel({ modelPath: ggufPath });
    const context = await model.createContext({
      contextSize,
      threads: 1,
      flashAttention: false,
      experimentalKvCacheKeyType: 'F32',
      experimentalKvCacheValueType: 'F32',
    });
    return new LlamaReference(model, context, context.getSequence());
  }

  /** Per position of the prompt, the log-probability of every vocabulary id as the next token. */
  async logprobs(prompt: readonly number[], vocab: number): Promise<Float64Array[]> {
    const seq = this.seq;
    await seq.clearHistory();
    {
      const items = prompt.map(
        (t) =>
          [
            t,
            { generateNext: { probabilities: true, options: { temperature: 1, topK: 0, topP: 1, minP: 0 } } },
          ] as const,
      );
      const results = await seq.controlledEvaluate(items as never);
      return results.map((r, i) => {
        const probs = r?.next?.probabilities;
        if (!probs) throw new Error(`llama.cpp returned no probabilities at position ${i}`);
        return Float64Array.from({ length: vocab }, (_, t) => Math.log(probs.get(t as never) ?? 0));
      });
    }
  }

  /** Greedy continuation of `n` tokens (end-of-generation tokens included, nothing stops it): argmax, one token evaluated per step. */
  async greedy(prompt: readonly number[], n: number): Promise<number[]> {
    const seq = this.seq;
    await seq.clearHistory();
    const out: number[] = [];
    const next = { generateNext: { token: true, options: { temperature: 0 } } };
    {
      let items: unknown[] = [...prompt.slice(0, -1), [prompt[prompt.length - 1]!, next]];
      while (out.length < n) {
        const results = await seq.controlledEvaluate(items as never);
        const token = results[results.length - 1]?.next?.token;
        if (token === undefined || token === null) throw new Error('llama.cpp generated no token');
        out.push(token as number);
        items = [[token, next]];
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}

/** The lab's log-probabilities at every position of each prompt (the sampling graph with all logits, production options). */
export async function labLogprobs(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  prompt: readonly number[],
): Promise<Float64Array[]> {
  const graph = buildSamplingGraph(config, weights, {
    expertCompute: samplingExpertCompute(config),
    allLogits: true,
    fused: true,
    withoutRouting: true,
  });
  const session = await RuntimeSession.create(graph.bytes, { providers: ['cpu'] });
  try {
    const S = prompt.length;
    const ints = (values: number[]): HostTensor => ({
      dtype: 'int64',
      dims: [1, S],
      data: BigInt64Array.from(values.map(BigInt)),
    });
    const feeds: Record<string, HostTensor> = {
      input_ids: ints([...prompt]),
      attention_mask: ints(prompt.map(() => 1)),
      position_ids: ints(prompt.map((_, i) => i)),
    };
    for (let l = 0; l < config.num_hidden_layers; l++) {
      for (const kv of ['key', 'value'])
        feeds[`past_key_values.${l}.${kv}`] = {
          dtype: 'float32',
          dims: [1, config.num_key_value_heads, 0, config.head_dim],
          data: new Float32Array(0),
        };
    }
    const logits = (await session.run(feeds, ['logits'])).logits!.data as Float32Array;
    const V = config.vocab_size;
    return Array.from({ length: S }, (_, s) => {
      const row = logits.subarray(s * V, (s + 1) * V);
      let m = -Infinity;
      for (const x of row) m = Math.max(m, x);
      let sum = 0;
      for (const x of row) sum += Math.exp(x - m);
      const lse = m + Math.log(sum);
      return Float64Array.from(row, (x) => x - lse);
    });
  } finally {
    await session.release();
  }
}

/** The lab's greedy continuation through the policy's decoder (KV cache, sampling head). */
export async function labGreedy(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  prompts: readonly (readonly number[])[],
  n: number,
): Promise<number[][]> {
  const policy = await loadT1Policy(config, weights, { provider: 'cpu' });
  try {
    const decoder = new BatchDecoder(policy.decoder);
    const results = await Promise.all(
      prompts.map((p) =>
        decoder.generate([...p], { ...GenerateOptions.parse({ maxTokens: n, temperature: 0 }), seed: 1 }),
      ),
    );
    await decoder.close();
    return results.map((r) => r.tokens.map((t) => t.id));
  } finally {
    await policy.decoder.session.release();
  }
}

/** Largest |a - b| over tokens whose reference probability is above `floor` (log-probs of ~0 mass are noise in either engine). */
export function maxLogprobGap(a: readonly Float64Array[], b: readonly Float64Array[], floor = -30): number {
  let worst = 0;
  a.forEach((row, s) =>
    row.forEach((x, t) => {
      const y = b[s]![t]!;
      if (y > floor) worst = Math.max(worst, Math.abs(x - y));
    }),
  );
  return worst;
}
