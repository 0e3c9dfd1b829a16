/**
 * Following and steering a request on a real session: each token reaches onToken as it is sampled (before the
 * request ends), a stop signal ends it with what was sampled (stopReason 'stopped', nothing decoded after),
 * alternatives carry the most likely tokens with the same log-probs as the sampled one, and stepDelayMs slows
 * decoding without changing it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchDecoder, type DecodeRequest } from '../../../native/model/decoder';
import { GenerateOptions, type SampledToken } from '../../../native/model/policy-api';
import { loadT1Policy, type LoadedPolicy } from '../../../native/model/policy-model';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig({ vocab_size: 32, max_position_embeddings: 256 });
const weights = tinyWeights(config, 5);
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

describe('decoding followed and stopped', () => {
  it('streams every token as it is sampled, in order, the same tokens as the result', async () => {
    const d = new BatchDecoder(policy.decoder);
    const seen: { id: number; index: number; settled: boolean }[] = [];
    let settled = false;
    const done = d.generate([1, 2, 3], request({ maxTokens: 20 }), undefined, {
      onToken: (t, index) => seen.push({ id: t.id, index, settled }),
    });
    const r = await done.finally(() => (settled = true));
    expect(seen.map((s) => s.index)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(seen.map((s) => s.id)).toEqual(r.tokens.map((t) => t.id));
    expect(seen.every((s) => !s.settled)).toBe(true);
  });

  it('a stop ends the request after the current step with what was sampled; the batch goes on', async () => {
    const d = new BatchDecoder(policy.decoder);
    const stop = new AbortController();
    const streamed: SampledToken[] = [];
    const other = d.generate([4, 5], request({ maxTokens: 60, seed: 9 }));
    const stopped = d.generate([1, 2, 3], request({ maxTokens: 200 }), undefined, {
      stop: stop.signal,
      onToken: (t, i) => {
        streamed.push(t);
        if (i === 4) stop.abort();
      },
    });
    const [r, o] = await Promise.all([stopped, other]);
    expect(r.stopReason).toBe('stopped');
    expect(r.tokens).toHaveLength(5);
    expect(streamed).toHaveLength(5);
    // The last token still got its routing (the step that processed it), like any finished row.
    expect(r.tokens.at(-1)!.routing).not.toBeNull();
    expect(o.stopReason).toBe('max-tokens');
    expect(o.tokens).toHaveLength(60);
    expect(d.activeRows).toBe(0);
  });

  it('stepDelayMs pauses after every step (the same tokens, just slower), and a stop still ends it between steps', async () => {
    const plain = await new BatchDecoder(policy.decoder).generate([1, 2, 3], request({ maxTokens: 8 }));
    const d = new BatchDecoder(policy.decoder, { stepDelayMs: 40 });
    const started = performance.now();
    const slow = await d.generate([1, 2, 3], request({ maxTokens: 8 }));
    // 8 tokens: the prefill samples the first, 7 steps the rest, each followed by the pause.
    expect(performance.now() - started).toBeGreaterThanOrEqual(7 * 40 - 1);
    expect(slow.tokens.map((t) => t.id)).toEqual(plain.tokens.map((t) => t.id));
    const stop = new AbortController();
    const stopped = await d.generate([1, 2, 3], request({ maxTokens: 200 }), undefined, {
      stop: stop.signal,
      onToken: (_, i) => i === 2 && stop.abort(),
    });
    expect(stopped.stopReason).toBe('stopped');
    expect(stopped.tokens).toHaveLength(3);
  });

  it("alternatives: the most likely tokens, most likely first, with the sampled token's log-prob where it is among them", async () => {
    const d = new BatchDecoder(policy.decoder);
    for (const o of [{ temperature: 0 }, { temperature: 0.7 }, { temperature: 1, topK: 5 }]) {
      const r = await d.generate([1, 2, 3], request({ maxTokens: 8, alternatives: 4, ...o }));
      for (const t of r.tokens) {
        const alts = t.alternatives!;
        expect(alts).toHaveLength(4);
        for (let i = 1; i < alts.length; i++) expect(alts[i]!.logprob).toBeLessThanOrEqual(alts[i - 1]!.logprob);
        expect(alts.reduce((s, a) => s + Math.exp(a.logprob), 0)).toBeLessThanOrEqual(1 + 1e-6);
        const same = alts.find((a) => a.id === t.id);
        if (same) expect(Math.abs(same.logprob - t.logprob)).toBeLessThan(1e-3);
        if (o.temperature === 0) expect(alts[0]!.id).toBe(t.id);
      }
    }
    // Without the option nothing extra is returned.
    const plain = await d.generate([1, 2, 3], request({ maxTokens: 3 }));
    expect(plain.tokens.every((t) => t.alternatives === undefined)).toBe(true);
  });
});
