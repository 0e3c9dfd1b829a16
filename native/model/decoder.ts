/**
 * Batched decoding over one sampling session. Requests (episodes) join and leave at step boundaries: a
 * joiner is prefilled alone, then its KV cache is merged into the batch cache, left-padded to a common
 * length (padding slots are masked out by attention_mask); every step feeds each row's pending token at
 * its own position. With a graph that outputs only the new keys and values (`cacheOutputs: 'new'`, ours),
 * the batch cache has spare slots (masked out) and each step's keys and values are written into the next
 * one: the cache crosses into onnxruntime without a copy and nothing of it comes back, so a step costs the
 * same at any context instead of copying the whole cache twice. With the common layout (external exports:
 * `present` = past + new), the step's present replaces the cache. A sampled token's routing is what the model computed when that token was processed,
 * one step after it was sampled; a finished row stays for that one step so its last token has routing too.
 */
import type { HostTensor, RuntimeSession } from '../onnx/runtime';
import type { GenerateResult, ResolvedGenerateOptions, SampledToken, StopReason, TokenRouting } from './policy-api';
import { topAlternatives, TokenSampler, type TokenPick } from './sampler';
import { SAMPLE_INV_TEMPERATURE, SAMPLE_OUTPUTS, SAMPLE_UNIFORM } from './sampling-head';
import {
  newKeyName,
  newValueName,
  pastKeyName,
  pastValueName,
  presentKeyName,
  presentValueName,
} from './sampling-graph';

export interface DecoderModel {
  session: RuntimeSession;
  layers: number;
  kvHeads: number;
  headDim: number;
  vocabSize: number;
  maxPositions: number;
  /** Whether the graph has routing.experts / routing.gates outputs (ours do; external exports do not). */
  routing: boolean;
  /**
   * 'present' (the common layout): present.L.key/value hold past + new. 'new': new_key_values.L.key/value
   * hold only the tokens just processed, and the past is read in place (sampling-graph.ts).
   */
  cacheOutputs: 'present' | 'new';
  /**
   * Whether the graph samples too (sampling-head.ts: inputs sample_uniform / sample_inv_temperature,
   * outputs sample.*): untruncated and greedy rows then take their token from it, and the logits are
   * fetched only for a step with a top-k or top-p row.
   */
  samplingHead: boolean;
}

/** Spare cache slots are added in blocks of this many: one cache copy per block of steps. */
export const CACHE_SLOT_BLOCK = 32;

export interface DecoderOptions {
  /** Rows decoded together at most; more requests wait for a free row. */
  maxBatch?: number;
  /**
   * Floats of KV cache kept from finished requests so that a later prompt sharing their prefix (the next
   * turn of an episode: previous prompt + sampled tokens + observation) prefills only what is new.
   * Default 32M (128 MiB); 0 turns the prefix cache off.
   */
  prefixCacheFloats?: number;
  /** Decodes ids for stop-sequence checks (the checkpoint's tokenizer). */
  decode?: (ids: number[]) => string;
  log?: (message: string) => void;
  /**
   * Wait this long after every decoding step (default 0). Slows sampling on purpose, for tests and demos of
   * streaming and Stop: a tiny checkpoint otherwise decodes thousands of tokens before a person (or a
   * browser test) can press Stop.
   */
  stepDelayMs?: number;
}

export type DecodeRequest = ResolvedGenerateOptions & { seed: number };

/** What a caller may follow or steer while its request decodes. */
export interface DecodeHooks {
  /** Called as each token is sampled (before its routing is known), with its index in the output. */
  onToken?: (token: SampledToken, index: number) => void;
  /** Aborting this ends the request after the current step with what was sampled (stopReason 'stopped'). */
  stop?: AbortSignal;
}

interface LayerCache {
  key: Float32Array;
  value: Float32Array;
}

/** The KV cache and routing of a finished request's processed tokens, for reuse by a later prompt. */
interface PrefixEntry {
  tokens: number[];
  routing: TokenRouting[] | null;
  /** Per layer [1, kvHeads, tokens.length, headDim]. */
  cache: LayerCache[];
  floats: number;
}

const DEFAULT_PREFIX_CACHE_FLOATS = 32 * 2 ** 20;

interface Row {
  prompt: readonly number[];
  options: DecodeRequest;
  sampler: TokenSampler;
  signal?: AbortSignal;
  hooks: DecodeHooks;
  /** Tokens processed so far (prompt + fed samples): the next position, and this row's cache length. */
  length: number;
  /** Leading invalid slots of this row in the batch cache. */
  pad: number;
  pending: number | null;
  tokens: SampledToken[];
  promptRouting: TokenRouting[] | null;
  stop: StopReason | null;
  own: LayerCache[] | null;
  enqueuedAt: number;
  prefillMs: number;
  cachedPromptTokens: number;
  decodeMs: number;
  steps: number;
  batchSum: number;
  resolve: (r: GenerateResult) => void;
  reject: (e: unknown) => void;
}

/** Longest stop sequence tail decoded per check: enough for any sensible stop string. */
const STOP_WINDOW_TOKENS = 32;

export class BatchDecoder {
  private rows: Row[] = [];
  private readonly waiting: Row[] = [];
  /** Per layer [rows, kvHeads, capacity, headDim]; slots [0, slots) are laid out, the rest spare. */
  private cache: LayerCache[] = [];
  private slots = 0;
  private capacity = 0;
  private loop: Promise<void> | null = null;
  private nextModel: DecoderModel | null = null;
  private closed = false;
  private prefixes: PrefixEntry[] = [];

  constructor(
    private model: DecoderModel,
    private readonly options: DecoderOptions = {},
  ) {}

  get activeRows(): number {
    return this.rows.length;
  }

  generate(
    prompt: readonly number[],
    request: DecodeRequest,
    signal?: AbortSignal,
    hooks: DecodeHooks = {},
  ): Promise<GenerateResult> {
    if (this.closed) return Promise.reject(new Error('the decoder is closed'));
    if (prompt.length === 0) return Promise.reject(new Error('the prompt is empty: at least one token id is needed'));
    const bad = prompt.find((id) => !Number.isInteger(id) || id < 0 || id >= this.model.vocabSize);
    if (bad !== undefined)
      return Promise.reject(
        new Error(`prompt token id ${bad} is outside the vocabulary (0..${this.model.vocabSize - 1})`),
      );
    return new Promise<GenerateResult>((resolve, reject) => {
      this.waiting.push({
        prompt,
        options: request,
        sampler: new TokenSampler(request, request.seed),
        signal,
        hooks,
        length: 0,
        pad: 0,
        pending: null,
        tokens: [],
        promptRouting: null,
        stop: null,
        own: null,
        enqueuedAt: performance.now(),
        prefillMs: 0,
        cachedPromptTokens: 0,
        decodeMs: 0,
        steps: 0,
        batchSum: 0,
        resolve,
        reject,
      });
      this.kick();
    });
  }

  /** Use new weights from the next step on (the sessions of the same architecture). */
  swap(model: DecoderModel): void {
    if (
      model.layers !== this.model.layers ||
      model.kvHeads !== this.model.kvHeads ||
      model.headDim !== this.model.headDim ||
      model.cacheOutputs !== this.model.cacheOutputs
    ) {
      throw new Error(
        'swap: the new model has a different cache layout (layers, kv heads, head size or cache outputs)',
      );
    }
    this.nextModel = model;
    this.kick();
  }

  /** Stop accepting work; pending requests end with an error. Returns once the loop is idle. */
  async close(): Promise<void> {
    this.closed = true;
    for (const r of this.waiting.splice(0)) r.reject(new Error('the decoder closed'));
    await this.loop;
    await this.applySwap();
  }

  private kick(): void {
    if (this.loop) return;
    this.loop = this.run()
      .catch((error) => {
        for (const r of [...this.rows, ...this.waiting.splice(0)]) r.reject(error);
        this.rows = [];
        this.cache = [];
        this.slots = 0;
        this.capacity = 0;
      })
      .finally(() => {
        this.loop = null;
        if (this.waiting.length || this.nextModel) this.kick();
      });
  }

  private async applySwap(): Promise<void> {
    const next = this.nextModel;
    if (!next) return;
    this.nextModel = null;
    const old = this.model;
    this.model = next;
    this.prefixes = []; // computed with the old weights
    if (old.session !== next.session) await old.session.release();
  }

  private async run(): Promise<void> {
    await this.applySwap();
    while (this.rows.length || this.waiting.length) {
      await this.applySwap();
      let changed = false;
      const capacity = (this.options.maxBatch ?? 16) - this.rows.length;
      const joiners = this.waiting.splice(0, Math.max(0, capacity));
      for (const row of joiners) {
        try {
          await this.prefill(row);
        } catch (error) {
          // This request fails alone; the batch and the other joiners go on.
          row.reject(error);
          continue;
        }
        // The prompt's cache is reusable at once: the G episodes of a PPO group (or the attempts of an
        // evaluation) start with the same prompt and join together, and all but the first prefill one token.
        this.remember(row, -1);
        if (row.stop && row.pending === null) this.finish(row);
        else {
          this.rows.push(row);
          changed = true;
        }
      }
      for (const row of this.rows) {
        if (row.signal?.aborted && !row.stop) row.stop = 'cancelled';
        else if (row.hooks.stop?.aborted && !row.stop) row.stop = 'stopped';
      }
      const leaving = this.rows.filter((r) => r.stop === 'cancelled' || (r.stop && r.pending === null));
      if (leaving.length) {
        for (const r of leaving) {
          if (r.stop !== 'cancelled') this.remember(r, this.rows.indexOf(r));
          this.finish(r);
        }
        changed = true;
      }
      if (changed) this.rebuild(this.rows.filter((r) => !leaving.includes(r)));
      if (this.rows.length) {
        await this.step();
        if (this.options.stepDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.stepDelayMs));
      }
    }
  }

  private finish(row: Row): void {
    if (row.stop === 'cancelled') {
      row.reject(Object.assign(new Error('generation cancelled'), { code: 'CANCELLED' }));
      return;
    }
    const steps = row.steps;
    row.resolve({
      tokens: row.tokens,
      stopReason: row.stop ?? 'max-tokens',
      promptRouting: row.promptRouting,
      timing: {
        queueMs: 0,
        prefillMs: row.prefillMs,
        decodeMs: row.decodeMs,
        steps,
        meanBatch: steps ? row.batchSum / steps : 1,
        cachedPromptTokens: row.cachedPromptTokens,
      },
    });
  }

  private emptyPast(rows: number): Record<string, HostTensor> {
    const feeds: Record<string, HostTensor> = {};
    const dims = [rows, this.model.kvHeads, 0, this.model.headDim];
    for (let l = 0; l < this.model.layers; l++) {
      feeds[pastKeyName(l)] = { dtype: 'float32', dims, data: new Float32Array(0) };
      feeds[pastValueName(l)] = { dtype: 'float32', dims, data: new Float32Array(0) };
    }
    return feeds;
  }

  /**
   * Sampling inputs for `rows` (the graph's head), and whether the step needs the logits: a row the head
   * cannot serve (top-k, top-p) samples in JavaScript. A uniform is drawn only for a row that will sample
   * from the head, so a seed gives the same sequence of draws as the JavaScript sampler.
   */
  private samplingFeeds(rows: readonly Row[]): { feeds: Record<string, HostTensor>; logits: boolean } {
    if (!this.model.samplingHead) return { feeds: {}, logits: true };
    const vocab = this.model.vocabSize;
    const u = new Float32Array(rows.length);
    const inverse = new Float32Array(rows.length);
    let logits = false;
    rows.forEach((r, b) => {
      inverse[b] = r.sampler.inverseTemperature();
      if (r.stop) return;
      if (r.sampler.untruncated(vocab)) u[b] = r.sampler.drawUniform();
      else logits = true;
      if (r.options.alternatives > 0) logits = true;
    });
    return {
      feeds: {
        [SAMPLE_UNIFORM]: { dtype: 'float32', dims: [rows.length], data: u },
        [SAMPLE_INV_TEMPERATURE]: { dtype: 'float32', dims: [rows.length], data: inverse },
      },
      logits,
    };
  }

  private outputNames(logits = true): string[] {
    const names = logits ? ['logits'] : [];
    if (this.model.samplingHead)
      names.push(SAMPLE_OUTPUTS.id, SAMPLE_OUTPUTS.logprob, SAMPLE_OUTPUTS.argmax, SAMPLE_OUTPUTS.argmaxLogprob);
    const newOnly = this.model.cacheOutputs === 'new';
    for (let l = 0; l < this.model.layers; l++)
      names.push(newOnly ? newKeyName(l) : presentKeyName(l), newOnly ? newValueName(l) : presentValueName(l));
    if (this.model.routing) names.push('routing.experts', 'routing.gates');
    return names;
  }

  private async prefill(row: Row): Promise<void> {
    const started = performance.now();
    const total = row.prompt.length;
    const m = this.model;
    if (total >= m.maxPositions) {
      row.stop = 'context-full';
      row.prefillMs = performance.now() - started;
      return;
    }
    // Reuse the longest cached prefix (leaving at least one token to compute, for the next logits).
    const hit = this.findPrefix(row.prompt);
    const cached = hit ? Math.min(hit.length, total - 1) : 0;
    const S = total - cached;
    const past = hit && cached > 0 ? this.pastFrom(hit.entry, cached) : this.emptyPast(1);
    const sampling = this.samplingFeeds([row]);
    const out = await m.session.run(
      {
        input_ids: {
          dtype: 'int64',
          dims: [1, S],
          data: BigInt64Array.from(row.prompt.slice(cached), (v) => BigInt(v)),
        },
        position_ids: {
          dtype: 'int64',
          dims: [1, S],
          data: BigInt64Array.from({ length: S }, (_, i) => BigInt(cached + i)),
        },
        attention_mask: { dtype: 'int64', dims: [1, total], data: new BigInt64Array(total).fill(1n) },
        ...past,
        ...sampling.feeds,
      },
      this.outputNames(sampling.logits),
    );
    row.own = Array.from({ length: m.layers }, (_, l) => {
      if (m.cacheOutputs === 'present')
        return {
          key: out[presentKeyName(l)]!.data as Float32Array,
          value: out[presentValueName(l)]!.data as Float32Array,
        };
      // Only the S new tokens came back: the cached prefix goes in front of them.
      const pastKey = past[pastKeyName(l)]!.data as Float32Array;
      const pastValue = past[pastValueName(l)]!.data as Float32Array;
      return {
        key: joinSlots(pastKey, out[newKeyName(l)]!.data as Float32Array, m.kvHeads, cached, S, m.headDim),
        value: joinSlots(pastValue, out[newValueName(l)]!.data as Float32Array, m.kvHeads, cached, S, m.headDim),
      };
    });
    row.length = total;
    row.cachedPromptTokens = cached;
    if (m.routing) {
      const fresh = Array.from({ length: S }, (_, s) => routingAt(out, 0, s, 1, S));
      row.promptRouting = cached > 0 ? [...hit!.entry.routing!.slice(0, cached), ...fresh] : fresh;
    }
    this.sampleNext(row, out, 0);
    row.prefillMs = performance.now() - started;
  }

  /** The cached entry sharing the longest prefix with `prompt`, and that length. */
  private findPrefix(prompt: readonly number[]): { entry: PrefixEntry; length: number } | null {
    let best: { entry: PrefixEntry; length: number } | null = null;
    for (const entry of this.prefixes) {
      if (this.model.routing && !entry.routing) continue;
      let n = 0;
      const max = Math.min(entry.tokens.length, prompt.length);
      while (n < max && entry.tokens[n] === prompt[n]) n++;
      if (n > 0 && (!best || n > best.length)) best = { entry, length: n };
    }
    if (best) {
      // most recently used last
      this.prefixes = [...this.prefixes.filter((e) => e !== best!.entry), best.entry];
    }
    return best;
  }

  /** The first `length` slots of a cached entry as past_key_values feeds [1, kvHeads, length, headDim]. */
  private pastFrom(entry: PrefixEntry, length: number): Record<string, HostTensor> {
    const m = this.model;
    const feeds: Record<string, HostTensor> = {};
    const dims = [1, m.kvHeads, length, m.headDim];
    entry.cache.forEach((c, l) => {
      feeds[pastKeyName(l)] = {
        dtype: 'float32',
        dims,
        data: sliceSlots(c.key, m.kvHeads, entry.tokens.length, length, m.headDim),
      };
      feeds[pastValueName(l)] = {
        dtype: 'float32',
        dims,
        data: sliceSlots(c.value, m.kvHeads, entry.tokens.length, length, m.headDim),
      };
    });
    return feeds;
  }

  /** Keep a finished row's processed tokens with their cache and routing (batch index `b`, or -1: its own cache). */
  private remember(row: Row, b: number): void {
    const budget = this.options.prefixCacheFloats ?? DEFAULT_PREFIX_CACHE_FLOATS;
    const m = this.model;
    const fed = row.length - row.prompt.length;
    if (budget <= 0 || row.length === 0 || fed < 0) return;
    const tokens = [...row.prompt, ...row.tokens.slice(0, fed).map((t) => t.id)];
    let routing: TokenRouting[] | null = null;
    if (m.routing) {
      const sampled = row.tokens.slice(0, fed).map((t) => t.routing);
      if (!row.promptRouting || sampled.some((r) => r === null)) return;
      routing = [...row.promptRouting, ...(sampled as TokenRouting[])];
    }
    const cache: LayerCache[] = [];
    for (let l = 0; l < m.layers; l++) {
      if (b < 0 || row.own) {
        cache.push({ key: row.own![l]!.key, value: row.own![l]!.value });
        continue;
      }
      const key = new Float32Array(m.kvHeads * row.length * m.headDim);
      const value = new Float32Array(key.length);
      for (let h = 0; h < m.kvHeads; h++) {
        const src = ((b * m.kvHeads + h) * this.capacity + row.pad) * m.headDim;
        const n = row.length * m.headDim;
        key.set(this.cache[l]!.key.subarray(src, src + n), h * n);
        value.set(this.cache[l]!.value.subarray(src, src + n), h * n);
      }
      cache.push({ key, value });
    }
    const entry: PrefixEntry = { tokens, routing, cache, floats: 2 * m.layers * m.kvHeads * row.length * m.headDim };
    if (entry.floats > budget) return;
    // An entry this one extends is redundant now.
    const extended = (e: PrefixEntry) => e.tokens.length <= tokens.length && e.tokens.every((t, i) => t === tokens[i]);
    this.prefixes = [...this.prefixes.filter((e) => !extended(e)), entry];
    let used = this.prefixes.reduce((n, e) => n + e.floats, 0);
    while (used > budget) used -= this.prefixes.shift()!.floats;
  }

  /** The row's next token: from the graph's sampling head where it serves this row, else from the logits. */
  private pickFor(row: Row, out: Record<string, HostTensor>, b: number): TokenPick {
    if (this.model.samplingHead && row.sampler.untruncated(this.model.vocabSize)) {
      const greedy = row.options.temperature === 0;
      const ids = out[greedy ? SAMPLE_OUTPUTS.argmax : SAMPLE_OUTPUTS.id]!.data as BigInt64Array;
      const logprobs = out[greedy ? SAMPLE_OUTPUTS.argmaxLogprob : SAMPLE_OUTPUTS.logprob]!.data as Float32Array;
      return { id: Number(ids[b]!), logprob: logprobs[b]! };
    }
    const logits = out.logits!;
    const [, S, V] = logits.dims as [number, number, number];
    return row.sampler.pick(logits.data as Float32Array, (b * S + S - 1) * V, Math.min(V, this.model.vocabSize));
  }

  /** Sample the row's next token from batch row `b` of the step's outputs and decide whether it stops there. */
  private sampleNext(row: Row, out: Record<string, HostTensor>, b: number): void {
    const pick = this.pickFor(row, out, b);
    const token: SampledToken = { id: pick.id, logprob: pick.logprob, routing: null };
    if (row.options.alternatives > 0) {
      const logits = out.logits!;
      const [, S, V] = logits.dims as [number, number, number];
      token.alternatives = topAlternatives(
        logits.data as Float32Array,
        (b * S + S - 1) * V,
        Math.min(V, this.model.vocabSize),
        row.options.alternatives,
        row.options.temperature,
      );
    }
    row.tokens.push(token);
    try {
      row.hooks.onToken?.(token, row.tokens.length - 1);
    } catch (error) {
      // A follower's failure must not end the batch: the request decodes on.
      this.options.log?.(`onToken failed: ${(error as Error).message}`);
    }
    row.pending = pick.id;
    if (row.options.stopTokenIds.includes(pick.id)) row.stop = 'stop-token';
    else if (row.options.stopSequences.length && this.endsWithStop(row)) row.stop = 'stop-sequence';
    else if (row.tokens.length >= row.options.maxTokens) row.stop = 'max-tokens';
    if (row.length + 1 > this.model.maxPositions) {
      // The pending token cannot be processed (no position left): it ends without routing.
      row.stop ??= 'context-full';
      row.pending = null;
    }
  }

  private endsWithStop(row: Row): boolean {
    const decode = this.options.decode;
    if (!decode) return false;
    const tail = decode(row.tokens.slice(-STOP_WINDOW_TOKENS).map((t) => t.id));
    // Anywhere in the tail, not only at its end: a stop string may end inside the token just sampled (an
    // earlier occurrence would have stopped the row at its own step).
    return row.options.stopSequences.some((s) => tail.includes(s));
  }

  /**
   * Lay out the batch cache for `rows` (left-padded to the longest), from the old batch and joiners' own
   * caches, with spare slots for the coming steps where the graph outputs only new keys and values.
   */
  private rebuild(rows: Row[]): void {
    const m = this.model;
    const slots = rows.reduce((mx, r) => Math.max(mx, r.length), 0);
    const capacity = m.cacheOutputs === 'new' ? Math.ceil((slots + 1) / CACHE_SLOT_BLOCK) * CACHE_SLOT_BLOCK : slots;
    const oldIndex = new Map(this.rows.map((r, i) => [r, i]));
    const next: LayerCache[] = [];
    for (let l = 0; l < m.layers; l++) {
      const key = new Float32Array(rows.length * m.kvHeads * capacity * m.headDim);
      const value = new Float32Array(key.length);
      rows.forEach((r, nb) => {
        const pad = slots - r.length;
        const fromOwn = r.own !== null;
        const srcSlots = fromOwn ? r.length : this.capacity;
        const srcRow = fromOwn ? 0 : oldIndex.get(r)!;
        const srcPad = fromOwn ? 0 : r.pad;
        const srcK = fromOwn ? r.own![l]!.key : this.cache[l]!.key;
        const srcV = fromOwn ? r.own![l]!.value : this.cache[l]!.value;
        for (let h = 0; h < m.kvHeads; h++) {
          const src = ((srcRow * m.kvHeads + h) * srcSlots + srcPad) * m.headDim;
          const dst = ((nb * m.kvHeads + h) * capacity + pad) * m.headDim;
          const n = r.length * m.headDim;
          key.set(srcK.subarray(src, src + n), dst);
          value.set(srcV.subarray(src, src + n), dst);
        }
      });
      next.push({ key, value });
    }
    rows.forEach((r) => {
      r.pad = slots - r.length;
      r.own = null;
    });
    this.rows = rows;
    this.cache = next;
    this.slots = slots;
    this.capacity = capacity;
  }

  /** Copy one step's new keys and values ([B, kvHeads, 1, headDim] per layer) into cache slot `slot`. */
  private writeSlot(out: Record<string, HostTensor>, slot: number): void {
    const m = this.model;
    const B = this.rows.length;
    for (let l = 0; l < m.layers; l++) {
      const layer = this.cache[l]!;
      for (const [target, name] of [
        [layer.key, newKeyName(l)],
        [layer.value, newValueName(l)],
      ] as const) {
        const fresh = out[name]!.data as Float32Array;
        // Element loops, not a subarray view per head: thousands of views per step at batch 64 cost more than the copy.
        const hd = m.headDim;
        for (let bh = 0; bh < B * m.kvHeads; bh++) {
          const src = bh * hd;
          const dst = (bh * this.capacity + slot) * hd;
          for (let i = 0; i < hd; i++) target[dst + i] = fresh[src + i]!;
        }
      }
    }
  }

  private async step(): Promise<void> {
    const started = performance.now();
    const m = this.model;
    const B = this.rows.length;
    const newOnly = m.cacheOutputs === 'new';
    if (newOnly && this.slots >= this.capacity) this.rebuild(this.rows); // no spare slot left: a new block
    // The past fed is every slot of the cache: [pad, slots) are a row's, the spare ones are masked out.
    const P = this.capacity;
    const T = P + 1;
    const mask = new BigInt64Array(B * T);
    this.rows.forEach((r, b) => {
      mask.fill(1n, b * T + r.pad, b * T + this.slots);
      mask[b * T + P] = 1n;
    });
    const feeds: Record<string, HostTensor> = {
      input_ids: { dtype: 'int64', dims: [B, 1], data: BigInt64Array.from(this.rows, (r) => BigInt(r.pending!)) },
      position_ids: { dtype: 'int64', dims: [B, 1], data: BigInt64Array.from(this.rows, (r) => BigInt(r.length)) },
      attention_mask: { dtype: 'int64', dims: [B, T], data: mask },
    };
    const dims = [B, m.kvHeads, P, m.headDim];
    for (let l = 0; l < m.layers; l++) {
      feeds[pastKeyName(l)] = { dtype: 'float32', dims, data: this.cache[l]!.key };
      feeds[pastValueName(l)] = { dtype: 'float32', dims, data: this.cache[l]!.value };
    }
    const sampling = this.samplingFeeds(this.rows);
    const out = await m.session.run({ ...feeds, ...sampling.feeds }, this.outputNames(sampling.logits));
    if (newOnly) {
      this.writeSlot(out, this.slots);
      this.slots += 1;
    } else {
      this.cache = Array.from({ length: m.layers }, (_, l) => ({
        key: out[presentKeyName(l)]!.data as Float32Array,
        value: out[presentValueName(l)]!.data as Float32Array,
      }));
      this.slots = T;
      this.capacity = T;
    }
    this.rows.forEach((row, b) => {
      const fed = row.tokens[row.tokens.length - 1]!;
      if (m.routing) fed.routing = routingAt(out, b, 0, B, 1);
      row.length += 1;
      row.pending = null;
      row.steps += 1;
      row.batchSum += B;
      if (!row.stop) this.sampleNext(row, out, b);
    });
    // A step is the forward pass, the cache write and the sampling: all of it is decoding time.
    const elapsed = performance.now() - started;
    for (const row of this.rows) row.decodeMs += elapsed;
  }
}

/** The first `keep` of `slots` positions of a [1, heads, slots, headDim] cache. */
function sliceSlots(data: Float32Array, heads: number, slots: number, keep: number, headDim: number): Float32Array {
  if (keep === slots) return data;
  const out = new Float32Array(heads * keep * headDim);
  for (let h = 0; h < heads; h++)
    out.set(data.subarray(h * slots * headDim, (h * slots + keep) * headDim), h * keep * headDim);
  return out;
}

/** [1, heads, a + b, headDim] from [1, heads, a, headDim] and [1, heads, b, headDim]. */
function joinSlots(
  first: Float32Array,
  second: Float32Array,
  heads: number,
  a: number,
  b: number,
  headDim: number,
): Float32Array {
  if (a === 0) return second;
  const out = new Float32Array(heads * (a + b) * headDim);
  for (let h = 0; h < heads; h++) {
    out.set(first.subarray(h * a * headDim, (h + 1) * a * headDim), h * (a + b) * headDim);
    out.set(second.subarray(h * b * headDim, (h + 1) * b * headDim), (h * (a + b) + a) * headDim);
  }
  return out;
}

/** Routing of token (b, s) from routing outputs [L, B, S, k]. */
function routingAt(out: Record<string, HostTensor>, b: number, s: number, B: number, S: number): TokenRouting {
  const experts = out['routing.experts']!;
  const [L, , , k] = experts.dims as [number, number, number, number];
  const e = experts.data as BigInt64Array;
  const g = out['routing.gates']!.data as Float32Array;
  // Plain loops (no subarray views or iterators): this runs for every row of every step.
  const result: TokenRouting = { experts: new Array<number[]>(L), gates: new Array<number[]>(L) };
  for (let l = 0; l < L; l++) {
    const o = ((l * B + b) * S + s) * k;
    const ids = new Array<number>(k);
    const weights = new Array<number>(k);
    for (let j = 0; j < k; j++) {
      ids[j] = Number(e[o + j]!);
      weights[j] = g[o + j]!;
    }
    result.experts[l] = ids;
    result.gates[l] = weights;
  }
  return result;
}
