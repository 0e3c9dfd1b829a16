/**
 * The engine's throughput, measured in one run against this machine's fp32 GEMM rate through onnxruntime
 * (the roofline): decode at batch 1 and 8 per expert compute; the policy's own graph at batch 1-64 and at
 * a long context, each against the same graph in the common layout (the cache copied through every step);
 * prefill, forward+backward, and the KV-cache speedup at 1k context. Used by test/bench/model.bench.ts and `t1lab model bench`.
 * FLOP counts are the useful work (k of E experts), so dense expert compute is not credited for the
 * E/k extra it does.
 */
import { GraphBuilder } from '../onnx/graph';
import { RuntimeSession, type HostTensor } from '../onnx/runtime';
import { parameterSpecs, type ModelConfig } from './config';
import { BatchDecoder, type DecoderModel } from './decoder';
import { sftLoss } from './losses';
import { GenerateOptions } from './policy-api';
import { loadT1Policy, samplingExpertCompute } from './policy-model';
import { pastKeyName, pastValueName } from './sampling-graph';
import { SAMPLE_INV_TEMPERATURE, SAMPLE_UNIFORM } from './sampling-head';
import { buildTrainingGraph } from './training-graph';
import type { ExpertCompute } from './transformer';

export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  /** Fraction of the GEMM roofline (useful FLOP/s over GEMM FLOP/s), when it applies. */
  rooflineFraction?: number;
  /** The same work done the way the lab did it before, measured in the same run; ratio = value / baseline. */
  baseline?: { name: string; value: number; unit: string };
  ratio?: number;
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
  const perLayer =
    H * q + 2 * H * kv + q * H + H * c.num_experts + c.num_experts_per_tok * 3 * H * c.moe_intermediate_size;
  const attention = 2 * context * q; // scores + weighted values
  return 2 * (c.num_hidden_layers * perLayer + H * c.vocab_size) + 2 * c.num_hidden_layers * attention;
}

const now = () => performance.now();

/** The best time of `repeats` runs after `warmup`: the machine is shared, the minimum is the code's own cost. */
export async function timeIt(fn: () => Promise<unknown>, repeats: number, warmup = 1): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  let best = Infinity;
  for (let i = 0; i < repeats; i++) {
    const t = now();
    await fn();
    best = Math.min(best, now() - t);
  }
  return best;
}

export async function measureGemmRoofline(
  threads: number | undefined,
  quick: boolean,
): Promise<{ gflops: number; shape: string }> {
  const M = 256;
  const K = 512;
  const N = 2048;
  const g = new GraphBuilder('gemm');
  g.input('A', 'float32', [M, K]);
  g.initializer(
    'B',
    'float32',
    [K, N],
    Float32Array.from({ length: K * N }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5),
  );
  g.output(g.op('MatMul', ['A', 'B']), 'Y', 'float32', [M, N]);
  const s = await RuntimeSession.create(g.toModel(), { providers: ['cpu'], intraOpThreads: threads });
  const A: HostTensor = {
    dtype: 'float32',
    dims: [M, K],
    data: Float32Array.from({ length: M * K }, (_, i) => ((i * 104729) % 1000) / 1000 - 0.5),
  };
  // The peak: the fastest of several runs (other processes share this machine's cores).
  for (let i = 0; i < 3; i++) await s.run({ A });
  let ms = Infinity;
  for (let i = 0; i < (quick ? 15 : 60); i++) {
    const t = now();
    await s.run({ A });
    ms = Math.min(ms, now() - t);
  }
  await s.release();
  return { gflops: (2 * M * K * N) / ms / 1e6, shape: `${M}x${K}x${N}` };
}

/**
 * What onnxruntime's MatMul reaches at a decoding step's own shapes: a chain of `links` products of
 * M x K by distinct K x K weights in one run (so the binding's cost per run is spread), GFLOP/s. At batch
 * 64 with 8 experts and top-2 an expert sees about 16 rows, and this says how far such products get
 * toward the roofline measured at 256 x 512 x 2048, whatever the graph around them does.
 */
export async function measureGemmChain(
  M: number,
  K: number,
  threads: number | undefined,
  quick: boolean,
): Promise<number> {
  const links = 32;
  const g = new GraphBuilder('gemm_chain');
  g.input('A', 'float32', [M, K]);
  let x = 'A';
  for (let i = 0; i < links; i++) {
    // Scaled so that values stay near 1 through the chain.
    const w = g.initializer(
      `W${i}`,
      'float32',
      [K, K],
      Float32Array.from(
        { length: K * K },
        (_, j) => ((((j + i * 131) * 7919) % 1000) / 1000 - 0.5) * (2 / Math.sqrt(K)),
      ),
    );
    x = g.op('MatMul', [x, w]);
  }
  g.output(x, 'Y', 'float32', [M, K]);
  const s = await RuntimeSession.create(g.toModel(), { providers: ['cpu'], intraOpThreads: threads });
  const A: HostTensor = {
    dtype: 'float32',
    dims: [M, K],
    data: Float32Array.from({ length: M * K }, (_, i) => ((i * 104729) % 1000) / 1000 - 0.5),
  };
  const ms = await timeIt(() => s.run({ A }), quick ? 10 : 40, 3);
  await s.release();
  return (2 * M * K * K * links) / ms / 1e6;
}

/**
 * Memory bandwidth inside onnxruntime: fill 64 MiB (write), add one (read + write), sum it (read), so
 * 16 bytes per float move and only a scalar crosses into JavaScript. Best of several runs.
 */
export async function measureBandwidth(threads: number | undefined, quick: boolean): Promise<number> {
  const n = 16 * 2 ** 20;
  const g = new GraphBuilder('bandwidth');
  g.input('shape', 'int64', [1]);
  const filled = g.op('ConstantOfShape', ['shape'], {
    value: { kind: 'tensor', value: { name: '', dtype: 'float32', dims: [1], data: Float32Array.from([0.5]) } },
  });
  g.output(g.op('ReduceSum', [g.op('Add', [filled, g.scalar('float32', 1)])], { keepdims: 0 }), 'y', 'float32', []);
  const s = await RuntimeSession.create(g.toModel(), { providers: ['cpu'], intraOpThreads: threads });
  const shape: HostTensor = { dtype: 'int64', dims: [1], data: BigInt64Array.from([BigInt(n)]) };
  const ms = await timeIt(() => s.run({ shape }), quick ? 5 : 15, 2);
  await s.release();
  return (16 * n) / ms / 1e6; // GB/s
}

export async function runModelBenchmark(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  options: ModelBenchOptions,
): Promise<ModelBenchResult> {
  const roof = await measureGemmRoofline(options.threads, options.quick);
  const bench = new BenchRun(config, weights, options, roof);
  const decodeRates = await bench.decodeByExpertCompute();
  await bench.policyGraph();
  const trainRates = await bench.forwardBackward();
  const shapeRates = await bench.decodeShapes();
  const peak = await bench.finish(shapeRates);
  const decode = (['dense', 'sparse', 'fused'] as const).reduce<ExpertCompute>(
    (best, e) => ((decodeRates[`${e}-8`] ?? 0) > (decodeRates[`${best}-8`] ?? 0) ? e : best),
    'dense',
  );
  const training: ExpertCompute = (trainRates.sparse ?? 0) > (trainRates.dense ?? 0) ? 'sparse' : 'dense';
  bench.note(`faster expert compute here: decoding ${decode}, training ${training}`);
  return {
    roofline: { gflops: peak, shape: roof.shape, threads: options.threads ?? 0 },
    figures: bench.figures,
    notes: bench.notes,
    fasterExpertCompute: { decode, training },
  };
}

type ShapeRate = { batch: number; rows: number; expertRate: number; projectionRate: number };

/** One benchmark run: its settings, the figures and notes so far, and each throughput's useful GFLOP/s. */
class BenchRun {
  readonly figures: BenchFigure[] = [];
  readonly notes: string[] = [];
  /** Fractions are filled in at the end, against the better of the roofline measured before and after. */
  private readonly useful = new Map<BenchFigure, { gflops: number; goal: number | undefined }>();
  private readonly rooflineFigure: BenchFigure;
  private readonly quick: boolean;
  private readonly threads: number | undefined;
  private readonly promptLength: number;
  private readonly newTokens: number;
  private readonly rounds: number;

  constructor(
    private readonly config: ModelConfig,
    private readonly weights: ReadonlyMap<string, Float32Array>,
    private readonly options: ModelBenchOptions,
    private readonly roof: { gflops: number; shape: string },
  ) {
    this.quick = options.quick;
    this.threads = options.threads;
    this.promptLength = this.quick ? 32 : 128;
    this.newTokens = this.quick ? 16 : 64;
    this.rounds = this.quick ? 2 : 4;
    this.rooflineFigure = { name: `fp32 GEMM ${roof.shape} (roofline)`, value: roof.gflops, unit: 'GFLOP/s' };
    this.figure(this.rooflineFigure);
  }

  note(t: string): void {
    this.notes.push(t);
    this.options.onNote?.(t);
  }

  private figure(f: BenchFigure): void {
    this.figures.push(f);
  }

  /** A rate with its useful FLOP/s; `goal`: the share of the roofline it should reach. */
  private throughput(
    f: Omit<BenchFigure, 'rooflineFraction' | 'goal' | 'met'>,
    flopsPerToken: number,
    goal?: number,
  ): void {
    const full: BenchFigure = { ...f };
    this.useful.set(full, { gflops: (f.value * flopsPerToken) / 1e9, goal });
    this.figure(full);
    this.note(`${f.name}: ${f.value.toFixed(0)} ${f.unit}`);
  }

  private loadPolicy(expertCompute: ExpertCompute, extra?: Parameters<typeof loadT1Policy>[4]) {
    return loadT1Policy(
      this.config,
      this.weights,
      { provider: 'cpu', intraOpThreads: this.threads },
      expertCompute,
      extra,
    );
  }

  /**
   * Decode rates (tok/s) of `batch` concurrent requests on each model, the best of a few rounds after a
   * warm-up. The models' rounds alternate, so that a comparison is not decided by the load drifting
   * between two back-to-back measurements (0.8-1.4x between identical runs on this machine).
   */
  private async decodeRatesOf(
    models: readonly DecoderModel[],
    batch: number,
    prompt: number,
    tokens: number,
  ): Promise<number[]> {
    const { config } = this;
    const decoders = models.map((m) => new BatchDecoder(m, { maxBatch: batch, prefixCacheFloats: 0 }));
    const run = (decoder: BatchDecoder) =>
      Promise.all(
        Array.from({ length: batch }, (_, i) =>
          decoder.generate(
            Array.from({ length: prompt }, (_, t) => (t * 31 + i * 7) % config.vocab_size),
            { ...GenerateOptions.parse({ maxTokens: tokens }), seed: i },
          ),
        ),
      );
    for (const d of decoders) await run(d); // warm-up
    const rates = models.map(() => 0);
    for (let round = 0; round < this.rounds; round++) {
      for (const [i, d] of decoders.entries()) {
        const results = await run(d);
        const decodeMs = Math.max(...results.map((r) => r.timing.decodeMs));
        rates[i] = Math.max(rates[i]!, (results.reduce((n, r) => n + r.timing.steps, 0) / decodeMs) * 1000);
      }
    }
    for (const d of decoders) await d.close();
    return rates;
  }

  /** Decoding through the real batched decoder at batch 1 and 8, per expert compute. */
  async decodeByExpertCompute(): Promise<Record<string, number>> {
    const decodeRates: Record<string, number> = {};
    for (const expertCompute of ['dense', 'sparse', 'fused'] as const) {
      const policy = await this.loadPolicy(expertCompute);
      for (const batch of [1, 8]) {
        const rate = (await this.decodeRatesOf([policy.decoder], batch, this.promptLength, this.newTokens))[0]!;
        decodeRates[`${expertCompute}-${batch}`] = rate;
        this.throughput(
          { name: `decode b${batch} (${expertCompute} experts)`, value: rate, unit: 'tok/s' },
          forwardFlopsPerToken(this.config, this.promptLength + this.newTokens / 2),
        );
      }
      await policy.decoder.session.release();
    }
    return decodeRates;
  }

  /** The policy's own graph: batch sizes with the cache kept in place vs copied each step, the sampling head, gate+up, a long context, prefill. */
  async policyGraph(): Promise<void> {
    const policyCompute = samplingExpertCompute(this.config);
    const inPlace = await this.loadPolicy(policyCompute);
    const copied = await this.loadPolicy(policyCompute, { cacheOutputs: 'present' });
    const batches = this.quick ? [1, 8, 32] : [1, 8, 32, 64];
    for (const batch of batches) {
      const [rate, before] = (await this.decodeRatesOf(
        [inPlace.decoder, copied.decoder],
        batch,
        this.promptLength,
        this.newTokens,
      )) as [number, number];
      this.throughput(
        {
          name: `decode b${batch} (policy graph: ${policyCompute} experts, cache in place)`,
          value: rate,
          unit: 'tok/s',
          baseline: { name: 'cache copied through each step (common layout)', value: before, unit: 'tok/s' },
          ratio: rate / before,
        },
        forwardFlopsPerToken(this.config, this.promptLength + this.newTokens / 2),
        batch >= 32 ? 0.4 : undefined,
      );
    }
    await this.samplingHead(inPlace.decoder, policyCompute, batches[batches.length - 1]!);
    if (policyCompute === 'sparse') await this.fusedGateUp(inPlace.decoder, policyCompute);
    await this.longContext(inPlace.decoder, copied.decoder);
    await copied.decoder.session.release();
    await this.prefillAndCache(inPlace.decoder.session, policyCompute);
    await inPlace.decoder.session.release();
  }

  /** Sampling in the graph against sampling every row in JavaScript, at the largest batch. */
  private async samplingHead(inPlace: DecoderModel, policyCompute: ExpertCompute, largest: number): Promise<void> {
    const jsSampled = await this.loadPolicy(policyCompute, { samplingHead: false });
    const [headRate, jsRate] = (await this.decodeRatesOf(
      [inPlace, jsSampled.decoder],
      largest,
      this.promptLength,
      this.newTokens,
    )) as [number, number];
    this.figure({
      name: `decode b${largest}, sampling in the graph`,
      value: headRate,
      unit: 'tok/s',
      baseline: { name: 'every row sampled in JavaScript', value: jsRate, unit: 'tok/s' },
      ratio: headRate / jsRate,
    });
    await jsSampled.decoder.session.release();
  }

  /** Gate and up as one product per expert against two, at batch 32 (where it was measured to matter). */
  private async fusedGateUp(inPlace: DecoderModel, policyCompute: ExpertCompute): Promise<void> {
    const separate = await this.loadPolicy(policyCompute, { fuseGateUp: false });
    const [fusedRate, separateRate] = (await this.decodeRatesOf(
      [inPlace, separate.decoder],
      32,
      this.promptLength,
      this.newTokens,
    )) as [number, number];
    this.figure({
      name: 'decode b32, gate and up as one product per expert',
      value: fusedRate,
      unit: 'tok/s',
      baseline: { name: 'two products', value: separateRate, unit: 'tok/s' },
      ratio: fusedRate / separateRate,
    });
    await separate.decoder.session.release();
  }

  /** Long episodes: the copied cache grows with the context, the in-place one does not. */
  private async longContext(inPlace: DecoderModel, copied: DecoderModel): Promise<void> {
    const longPrompt = Math.min(this.quick ? 512 : 1024, this.config.max_position_embeddings - 64);
    const longTokens = this.quick ? 8 : 16;
    const [longRate, longBefore] = (await this.decodeRatesOf([inPlace, copied], 8, longPrompt, longTokens)) as [
      number,
      number,
    ];
    this.throughput(
      {
        name: `decode b8 at ${longPrompt} context (cache in place)`,
        value: longRate,
        unit: 'tok/s',
        baseline: { name: 'cache copied through each step', value: longBefore, unit: 'tok/s' },
        ratio: longRate / longBefore,
      },
      forwardFlopsPerToken(this.config, longPrompt + longTokens / 2),
    );
  }

  /** Prefill and the KV-cache speedup on the raw session of the policy's graph. */
  private async prefillAndCache(session: RuntimeSession, policyCompute: ExpertCompute): Promise<void> {
    const { config, quick } = this;
    const prefillLength = Math.min(quick ? 256 : 512, config.max_position_embeddings);
    const prefillFeeds = decodeFeeds(config, prefillLength, 0);
    const prefillMs = await timeIt(() => session.run(prefillFeeds, ['logits']), quick ? 2 : 5);
    const prefillRate = (prefillLength / prefillMs) * 1000;
    this.throughput(
      {
        name: `prefill ${prefillLength} tokens (policy graph: ${policyCompute} experts)`,
        value: prefillRate,
        unit: 'tok/s',
      },
      forwardFlopsPerToken(config, prefillLength / 2),
      0.5,
    );
    const context = Math.min(1024, config.max_position_embeddings);
    const stepFeeds = decodeFeeds(config, 1, context - 1);
    const recomputeFeeds = decodeFeeds(config, context, 0);
    const stepMs = await timeIt(() => session.run(stepFeeds, ['logits']), quick ? 5 : 20);
    const recomputeMs = await timeIt(() => session.run(recomputeFeeds, ['logits']), quick ? 2 : 3);
    this.figure({ name: `KV cache vs recompute at ${context} context`, value: recomputeMs / stepMs, unit: 'x faster' });
    this.note(
      `one step at ${context} context: ${stepMs.toFixed(2)} ms with the cache, ${recomputeMs.toFixed(1)} ms recomputing the prefix`,
    );
  }

  /** Forward + backward of the SFT loss, dense and sparse experts. */
  async forwardBackward(): Promise<Record<string, number>> {
    const { config, quick } = this;
    const B = quick ? 4 : 8;
    const T = quick ? 32 : 64;
    const trainRates: Record<string, number> = {};
    for (const expertCompute of ['dense', 'sparse'] as const) {
      const t0 = now();
      const graph = buildTrainingGraph(config, {
        batch: B,
        length: T,
        dtype: 'float32',
        expertCompute,
        forcedRouting: false,
        loss: sftLoss,
      });
      const buildMs = now() - t0;
      const t1 = now();
      const session = await RuntimeSession.create(graph.bytes, { providers: ['cpu'], intraOpThreads: this.threads });
      const createMs = now() - t1;
      this.note(
        `training graph B=${B} T=${T} ${expertCompute}: ${graph.nodeCount} nodes, built in ${buildMs.toFixed(0)} ms, session in ${createMs.toFixed(0)} ms`,
      );
      const feeds = trainingFeeds(config, this.weights, B, T);
      const ms = await timeIt(() => session.run(feeds), quick ? 2 : 4);
      await session.release();
      const rate = ((B * T) / ms) * 1000;
      trainRates[expertCompute] = rate;
      this.throughput(
        { name: `forward+backward B=${B} T=${T} (${expertCompute} experts)`, value: rate, unit: 'tok/s' },
        3 * forwardFlopsPerToken(config, T / 2),
        0.4,
      );
    }
    return trainRates;
  }

  /** What the kernels reach at decoding's own shapes: the ceiling a decode step's GEMMs put on it. */
  async decodeShapes(): Promise<ShapeRate[]> {
    const { config, threads, quick } = this;
    const shapeRates: ShapeRate[] = [];
    for (const batch of quick ? [8, 32] : [8, 32, 64]) {
      const rows = Math.max(1, Math.round((batch * config.num_experts_per_tok) / config.num_experts));
      const expertRate = await measureGemmChain(rows, config.hidden_size, threads, quick);
      shapeRates.push({
        batch,
        rows,
        expertRate,
        projectionRate: await measureGemmChain(batch, config.hidden_size, threads, quick),
      });
    }
    return shapeRates;
  }

  /**
   * The roofline measured again (the better of the two is used), memory bandwidth and the decode ceiling
   * it implies, each throughput's share of the roofline, the shape figures; the figures reported. The peak.
   */
  async finish(shapeRates: ShapeRate[]): Promise<number> {
    const { config, threads, quick, roof } = this;
    // Measured again at the end: the roofline is the better of the two (the machine is shared and noisy).
    const after = await measureGemmRoofline(threads, quick);
    this.note(
      `roofline measured before and after: ${roof.gflops.toFixed(1)} and ${after.gflops.toFixed(1)} GFLOP/s; the better one is used`,
    );
    const peak = Math.max(roof.gflops, after.gflops);
    this.rooflineFigure.value = peak;
    // Decoding reads every weight once per step for B tokens (2B FLOP per 4-byte weight): memory bandwidth,
    // not the GEMM rate, bounds it. This says how far the roofline goal is reachable at batch 8 at all.
    const bandwidth = await measureBandwidth(threads, quick);
    this.figure({ name: 'memory bandwidth (x + 1 over 64 MiB)', value: bandwidth, unit: 'GB/s' });
    const ceiling = Math.min(1, (bandwidth * ((2 * 8) / 4)) / peak);
    this.figure({ name: 'decode b8 ceiling from bandwidth', value: ceiling * 100, unit: '% of roofline' });
    this.note(
      `decoding 8 tokens per step does 4 FLOP per weight byte: at ${bandwidth.toFixed(1)} GB/s that is at most ${(ceiling * 100).toFixed(0)}% of the GEMM roofline`,
    );
    for (const [f, u] of this.useful) {
      f.rooflineFraction = u.gflops / peak;
      if (u.goal !== undefined) {
        f.goal = `>= ${(u.goal * 100).toFixed(0)}% of roofline`;
        f.met = f.rooflineFraction >= u.goal;
      }
    }
    for (const r of shapeRates) {
      this.figure({
        name: `MatMul ${r.rows}x${config.hidden_size}x${config.hidden_size} (an expert's rows at decode b${r.batch}), chained`,
        value: r.expertRate,
        unit: 'GFLOP/s',
        rooflineFraction: r.expertRate / peak,
      });
      this.figure({
        name: `MatMul ${r.batch}x${config.hidden_size}x${config.hidden_size} (a projection at decode b${r.batch}), chained`,
        value: r.projectionRate,
        unit: 'GFLOP/s',
        rooflineFraction: r.projectionRate / peak,
      });
    }
    for (const f of this.figures) this.options.onFigure?.(f);
    return peak;
  }
}

/** Feeds of the policy's sampling graph: S new tokens after `past` cached ones (the cache filled with sin and cos). */
function decodeFeeds(config: ModelConfig, S: number, past: number): Record<string, HostTensor> {
  const f: Record<string, HostTensor> = {
    input_ids: {
      dtype: 'int64',
      dims: [1, S],
      data: BigInt64Array.from({ length: S }, (_, i) => BigInt((i * 13) % config.vocab_size)),
    },
    position_ids: { dtype: 'int64', dims: [1, S], data: BigInt64Array.from({ length: S }, (_, i) => BigInt(past + i)) },
    attention_mask: { dtype: 'int64', dims: [1, past + S], data: new BigInt64Array(past + S).fill(1n) },
    [SAMPLE_UNIFORM]: { dtype: 'float32', dims: [1], data: Float32Array.from([0.5]) },
    [SAMPLE_INV_TEMPERATURE]: { dtype: 'float32', dims: [1], data: Float32Array.from([1]) },
  };
  const dims = [1, config.num_key_value_heads, past, config.head_dim];
  const size = dims.reduce((a, b) => a * b, 1);
  for (let l = 0; l < config.num_hidden_layers; l++) {
    f[pastKeyName(l)] = { dtype: 'float32', dims, data: Float32Array.from({ length: size }, (_, i) => Math.sin(i)) };
    f[pastValueName(l)] = { dtype: 'float32', dims, data: Float32Array.from({ length: size }, (_, i) => Math.cos(i)) };
  }
  return f;
}

/** Feeds of the SFT training graph: a B x T batch of fixed tokens and targets, every position in the loss, and the weights. */
function trainingFeeds(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  B: number,
  T: number,
): Record<string, HostTensor> {
  const feeds: Record<string, HostTensor> = {
    input_ids: {
      dtype: 'int64',
      dims: [B, T],
      data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt((i * 17) % config.vocab_size)),
    },
    targets: {
      dtype: 'int64',
      dims: [B, T],
      data: BigInt64Array.from({ length: B * T }, (_, i) => BigInt((i * 29) % config.vocab_size)),
    },
    attention_mask: { dtype: 'float32', dims: [B, T], data: new Float32Array(B * T).fill(1) },
    loss_mask: { dtype: 'float32', dims: [B, T], data: new Float32Array(B * T).fill(1) },
    aux_coef: { dtype: 'float32', dims: [], data: Float32Array.from([0.01]) },
  };
  for (const p of parameterSpecs(config))
    feeds[p.name] = { dtype: 'float32', dims: p.shape, data: weights.get(p.name)! };
  return feeds;
}
