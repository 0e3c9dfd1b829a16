/**
 * The engine's throughput, measured in one run against this machine's fp32 GEMM rate through onnxruntime
 * (the roofline): decode at batch 1 and 8, prefill, forward+backward, the KV-cache speedup at 1k context,
 * and dense vs sparse expert compute. Used by test/bench/model.bench.ts and `t1lab model bench`.
 * FLOP counts are the useful work (k of E experts), so dense expert compute is not credited for the
 * E/k extra it does.
 */
import { GraphBuilder } from '../onnx/graph';
import { RuntimeSession, type HostTensor } from '../onnx/runtime';
import { parameterSpecs, type ModelConfig } from './config';
import { BatchDecoder } from './decoder';
import { sftLoss } from './losses';
import { GenerateOptions } from './policy-api';
import { loadT1Policy } from './policy-model';
import { pastKeyName, pastValueName } from './sampling-graph';
import { buildTrainingGraph } from './training-graph';
import type { ExpertCompute } from './transformer';

export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  /** Fraction of the GEMM roofline (useful FLOP/s over GEMM FLOP/s), when it applies. */
  rooflineFraction?: number;
  goal?: string;
  met?: boolean;
}

export interface ModelBenchResult {
  roofline: { gflops: number; shape: string; threads: number };
  figures: BenchFigure[];
  notes: string[];
  fasterExpertCompute: { decode: ExpertCompute; training: ExpertCompute };
}

export interface ModelBenchOptions {
  quick: boolean;
  threads?: number;
  onFigure?: (f: BenchFigure) => void;
  onNote?: (text: string) => void;
}

/** Forward FLOPs of one token at a given attention context (multiply-add = 2). */
export function forwardFlopsPerToken(c: ModelConfig, context: number): number {
  const H = c.hidden_size;
  const q = c.num_attention_heads * c.head_dim;
  const kv = c.num_key_value_heads * c.head_dim;
  const perLayer = H * q + 2 * H * kv + q * H + H * c.num_experts + c.num_experts_per_tok * 3 * H * c.moe_intermediate_size;
  const attention = 2 * context * q; // scores + weighted values
  return 2 * (c.num_hidden_layers * perLayer + H * c.vocab_size) + 2 * c.num_hidden_layers * attention;
}

const now = () => performance.now();

async function timeIt(fn: () => Promise<unknown>, repeats: number, warmup = 1): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t = now();
    await fn();
    times.push(now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function measureGemmRoofline(threads: number | undefined, quick: boolean): Promise<{ gflops: number; shape: string }> {
  const M = 256;
  const K = 512;
  const N = 2048;
  const g = new GraphBuilder('gemm');
  g.input('A', 'float32', [M, K]);
  g.initializer('B', 'float32', [K, N], Float32Array.from({ length: K * N }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5));
  g.output(g.op('MatMul', ['A', 'B']), 'Y', 'float32', [M, N]);
  const s = await RuntimeSession.create(g.toModel(), { providers: ['cpu'], intraOpThreads: threads });
  const A: HostTensor = { dtype: 'float32', dims: [M, K], data: Float32Array.from({ length: M * K }, (_, i) => ((i * 104729) % 1000) / 1000 - 0.5) };
  const ms = await timeIt(() => s.run({ A }), quick ? 10 : 40, 3);
  await s.release();
  return { gflops: (2 * M * K * N) / ms / 1e6, shape: `${M}x${K}x${N}` };
}

export async function runModelBenchmark(config: ModelConfig, weights: ReadonlyMap<string, Float32Array>, options: ModelBenchOptions): Promise<ModelBenchResult> {
  const { quick, threads } = options;
  const figures: BenchFigure[] = [];
  const notes: string[] = [];
  const note = (t: string) => {
    notes.push(t);
    options.onNote?.(t);
  };
  const roof = await measureGemmRoofline(threads, quick);
  const figure = (f: BenchFigure) => {
    figures.push(f);
    options.onFigure?.(f);
  };
  figure({ name: `fp32 GEMM ${roof.shape} (roofline)`, value: roof.gflops, unit: 'GFLOP/s' });
  const fraction = (tokensPerSecond: number, flopsPerToken: number) => (tokensPerSecond * flopsPerToken) / 1e9 / roof.gflops;

  // ---- decoding through the real batched decoder ----
  const promptLength = quick ? 32 : 128;
  const newTokens = quick ? 16 : 64;
  const decodeRates: Record<string, number> = {};
  for (const expertCompute of ['dense', 'sparse'] as const) {
    const policy = await loadT1Policy(config, weights, { provider: 'cpu', intraOpThreads: threads }, expertCompute);
    for (const batch of [1, 8]) {
      const decoder = new BatchDecoder(policy.decoder);
      const run = () =>
        Promise.all(
          Array.from({ length: batch }, (_, i) =>
            decoder.generate(
              Array.from({ length: promptLength }, (_, t) => (t * 31 + i * 7) % config.vocab_size),
              { ...GenerateOptions.parse({ maxTokens: newTokens }), seed: i },
            ),
          ),
        );
      await run(); // warm-up
      const results = await run();
      const decodeMs = Math.max(...results.map((r) => r.timing.decodeMs));
      const tokens = results.reduce((n, r) => n + r.timing.steps, 0);
      const rate = (tokens / decodeMs) * 1000;
      decodeRates[`${expertCompute}-${batch}`] = rate;
      const frac = fraction(rate, forwardFlopsPerToken(config, promptLength + newTokens / 2));
      figure({
        name: `decode b${batch} (${expertCompute} experts)`,
        value: rate,
        unit: 'tok/s',
        rooflineFraction: frac,
        ...(batch === 8 && expertCompute === 'dense' ? { goal: '>= 40% of roofline', met: frac >= 0.4 } : {}),
      });
    }
    if (expertCompute === 'dense') {
      // prefill and KV-cache speedup on the raw session
      const session = policy.decoder.session;
      const L = config.num_hidden_layers;
      const feedsFor = (S: number, past: number): Record<string, HostTensor> => {
        const f: Record<string, HostTensor> = {
          input_ids: { dtype: 'int64', dims: [1, S], data: BigInt64Array.from({ length: S }, (_, i) => BigInt((i * 13) % config.vocab_size)) },
          position_ids: { dtype: 'int64', dims: [1, S], data: BigInt64Array.from({ length: S }, (_, i) => BigInt(past + i)) },
          attention_mask: { dtype: 'int64', dims: [1, past + S], data: new BigInt64Array(past + S).fill(1n) },
        };
        const dims = [1, config.num_key_value_heads, past, config.head_dim];
        const size = dims.reduce((a, b) => a * b, 1);
        for (let l = 0; l < L; l++) {
          f[pastKeyName(l)] = { dtype: 'float32', dims, data: Float32Array.from({ length: size }, (_, i) => Math.sin(i)) };
          f[pastValueName(l)] = { dtype: 'float32', dims, data: Float32Array.from({ length: size }, (_, i) => Math.cos(i)) };
        }
        return f;
      };
      const prefillLength = Math.min(quick ? 256 : 512, config.max_position_embeddings);
      const prefillFeeds = feedsFor(prefillLength, 0);
      const prefillMs = await timeIt(() => session.run(prefillFeeds, ['logits']), quick ? 2 : 5);
      const prefillRate = (prefillLength / prefillMs) * 1000;
      figure({ name: `prefill ${prefillLength} tokens`, value: prefillRate, unit: 'tok/s', rooflineFraction: fraction(prefillRate, forwardFlopsPerToken(config, prefillLength / 2)) });
      const context = Math.min(1024, config.max_position_embeddings);
      const stepFeeds = feedsFor(1, context - 1);
      const recomputeFeeds = feedsFor(context, 0);
      const stepMs = await timeIt(() => session.run(stepFeeds, ['logits']), quick ? 5 : 20);
      const recomputeMs = await timeIt(() => session.run(recomputeFeeds, ['logits']), quick ? 2 : 3);
      figure({ name: `KV cache vs recompute at ${context} context`, value: recomputeMs / stepMs, unit: 'x faster' });
      note(`one step at ${context} context: ${stepMs.toFixed(2)} ms with the cache, ${recomputeMs.toFixed(1)} ms recomputing the prefix`);
    }
    await policy.decoder.session.release();
  }

  // ---- forward + backward (SFT loss) ----
  const B = quick ? 4 : 8;
  const T = quick ? 32 : 64;
  const trainRates: Record<string, number> = {};
  for (const expertCompute of ['dense', 'sparse'] as const) {
    const t0 = now();
    const graph = buildTrainingGraph(config, { batch: B, length: T, dtype: 'float32', expertCompute, forcedRouting: false, loss: sftLoss });
    const buildMs = now() - t0;
    const t1 = now();
    const session = await RuntimeSession.create(graph.bytes, { providers: ['cpu'], intraOpThreads: threads });
    const createMs = now() - t1;
    note(`training graph B=${B} T=${T} ${expertCompute}: ${graph.nodeCount} nodes, built in ${buildMs.toFixed(0)} ms, session in ${createMs.toFixed(0)} ms`);
    const feeds: Record<string, HostTensor> = {
      input_ids: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt((i * 17) % config.vocab_size)) },
      targets: { dtype: 'int64', dims: [B, T], data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt((i * 29) % config.vocab_size)) },
      attention_mask: { dtype: 'float32', dims: [B, T], data: new Float32Array(B * T).fill(1) },
      loss_mask: { dtype: 'float32', dims: [B, T], data: new Float32Array(B * T).fill(1) },
      aux_coef: { dtype: 'float32', dims: [], data: Float32Array.from([0.01]) },
    };
    for (const p of parameterSpecs(config)) feeds[p.name] = { dtype: 'float32', dims: p.shape, data: weights.get(p.name)! };
    const ms = await timeIt(() => session.run(feeds), quick ? 2 : 4);
    await session.release();
    const rate = ((B * T) / ms) * 1000;
    trainRates[expertCompute] = rate;
    const frac = fraction(rate, 3 * forwardFlopsPerToken(config, T / 2));
    figure({
      name: `forward+backward B=${B} T=${T} (${expertCompute} experts)`,
      value: rate,
      unit: 'tok/s',
      rooflineFraction: frac,
      ...(expertCompute === 'dense' ? { goal: '>= 40% of roofline', met: frac >= 0.4 } : {}),
    });
  }
  const decode: ExpertCompute = (decodeRates['sparse-8'] ?? 0) > (decodeRates['dense-8'] ?? 0) ? 'sparse' : 'dense';
  const training: ExpertCompute = (trainRates.sparse ?? 0) > (trainRates.dense ?? 0) ? 'sparse' : 'dense';
  note(`faster expert compute here: decoding ${decode}, training ${training}`);
  return { roofline: { ...roof, threads: threads ?? 0 }, figures, notes, fasterExpertCompute: { decode, training } };
}
