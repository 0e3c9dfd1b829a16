/**
 * Published checkpoints on the user's paths: `t1lab model info|sample|check` on a sharded BF16 Qwen3-MoE
 * folder (routing outputs and R3 replay included), and the way back out: `model export-hf` of the lab's
 * own checkpoint (Qwen3-MoE with `--set qk_norm=head`, Mixtral for the default architecture) reloads to the
 * same log-probs, and `model export-gguf` of it agrees with llama.cpp.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeHfTestCheckpoint } from '../../helpers/hf-checkpoint';
import { LlamaReference, labLogprobs, maxLogprobGap } from '../../helpers/llama-cpp';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-model-hf-');
const hf = join(tmp.path, 'qwen3-moe');
const own = join(tmp.path, 'own');
const SMALL = [
  '--set',
  'vocab_size=600',
  '--set',
  'num_hidden_layers=2',
  '--set',
  'max_position_embeddings=256',
  '--set',
  'initializer_range=0.2',
];

beforeAll(async () => {
  writeHfTestCheckpoint(hf, 'qwen3_moe', { dtype: 'BF16', shards: 3 });
  const r = await runT1lab(
    ['model', 'init', '--preset', 'nano', '--out', own, '--seed', '5', ...SMALL, '--set', 'qk_norm=head', '--json'],
    { timeoutMs: 120_000 },
  );
  expect(r.code, r.stderr).toBe(0);
}, 130_000);
afterAll(() => tmp.remove());

function opened(dir: string) {
  const c = openCheckpoint(dir);
  if (c.kind !== 't1-moe') throw new Error(`${dir}: ${c.kind}`);
  return c;
}

describe('t1lab model on a published Hugging Face folder', () => {
  it('info describes it as hf: architecture, options, shards', async () => {
    const info = parseJsonOutput<{
      format: string;
      status: string;
      config: { qk_norm: string; num_experts: number };
      metadata: { architecture: string; shards: number };
      weightsDtype: string;
    }>(await runT1lab(['model', 'info', hf, '--json']));
    expect(info).toMatchObject({
      format: 'hf',
      status: 'ok',
      weightsDtype: 'BF16',
      config: { qk_norm: 'head', num_experts: 4 },
      metadata: { architecture: 'Qwen3MoeForCausalLM', shards: 3 },
    });
  });

  it('sample gives tokens with routing for every MoE layer; check replays the routing (R3)', async () => {
    const s = parseJsonOutput<{ tokens: { id: number; routing: { experts: number[][] } }[] }>(
      await runT1lab(
        ['model', 'sample', hf, '--prompt', 'ls -la /tmp', '--max-tokens', '6', '--temperature', '0', '--json'],
        { timeoutMs: 120_000 },
      ),
    );
    expect(s.tokens.length).toBeGreaterThan(0);
    for (const t of s.tokens) expect(t.routing.experts.map((e) => e.length)).toEqual([2, 2]);
    const check = parseJsonOutput<{ maxAbsLogprobDiff: number; routingAgreementWithReplay: number }>(
      await runT1lab(['model', 'check', hf, '--samples', '2', '--tokens', '8', '--json'], { timeoutMs: 120_000 }),
    );
    expect(check.maxAbsLogprobDiff).toBeLessThan(1e-3);
    expect(check.routingAgreementWithReplay).toBe(1);
  }, 240_000);
});

describe('exporting the lab checkpoint', () => {
  it('export-hf writes Qwen3-MoE for a QK-norm model; it reloads to the same log-probs', async () => {
    const out = join(tmp.path, 'own-hf');
    const r = parseJsonOutput<{ architecture: string; files: string[] }>(
      await runT1lab(['model', 'export-hf', own, out, '--json']),
    );
    expect(r.architecture).toBe('Qwen3MoeForCausalLM');
    expect(r.files).toContain('tokenizer.json');
    const a = opened(own);
    const b = opened(out);
    expect(b.config).toMatchObject(a.config);
    const prompt = [3, 50, 200, 7, 99, 12, 400, 5];
    expect(
      maxLogprobGap(await labLogprobs(a.config, a.weights, prompt), await labLogprobs(b.config, b.weights, prompt)),
    ).toBeLessThan(1e-6);
  });

  it('export-hf of a model without QK-norm refuses Qwen3-MoE by name and writes Mixtral (exactly the default architecture)', async () => {
    const plain = join(tmp.path, 'plain');
    expect(
      (
        await runT1lab(['model', 'init', '--preset', 'nano', '--out', plain, '--seed', '6', ...SMALL, '--json'], {
          timeoutMs: 120_000,
        })
      ).code,
    ).toBe(0);
    const refused = await runT1lab(['model', 'export-hf', plain, join(tmp.path, 'x'), '--architecture', 'qwen3_moe']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/cannot be written as Qwen3MoeForCausalLM.*no QK-norm.*--set qk_norm=head/);
    const r = parseJsonOutput<{ architecture: string }>(
      await runT1lab(['model', 'export-hf', plain, join(tmp.path, 'plain-hf'), '--json']),
    );
    expect(r.architecture).toBe('MixtralForCausalLM');
  }, 180_000);

  it('export-gguf of the lab checkpoint agrees with llama.cpp within 1e-3', async () => {
    const gguf = join(tmp.path, 'own.gguf');
    const r = parseJsonOutput<{ architecture: string; tensors: number }>(
      await runT1lab(['model', 'export-gguf', own, gguf, '--json']),
    );
    expect(r.architecture).toBe('qwen3moe');
    const a = opened(own);
    const reference = await LlamaReference.open(gguf);
    try {
      const prompt = [3, 50, 200, 7, 99, 12, 400, 5, 17, 250];
      expect(
        maxLogprobGap(
          await labLogprobs(a.config, a.weights, prompt),
          await reference.logprobs(prompt, a.config.vocab_size),
        ),
      ).toBeLessThanOrEqual(1e-3);
    } finally {
      await reference.close();
    }
  });
});
