/**
 * The KV-cache sampling graph reproduces the full-sequence scoring graph: prefill + one-token steps give the
 * same log-probs and the same routing, also for a batch whose rows are left-padded to a common cache.
 */
import { describe, expect, it } from 'vitest';
import {
  buildSamplingGraph,
  pastKeyName,
  pastValueName,
  presentKeyName,
  presentValueName,
} from '../../../native/model/sampling-graph';
import { buildTrainingGraph } from '../../../native/model/training-graph';
import { f32, i64, RuntimeSession, type HostTensor } from '../../../native/onnx/runtime';
import { tinyConfig, tinyWeights, weightFeeds } from '../../helpers/tiny-model';

const config = tinyConfig({ num_key_value_heads: 1 });
const weights = tinyWeights(config, 7);
const V = config.vocab_size;
const L = config.num_hidden_layers;
const k = config.num_experts_per_tok;
const nkv = config.num_key_value_heads;
const hd = config.head_dim;

function logSoftmaxAt(logits: Float32Array, offset: number, id: number): number {
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, logits[offset + i]!);
  let sum = 0;
  for (let i = 0; i < V; i++) sum += Math.exp(logits[offset + i]! - max);
  return logits[offset + id]! - max - Math.log(sum);
}

async function score(tokens: number[]): Promise<{ logprobs: number[]; experts: number[] }> {
  const T = tokens.length - 1;
  const built = buildTrainingGraph(config, {
    batch: 1,
    length: T,
    dtype: 'float32',
    expertCompute: 'dense',
    forcedRouting: false,
    loss: null,
  });
  const s = await RuntimeSession.create(built.bytes, { providers: ['cpu'], intraOpThreads: 1 });
  const out = await s.run({
    ...weightFeeds(config, weights, 'float32'),
    input_ids: i64(tokens.slice(0, T), [1, T]),
    targets: i64(tokens.slice(1), [1, T]),
    attention_mask: f32(new Array(T).fill(1), [1, T]),
  });
  await s.release();
  return {
    logprobs: Array.from(out.logprobs!.data as Float32Array),
    experts: Array.from(out.experts!.data as BigInt64Array, Number),
  };
}

const emptyPast = (B: number): Record<string, HostTensor> => {
  const feeds: Record<string, HostTensor> = {};
  for (let l = 0; l < L; l++) {
    feeds[pastKeyName(l)] = f32([], [B, nkv, 0, hd]);
    feeds[pastValueName(l)] = f32([], [B, nkv, 0, hd]);
  }
  return feeds;
};

describe('sampling graph with KV cache', () => {
  const variants = [
    { name: 'dense', options: { expertCompute: 'dense' } },
    { name: 'sparse', options: { expertCompute: 'sparse' } },
    { name: 'sparse, gate and up as one product', options: { expertCompute: 'sparse', fuseGateUp: true } },
    { name: 'fused', options: { expertCompute: 'fused' } },
  ] as const;
  for (const { name, options } of variants) {
    it(`prefill + steps reproduce scoring log-probs and routing (${name})`, async () => {
      const tokens = [1, 5, 9, 2, 11, 4, 7];
      const ref = await score(tokens);
      const session = await RuntimeSession.create(buildSamplingGraph(config, weights, options).bytes, {
        providers: ['cpu'],
        intraOpThreads: 1,
      });
      const T = tokens.length - 1;
      const logprobs: number[] = [];
      const experts: number[][] = Array.from({ length: L }, () => []);
      let past = emptyPast(1);
      const chunks = [
        [0, 3],
        [3, 4],
        [4, 5],
        [5, 6],
      ] as const;
      for (const [a, b] of chunks) {
        const S = b - a;
        const out = await session.run({
          input_ids: i64(tokens.slice(a, b), [1, S]),
          position_ids: i64(
            Array.from({ length: S }, (_, i) => a + i),
            [1, S],
          ),
          attention_mask: i64(new Array(b).fill(1), [1, b]),
          ...past,
        });
        expect(out.logits!.dims).toEqual([1, 1, V]);
        logprobs.push(logSoftmaxAt(out.logits!.data as Float32Array, 0, tokens[b]!));
        const e = out['routing.experts']!.data as BigInt64Array;
        for (let l = 0; l < L; l++) experts[l]!.push(...Array.from(e.subarray(l * S * k, (l + 1) * S * k), Number));
        past = {};
        for (let l = 0; l < L; l++) {
          past[pastKeyName(l)] = out[presentKeyName(l)]!;
          past[pastValueName(l)] = out[presentValueName(l)]!;
        }
      }
      await session.release();
      // prefill gives the log-prob of token 3 only; steps give 4, 5, 6
      const refAt = [2, 3, 4, 5].map((t) => ref.logprobs[t]!);
      for (let i = 0; i < refAt.length; i++) expect(Math.abs(logprobs[i]! - refAt[i]!)).toBeLessThan(1e-5);
      expect(experts.flat()).toEqual(ref.experts.slice(0, L * T * k));
    });
  }

  it('a left-padded batch row gives the same log-probs as the row alone', async () => {
    const session = await RuntimeSession.create(buildSamplingGraph(config, weights, { expertCompute: 'dense' }).bytes, {
      providers: ['cpu'],
      intraOpThreads: 1,
    });
    const long = [3, 1, 4, 1, 5];
    const short = [2, 7];
    const prefill = async (ids: number[]) =>
      session.run({
        input_ids: i64(ids, [1, ids.length]),
        position_ids: i64(
          ids.map((_, i) => i),
          [1, ids.length],
        ),
        attention_mask: i64(
          ids.map(() => 1),
          [1, ids.length],
        ),
        ...emptyPast(1),
      });
    const a = await prefill(long);
    const b = await prefill(short);
    // batch cache: the short row left-padded by 3 slots
    const pad = long.length - short.length;
    const feeds: Record<string, HostTensor> = {};
    for (let l = 0; l < L; l++) {
      for (const [pastName, presentName] of [
        [pastKeyName(l), presentKeyName(l)],
        [pastValueName(l), presentValueName(l)],
      ] as const) {
        const A = a[presentName]!.data as Float32Array;
        const Bv = b[presentName]!.data as Float32Array;
        const merged = new Float32Array(2 * nkv * long.length * hd);
        merged.set(A, 0);
        for (let h = 0; h < nkv; h++)
          merged.set(
            Bv.subarray(h * short.length * hd, (h + 1) * short.length * hd),
            nkv * long.length * hd + (h * long.length + pad) * hd,
          );
        feeds[pastName] = f32(merged, [2, nkv, long.length, hd]);
      }
    }
    const step = await session.run({
      ...feeds,
      input_ids: i64([6, 8], [2, 1]),
      position_ids: i64([long.length, short.length], [2, 1]),
      attention_mask: i64(
        [...new Array(long.length + 1).fill(1), ...new Array(pad).fill(0), ...new Array(short.length + 1).fill(1)],
        [2, long.length + 1],
      ),
    });
    const alone = await session.run({
      input_ids: i64([8], [1, 1]),
      position_ids: i64([short.length], [1, 1]),
      attention_mask: i64(new Array(short.length + 1).fill(1), [1, short.length + 1]),
      ...Object.fromEntries(
        Array.from({ length: L }, (_, l) => [
          [pastKeyName(l), b[presentKeyName(l)]!],
          [pastValueName(l), b[presentValueName(l)]!],
        ]).flat(),
      ),
    });
    const batched = (step.logits!.data as Float32Array).subarray(V, 2 * V);
    const solo = alone.logits!.data as Float32Array;
    for (let i = 0; i < V; i++) expect(Math.abs(batched[i]! - solo[i]!)).toBeLessThan(1e-5);
    await session.release();
  });
});
