/**
 * R3 on every token against free routing, on the same multi-turn batch: a real sampling session decodes two
 * turns (the second prefilled across the prefix KV cache), the trainer scores the exact sequences with the
 * sampler's routing of every token forced, and with its own. With a router whose top-k is decided by
 * near-ties (as in a freshly initialised or a collapsed router), free routing flips experts between the
 * sampler's kernels and the trainer's, and the gap shows it; replaying the routing removes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchDecoder, type DecodeRequest } from '../../../native/model/decoder';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { GenerateOptions, type TokenRouting } from '../../../native/model/policy-api';
import { loadT1Policy, type LoadedPolicy } from '../../../native/model/policy-model';
import { paramName } from '../../../native/model/config';
import { rowFromSample } from '../../../electron/rl/batch';
import { measureGap } from '../../../electron/rl/scoring';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig({
  vocab_size: 32,
  max_position_embeddings: 128,
  num_experts: 6,
  num_experts_per_tok: 2,
  hidden_size: 16,
  moe_intermediate_size: 8,
  initializer_range: 0.3,
});
const weights = tinyWeights(config, 3);
// Near-tied router: experts come in triplets whose router columns differ by ~1e-7 relative, the size of the
// float32 difference between the sampler's kernels and the trainer's; their FFN weights differ as usual.
// Two of three get the top-k, so free routing swaps one for the third now and then, as a real router does
// at its ties.
const TWIN_OFFSET = 3e-7;
for (let l = 0; l < config.num_hidden_layers; l++) {
  const E = config.num_experts;
  const router = weights.get(paramName.router(l))!;
  for (let h = 0; h < config.hidden_size; h++) {
    for (let e = 0; e < E; e += 3) {
      router[h * E + e + 1] = router[h * E + e]! * (1 + TWIN_OFFSET * (((h * 7 + e) % 5) - 2));
      router[h * E + e + 2] = router[h * E + e]! * (1 + TWIN_OFFSET * (((h * 3 + e) % 7) - 3));
    }
  }
}
const request = (seed: number): DecodeRequest => ({ ...GenerateOptions.parse({ maxTokens: 12 }), seed });

let policy: LoadedPolicy;
beforeAll(async () => {
  policy = await loadT1Policy(config, weights, { provider: 'cpu', intraOpThreads: 1 });
});
afterAll(async () => {
  await policy.decoder.session.release();
});

describe('R3 on every token', () => {
  it('closes the train-inference gap that free routing leaves, on the same multi-turn batch', async () => {
    const decoder = new BatchDecoder(policy.decoder);
    const samples = await Promise.all(
      [0, 1, 2, 3].map(async (e) => {
        const prompt = Array.from({ length: 10 + e }, (_, i) => (i * 7 + e) % 32);
        const first = await decoder.generate(prompt, request(10 + e));
        const observation = [5, 6, 7, 8, 9, 10];
        const second = [...prompt, ...first.tokens.map((t) => t.id), ...observation];
        const next = await decoder.generate(second, request(20 + e));
        expect(next.timing.cachedPromptTokens).toBeGreaterThan(0);
        const ids = [...second, ...next.tokens.map((t) => t.id)];
        const mask = ids.map((_, i) =>
          (i >= prompt.length && i < prompt.length + first.tokens.length) || i >= second.length ? 1 : 0,
        ) as (0 | 1)[];
        const logprobs = ids.map((_, i) =>
          i >= second.length
            ? next.tokens[i - second.length]!.logprob
            : i >= prompt.length && i < prompt.length + first.tokens.length
              ? first.tokens[i - prompt.length]!.logprob
              : null,
        );
        // Every processed token's routing, first as processed: turn 1's prompt and samples, then turn 2's prefill.
        const experts = (r: TokenRouting) => r.experts;
        const routing = [
          ...first.promptRouting!.map(experts),
          ...first.tokens.map((t) => experts(t.routing!)),
          ...next.promptRouting!.slice(prompt.length + first.tokens.length).map(experts),
          ...next.tokens.map((t) => experts(t.routing!)),
        ];
        expect(routing).toHaveLength(ids.length);
        return { ids, mask, logprobs, routing };
      }),
    );
    const rows = samples.map(rowFromSample);
    const cache = new TrainingGraphCache(config, { provider: 'cpu', intraOpThreads: 1 });
    const gap = await measureGap(config, cache, weights, rows);
    await cache.clear();
    console.log(
      `[r3-gap] R3 mean ${gap.r3.mean.toExponential(2)} max ${gap.r3.max.toExponential(2)}; free mean ${gap.free.mean.toExponential(2)} max ${gap.free.max.toExponential(2)}; agreement ${gap.agreement.map((a) => a.toFixed(3)).join(' ')}; tokens ${gap.r3.tokens}`,
    );
    expect(gap.unrouted).toBe(0);
    expect(gap.r3.tokens).toBeGreaterThan(40);
    expect(gap.r3.mean).toBeLessThan(gap.free.mean);
    expect(gap.r3.max).toBeLessThan(1e-4);
    expect(Math.min(...gap.agreement)).toBeLessThan(1);
  });
});
