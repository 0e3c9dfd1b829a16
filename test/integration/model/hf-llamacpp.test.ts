/**
 * The engine against an independent implementation: for every supported published architecture, a small
 * random checkpoint in the Hugging Face layout is loaded by the lab (openCheckpoint, the policy worker's
 * path), exported to GGUF from the published folder (its own name table), and evaluated by llama.cpp.
 * Next-token log-probs at every position of several prompts agree within 1e-3 (f32), and greedy
 * continuations of 32 tokens are identical. The last tests show the comparison is sharp enough to see
 * one architecture detail dropped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { paramName, type ModelConfig } from '../../../native/model/config';
import { exportGgufFromHf } from '../../../native/model/gguf/from-hf';
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import { seededUniform } from '../../../native/util/random';
import { HF_TEST_FAMILIES, writeHfTestCheckpoint, type HfTestFamily } from '../../helpers/hf-checkpoint';
import { LlamaReference, labGreedy, labLogprobs, maxLogprobGap } from '../../helpers/llama-cpp';

const root = mkdtempSync(join(tmpdir(), 't1-hf-llamacpp-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function prompts(vocab: number, seed: number): number[][] {
  const u = seededUniform(seed);
  return [7, 19, 45].map((n) => Array.from({ length: n }, () => Math.floor(u() * vocab)));
}

async function loadBoth(family: HfTestFamily, dtype: 'F32' | 'BF16' = 'F32') {
  const dir = join(root, `${family}-${dtype}`);
  const written = writeHfTestCheckpoint(dir, family, { dtype, shards: family === 'llama' ? 1 : 3 });
  const opened = openCheckpoint(dir);
  if (opened.kind !== 't1-moe')
    throw new Error(`expected the published folder to load into the lab's architecture, got ${opened.kind}`);
  const gguf = join(root, `${family}-${dtype}.gguf`);
  exportGgufFromHf(dir, gguf, { dtype: 'f32' });
  return { opened, reference: await LlamaReference.open(gguf), vocab: written.vocabSize };
}

async function gap(
  config: ModelConfig,
  weights: ReadonlyMap<string, Float32Array>,
  reference: LlamaReference,
  ps: number[][],
  vocab: number,
): Promise<number> {
  let worst = 0;
  for (const p of ps)
    worst = Math.max(worst, maxLogprobGap(await labLogprobs(config, weights, p), await reference.logprobs(p, vocab)));
  return worst;
}

describe('published checkpoints against llama.cpp', { timeout: 180_000 }, () => {
  for (const family of HF_TEST_FAMILIES) {
    it(`${family}: next-token log-probs within 1e-3 and 32 greedy tokens identical`, async () => {
      const { opened, reference, vocab } = await loadBoth(family);
      try {
        const ps = prompts(vocab, 11);
        const worst = await gap(opened.config, opened.weights, reference, ps, vocab);
        expect(worst).toBeLessThanOrEqual(1e-3);
        const ours = await labGreedy(opened.config, opened.weights, ps, 32);
        for (let i = 0; i < ps.length; i++) expect(ours[i]).toEqual(await reference.greedy(ps[i]!, 32));
      } finally {
        await reference.close();
      }
    });
  }

  it('BF16 shards load as the same values llama.cpp reads from the export', async () => {
    const { opened, reference, vocab } = await loadBoth('qwen3_moe', 'BF16');
    try {
      expect(await gap(opened.config, opened.weights, reference, prompts(vocab, 3), vocab)).toBeLessThanOrEqual(1e-3);
    } finally {
      await reference.close();
    }
  });

  it("sees a dropped detail: Qwen2-MoE's shared-expert gate made constant, Qwen3-MoE's QK-norm, OLMoE's unnormalized top-k", async () => {
    const cases: [HfTestFamily, (c: ModelConfig, w: Map<string, Float32Array>) => ModelConfig][] = [
      [
        'qwen2_moe',
        (c, w) => {
          // Gate weights zeroed: sigmoid(0) = 0.5 on every token, the gate no longer reads x.
          for (let l = 0; l < c.num_hidden_layers; l++)
            w.set(paramName.sharedExpertGate(l), new Float32Array(c.hidden_size));
          return c;
        },
      ],
      ['qwen3_moe', (c) => ({ ...c, qk_norm: undefined })],
      ['olmoe', (c) => ({ ...c, norm_topk_prob: true })],
    ];
    for (const [family, drop] of cases) {
      const { opened, reference, vocab } = await loadBoth(family);
      try {
        const ps = prompts(vocab, 5);
        const weights = new Map(opened.weights);
        const broken = drop(opened.config, weights);
        const worst = await gap(broken, weights, reference, ps, vocab);
        expect(worst, `${family} with the detail dropped`).toBeGreaterThan(1e-2);
      } finally {
        await reference.close();
      }
    }
  });
});
