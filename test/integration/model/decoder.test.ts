/**
 * Batched decoding on a real session: seeds reproduce tokens, batched rows match solo decoding, every
 * sampled token carries routing that replays exactly in the scoring graph, stops are honoured, external
 * common-layout graphs (no routing) decode too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchDecoder, CACHE_SLOT_BLOCK, type DecodeRequest } from '../../../native/model/decoder';
import { GenerateOptions, type GenerateResult } from '../../../native/model/policy-api';
import { loadExternalPolicy, loadT1Policy, type LoadedPolicy } from '../../../native/model/policy-model';
import { buildSamplingGraph } from '../../../native/model/sampling-graph';
import { buildTrainingGraph } from '../../../native/model/training-graph';
import { f32, i64, RuntimeSession } from '../../../native/onnx/runtime';
import { tinyConfig, tinyWeights, weightFeeds } from '../../helpers/tiny-model';

const config = tinyConfig({ vocab_size: 32, max_position_embeddings: 64 });
const weights = tinyWeights(config, 21);
const request = (o: Partial<DecodeRequest> = {}): DecodeRequest => ({
  ...GenerateOptions.parse({ maxTokens: 6 }),
  seed: 1,
  ...o,
});

let policy: LoadedPolicy;
beforeAll(async () => {
  policy = await loadT1Policy(config, weights, { provider: 'cpu', intraOpThreads: 1 });
});
afterAll(async () => {
  await policy.decoder.session.release();
});

describe('batched decoder', () => {
  it('same seed, same tokens; another seed, other tokens', async () => {
    const d = new BatchDecoder(policy.decoder);
    const a = await d.generate([1, 2, 3], request({ seed: 7, maxTokens: 12 }));
    const b = await d.generate([1, 2, 3], request({ seed: 7, maxTokens: 12 }));
    const c = await d.generate([1, 2, 3], request({ seed: 8, maxTokens: 12 }));
    expect(a.tokens.map((t) => t.id)).toEqual(b.tokens.map((t) => t.id));
    expect(a.tokens.map((t) => t.id)).not.toEqual(c.tokens.map((t) => t.id));
    expect(a.stopReason).toBe('max-tokens');
    expect(a.tokens).toHaveLength(12);
  });

  it('concurrent requests decode together and match solo decoding', async () => {
    const d = new BatchDecoder(policy.decoder);
    const prompts = [[4, 5], [6, 7, 8, 9, 10], [11]];
    const solo: GenerateResult[] = [];
    for (const [i, p] of prompts.entries())
      solo.push(await d.generate(p, request({ seed: 100 + i, maxTokens: 5 + i })));
    const together = await Promise.all(
      prompts.map((p, i) => d.generate(p, request({ seed: 100 + i, maxTokens: 5 + i }))),
    );
    expect(together.some((r) => r.timing.meanBatch > 1)).toBe(true);
    together.forEach((r, i) => {
      expect(r.tokens.map((t) => t.id)).toEqual(solo[i]!.tokens.map((t) => t.id));
      r.tokens.forEach((t, j) => expect(Math.abs(t.logprob - solo[i]!.tokens[j]!.logprob)).toBeLessThan(1e-4));
    });
  });

  it('past the spare cache slots (joins, leaves and new slot blocks) batched rows match the common-layout graph decoding alone', async () => {
    // Our graph returns only new keys and values into spare slots; the common layout returns past + new.
    const common = await loadExternalPolicy(
      buildSamplingGraph(config, weights, { expertCompute: 'dense', withoutRouting: true }).bytes,
      { vocab_size: config.vocab_size, max_position_embeddings: config.max_position_embeddings },
      { provider: 'cpu', intraOpThreads: 1 },
    );
    expect(policy.decoder.cacheOutputs).toBe('new');
    expect(common.decoder.cacheOutputs).toBe('present');
    const jobs = [
      { prompt: [4, 5, 6], maxTokens: 2 * CACHE_SLOT_BLOCK - 10, seed: 31 },
      { prompt: [7], maxTokens: CACHE_SLOT_BLOCK + 3, seed: 32 },
      { prompt: [8, 9, 10, 11, 12, 13, 14], maxTokens: 12, seed: 33 },
    ];
    const d = new BatchDecoder(policy.decoder);
    const first = Promise.all(jobs.slice(0, 2).map((j) => d.generate(j.prompt, request(j))));
    await new Promise((r) => setTimeout(r, 20)); // the third joins a running batch
    const together = [...(await first), await d.generate(jobs[2]!.prompt, request(jobs[2]!))];
    const alone = new BatchDecoder(common.decoder);
    for (const [i, j] of jobs.entries()) {
      const solo = await alone.generate(j.prompt, request(j));
      expect(together[i]!.tokens.map((t) => t.id)).toEqual(solo.tokens.map((t) => t.id));
      together[i]!.tokens.forEach((t, k) => expect(Math.abs(t.logprob - solo.tokens[k]!.logprob)).toBeLessThan(1e-4));
    }
    expect(together[0]!.tokens.length).toBeGreaterThan(CACHE_SLOT_BLOCK);
    await common.decoder.session.release();
  });

  it('the graph samples greedy and temperature rows as the JavaScript sampler does; a top-p row in the same batch samples in JavaScript', async () => {
    const plain = await loadExternalPolicy(
      buildSamplingGraph(config, weights, { expertCompute: 'dense', withoutRouting: true }).bytes,
      { vocab_size: config.vocab_size, max_position_embeddings: config.max_position_embeddings },
      { provider: 'cpu', intraOpThreads: 1 },
    );
    expect(policy.decoder.samplingHead).toBe(true);
    expect(plain.decoder.samplingHead).toBe(false);
    const jobs = [
      { prompt: [3, 1], options: { temperature: 0, maxTokens: 10, seed: 1 } },
      { prompt: [2, 2, 2], options: { temperature: 0.7, maxTokens: 12, seed: 2 } },
      { prompt: [9], options: { temperature: 1.3, topP: 0.8, maxTokens: 8, seed: 3 } },
      { prompt: [5, 4], options: { temperature: 1, maxTokens: 14, seed: 4 } },
    ];
    const d = new BatchDecoder(policy.decoder);
    const together = await Promise.all(jobs.map((j) => d.generate(j.prompt, request(j.options))));
    expect(together.some((r) => r.timing.meanBatch > 1)).toBe(true);
    const js = new BatchDecoder(plain.decoder);
    for (const [i, j] of jobs.entries()) {
      const reference = await js.generate(j.prompt, request(j.options));
      expect(together[i]!.tokens.map((t) => t.id)).toEqual(reference.tokens.map((t) => t.id));
      together[i]!.tokens.forEach((t, k) =>
        expect(Math.abs(t.logprob - reference.tokens[k]!.logprob)).toBeLessThan(1e-4),
      );
    }
    // Greedy takes the most likely token every time: its log-prob is the highest of that step.
    expect(together[0]!.tokens.every((t) => t.logprob > Math.log(1 / config.vocab_size))).toBe(true);
    await plain.decoder.session.release();
  });

  it('a request whose prefill fails is rejected alone; concurrent and later requests are served', async () => {
    const session = policy.decoder.session;
    const run: typeof session.run = (feeds, outputs) =>
      feeds.input_ids!.dims[1] === 7 ? Promise.reject(new Error('injected failure')) : session.run(feeds, outputs);
    const failing = { ...policy.decoder, session: Object.assign(Object.create(session) as typeof session, { run }) };
    const d = new BatchDecoder(failing);
    const [bad, good] = await Promise.allSettled([
      d.generate([1, 2, 3, 4, 5, 6, 7], request()),
      d.generate([1, 2], request()),
    ]);
    expect(bad.status === 'rejected' && String(bad.reason)).toMatch(/injected failure/);
    expect(good.status === 'fulfilled' && good.value.tokens).toHaveLength(6);
    expect((await d.generate([3], request())).tokens).toHaveLength(6);
  });

  it('every sampled token has routing, and replaying it in the scoring graph reproduces the log-probs', async () => {
    const d = new BatchDecoder(policy.decoder);
    const prompt = [3, 9, 1];
    const r = await d.generate(prompt, request({ seed: 3, maxTokens: 8 }));
    expect(r.promptRouting).toHaveLength(prompt.length);
    for (const t of r.tokens) expect(t.routing?.experts).toHaveLength(config.num_hidden_layers);
    const seq = [...prompt, ...r.tokens.map((t) => t.id)];
    const T = seq.length - 1;
    const L = config.num_hidden_layers;
    const k = config.num_experts_per_tok;
    const routes = [...r.promptRouting!, ...r.tokens.map((t) => t.routing!)].slice(0, T);
    const forced = new Array<number>(L * T * k);
    routes.forEach((route, t) =>
      route.experts.forEach((ex, l) => ex.forEach((e, j) => (forced[(l * T + t) * k + j] = e))),
    );
    const built = buildTrainingGraph(config, {
      batch: 1,
      length: T,
      dtype: 'float32',
      expertCompute: 'dense',
      forcedRouting: true,
      loss: null,
    });
    const s = await RuntimeSession.create(built.bytes, { providers: ['cpu'], intraOpThreads: 1 });
    const out = await s.run({
      ...weightFeeds(config, weights, 'float32'),
      input_ids: i64(seq.slice(0, T), [1, T]),
      targets: i64(seq.slice(1), [1, T]),
      attention_mask: f32(new Array(T).fill(1), [1, T]),
      forced_experts: i64(forced, [L, 1, T, k]),
    });
    await s.release();
    const scored = out.logprobs!.data as Float32Array;
    r.tokens.forEach((t, i) => expect(Math.abs(t.logprob - scored[prompt.length - 1 + i]!)).toBeLessThan(1e-4));
    expect(Array.from(out.experts!.data as BigInt64Array, Number)).toEqual(forced);
  });

  it('an episode waiting on its shell holds no row: with a single row, another episode decodes meanwhile', async () => {
    // Rows exist only while a request decodes; between turns an episode keeps just its KV cache prefix.
    const d = new BatchDecoder(policy.decoder, { maxBatch: 1 });
    const prompt = [1, 2, 3];
    const first = await d.generate(prompt, request({ seed: 11 }));
    expect(d.activeRows).toBe(0);
    // Episode A now runs its command; B gets the only row at once (a held row would make it wait forever).
    const other = await d.generate([4, 5], request({ seed: 12 }));
    expect(other.timing.meanBatch).toBe(1);
    expect(d.activeRows).toBe(0);
    // A's next turn (its history plus the observation) still finds its prefix in the cache.
    const next = await d.generate([...prompt, ...first.tokens.map((t) => t.id), 7, 8], request({ seed: 13 }));
    expect(next.timing.cachedPromptTokens).toBeGreaterThanOrEqual(prompt.length);
    await d.close();
  });

  it('stops on a stop token (kept in the output) and on a stop sequence', async () => {
    const d = new BatchDecoder(policy.decoder, {
      decode: (ids) => ids.map((i) => String.fromCharCode(97 + (i % 26))).join(''),
    });
    const free = await d.generate([1, 2], request({ seed: 5, maxTokens: 20, temperature: 0 }));
    const stopId = free.tokens[3]!.id;
    const firstAt = free.tokens.findIndex((t) => t.id === stopId);
    const stopped = await d.generate(
      [1, 2],
      request({ seed: 5, maxTokens: 20, temperature: 0, stopTokenIds: [stopId] }),
    );
    expect(stopped.stopReason).toBe('stop-token');
    expect(stopped.tokens.map((t) => t.id)).toEqual(free.tokens.slice(0, firstAt + 1).map((t) => t.id));
    expect(stopped.tokens.at(-1)!.routing).not.toBeNull();
    const text = free.tokens
      .slice(0, 3)
      .map((t) => String.fromCharCode(97 + (t.id % 26)))
      .join('');
    const bySequence = await d.generate(
      [1, 2],
      request({ seed: 5, maxTokens: 20, temperature: 0, stopSequences: [text.slice(1)] }),
    );
    expect(bySequence.stopReason).toBe('stop-sequence');
    expect(bySequence.tokens.length).toBeLessThanOrEqual(3);
  });

  it('a later prompt that extends an earlier one reuses its KV cache and routing, with the same results', async () => {
    const cached = new BatchDecoder(policy.decoder);
    const fresh = new BatchDecoder(policy.decoder, { prefixCacheFloats: 0 });
    const first = await cached.generate([2, 4, 6], request({ seed: 12, maxTokens: 6 }));
    const next = [2, 4, 6, ...first.tokens.map((t) => t.id), 9, 10];
    const a = await cached.generate(next, request({ seed: 13, maxTokens: 6 }));
    const b = await fresh.generate(next, request({ seed: 13, maxTokens: 6 }));
    expect(a.timing.cachedPromptTokens).toBe(3 + 6);
    expect(b.timing.cachedPromptTokens).toBe(0);
    expect(a.tokens.map((t) => t.id)).toEqual(b.tokens.map((t) => t.id));
    a.tokens.forEach((t, i) => expect(Math.abs(t.logprob - b.tokens[i]!.logprob)).toBeLessThan(1e-4));
    expect(a.promptRouting!.map((r) => r.experts)).toEqual(b.promptRouting!.map((r) => r.experts));
    // a shared prefix that diverges later is reused up to the divergence
    const c = await cached.generate([2, 4, 7, 1], request({ seed: 1, maxTokens: 2 }));
    expect(c.timing.cachedPromptTokens).toBe(2);
  });

  it('requests with the same prompt joining together prefill it once, with the same results as alone', async () => {
    const prompt = [3, 1, 4, 1, 5, 9, 2, 6];
    const d = new BatchDecoder(policy.decoder);
    const group = await Promise.all(
      [11, 12, 13, 14].map((seed) => d.generate(prompt, request({ seed, maxTokens: 5 }))),
    );
    expect(group.map((r) => r.timing.cachedPromptTokens)).toEqual([
      0,
      prompt.length - 1,
      prompt.length - 1,
      prompt.length - 1,
    ]);
    for (const [i, seed] of [11, 12, 13, 14].entries()) {
      const alone = await new BatchDecoder(policy.decoder, { prefixCacheFloats: 0 }).generate(
        prompt,
        request({ seed, maxTokens: 5 }),
      );
      expect(group[i]!.tokens.map((t) => t.id)).toEqual(alone.tokens.map((t) => t.id));
      group[i]!.tokens.forEach((t, k) => expect(Math.abs(t.logprob - alone.tokens[k]!.logprob)).toBeLessThan(1e-4));
      expect(group[i]!.promptRouting!.map((r) => r.experts)).toEqual(alone.promptRouting!.map((r) => r.experts));
    }
  });

  it('ends at the context limit and rejects ids outside the vocabulary', async () => {
    const d = new BatchDecoder(policy.decoder);
    const r = await d.generate(new Array(60).fill(1), request({ maxTokens: 50 }));
    expect(r.stopReason).toBe('context-full');
    expect(60 + r.tokens.length).toBeLessThanOrEqual(config.max_position_embeddings + 1);
    await expect(d.generate([999], request())).rejects.toThrow(/outside the vocabulary/);
  });

  it('decodes an external common-layout graph (no routing outputs)', async () => {
    const built = buildSamplingGraph(config, weights, {
      expertCompute: 'dense',
      allLogits: true,
      withoutRouting: true,
    });
    const external = await loadExternalPolicy(
      built.bytes,
      { vocab_size: config.vocab_size, max_position_embeddings: config.max_position_embeddings },
      { provider: 'cpu', intraOpThreads: 1 },
    );
    expect(external.decoder.routing).toBe(false);
    const a = await new BatchDecoder(external.decoder).generate([5, 6, 7], request({ seed: 9 }));
    const b = await new BatchDecoder(policy.decoder).generate([5, 6, 7], request({ seed: 9 }));
    expect(a.tokens.map((t) => t.id)).toEqual(b.tokens.map((t) => t.id));
    expect(a.tokens.every((t) => t.routing === null)).toBe(true);
    expect(a.promptRouting).toBeNull();
    await external.decoder.session.release();
  });
});
