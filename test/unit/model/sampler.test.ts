import { describe, expect, it } from 'vitest';
import { TokenSampler } from '../../../native/model/sampler';

const logits = Float32Array.from([2, 1, 0.5, -1, 3]); // most likely: 4, then 0, 1, 2, 3
const logSoftmax = (x: Float32Array, t = 1) => {
  const m = Math.max(...x);
  const z = Math.log(Array.from(x).reduce((s, v) => s + Math.exp((v - m) / t), 0));
  return Array.from(x, (v) => (v - m) / t - z);
};

describe('token sampler', () => {
  it('greedy picks the argmax with its temperature-1 log-prob', () => {
    const p = new TokenSampler({ temperature: 0, topK: 0, topP: 1 }, 1).pick(logits, 0, 5);
    expect(p.id).toBe(4);
    expect(p.logprob).toBeCloseTo(logSoftmax(logits)[4]!, 10);
  });

  it('draws by probability, reproducibly per seed', () => {
    const counts = new Array(5).fill(0);
    const s = new TokenSampler({ temperature: 1, topK: 0, topP: 1 }, 42);
    const n = 20_000;
    for (let i = 0; i < n; i++) counts[s.pick(logits, 0, 5).id]++;
    const probs = logSoftmax(logits).map(Math.exp);
    counts.forEach((c, i) => expect(Math.abs(c / n - probs[i]!)).toBeLessThan(0.02));
    const a = new TokenSampler({ temperature: 1, topK: 0, topP: 1 }, 7);
    const b = new TokenSampler({ temperature: 1, topK: 0, topP: 1 }, 7);
    for (let i = 0; i < 50; i++) expect(a.pick(logits, 0, 5).id).toBe(b.pick(logits, 0, 5).id);
  });

  it('top-k and top-p keep only the most likely tokens; log-probs stay those of the tempered distribution', () => {
    const k2 = new TokenSampler({ temperature: 0.7, topK: 2, topP: 1 }, 3);
    const p2 = new TokenSampler({ temperature: 1, topK: 0, topP: 0.5 }, 3);
    const seenK = new Set<number>();
    const seenP = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const a = k2.pick(logits, 0, 5);
      seenK.add(a.id);
      expect(a.logprob).toBeCloseTo(logSoftmax(logits, 0.7)[a.id]!, 10);
      seenP.add(p2.pick(logits, 0, 5).id);
    }
    expect([...seenK].sort()).toEqual([0, 4]);
    expect([...seenP]).toEqual([4]); // p(4) = 0.61 >= 0.5 alone
  });

  it('reads logits at an offset (a row of a batch)', () => {
    const batch = new Float32Array(10);
    batch.set(logits, 5);
    expect(new TokenSampler({ temperature: 0, topK: 0, topP: 1 }, 1).pick(batch, 5, 5).id).toBe(4);
  });
});
