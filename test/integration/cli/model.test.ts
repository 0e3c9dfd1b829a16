/**
 * `t1lab model` as a user runs it, on a small config: init -> info -> sample -> check -> export-onnx ->
 * sample the export (an external checkpoint) -> bad usage and corrupt checkpoints fail clearly.
 */
import { truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-model-');
const dir = join(tmp.path, 'tiny');
// Small enough for CI: 2 layers, 600-token vocabulary, short context.
const SMALL = ['--set', 'vocab_size=600', '--set', 'num_hidden_layers=2', '--set', 'max_position_embeddings=256'];

beforeAll(async () => {
  const r = await runT1lab(['model', 'init', '--preset', 'nano', '--out', dir, '--seed', '3', ...SMALL, '--json'], {
    timeoutMs: 120_000,
  });
  expect(r.code, r.stderr).toBe(0);
}, 130_000);
afterAll(() => tmp.remove());

describe('t1lab model', () => {
  it('info shows config, size and hashes', async () => {
    const info = parseJsonOutput<{
      format: string;
      status: string;
      parameters: number;
      config: { num_hidden_layers: number };
      files: { name: string; sha256: string }[];
    }>(await runT1lab(['model', 'info', dir, '--verify', '--json']));
    expect(info.format).toBe('t1');
    expect(info.status).toBe('ok');
    expect(info.config.num_hidden_layers).toBe(2);
    expect(info.files.find((f) => f.name === 'model.safetensors')?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sample gives tokens with log-probs and routing; the same seed gives the same tokens', async () => {
    type Sample = {
      tokens: { id: number; logprob: number; routing: { experts: number[][] } }[];
      provider: string;
      seed: number;
    };
    const args = ['model', 'sample', dir, '--prompt', 'ls -la', '--max-tokens', '6', '--seed', '11', '--json'];
    const a = parseJsonOutput<Sample>(await runT1lab(args));
    const b = parseJsonOutput<Sample>(await runT1lab(args));
    expect(a.tokens.length).toBeGreaterThan(0);
    expect(a.tokens.map((t) => t.id)).toEqual(b.tokens.map((t) => t.id));
    for (const t of a.tokens) {
      expect(t.logprob).toBeLessThan(0);
      expect(t.routing.experts).toHaveLength(2);
    }
    expect(a.provider).toBe('cpu');
    expect(a.seed).toBe(11);
  });

  it('check: KV-cache sampling agrees with full-sequence scoring', async () => {
    const r = await runT1lab(['model', 'check', dir, '--samples', '3', '--tokens', '12', '--json'], {
      timeoutMs: 120_000,
    });
    const report = parseJsonOutput<
      Record<string, number> & { sampler: { provider: string }; scorer: { provider: string } }
    >(r);
    expect(Object.keys(report).sort()).toEqual([
      'maxAbsLogprobDiff',
      'meanAbsLogprobDiff',
      'routingAgreement',
      'routingAgreementWithReplay',
      'sampler',
      'scorer',
      'tokens',
    ]);
    // --provider defaults to cpu for both graphs; a provider that is not one of auto, cpu, cuda is bad usage.
    expect([report.sampler.provider, report.scorer.provider]).toEqual(['cpu', 'cpu']);
    expect((await runT1lab(['model', 'check', dir, '--provider', 'tpu'])).code).toBe(2);
    expect(report.tokens).toBe(36);
    expect(report.maxAbsLogprobDiff).toBeLessThan(1e-4);
    expect(report.routingAgreementWithReplay).toBe(1);
    expect(r.code).toBe(0);
  });

  it('export-onnx writes a common-layout folder that samples the same tokens as an external checkpoint', async () => {
    const out = join(tmp.path, 'exported');
    const exported = parseJsonOutput<{ path: string; inputs: string[]; outputs: string[] }>(
      await runT1lab(['model', 'export-onnx', dir, out, '--json']),
    );
    expect(exported.inputs.slice(0, 3)).toEqual(['input_ids', 'attention_mask', 'position_ids']);
    expect(exported.outputs).toContain('present.1.value');
    const args = (d: string) => [
      'model',
      'sample',
      d,
      '--prompt',
      'make -j4',
      '--max-tokens',
      '5',
      '--seed',
      '2',
      '--json',
    ];
    type Sample = { tokens: { id: number; routing: unknown }[] };
    const ours = parseJsonOutput<Sample>(await runT1lab(args(dir)));
    const theirs = parseJsonOutput<Sample>(await runT1lab(args(out)));
    expect(theirs.tokens.map((t) => t.id)).toEqual(ours.tokens.map((t) => t.id));
    expect(theirs.tokens.every((t) => t.routing === null)).toBe(true);
  });

  it('fails clearly: bad usage exits 2, an unknown provider, a truncated checkpoint exits 1 naming the file', async () => {
    expect((await runT1lab(['model', 'init', '--preset', 'huge', '--out', join(tmp.path, 'x')])).code).toBe(2);
    expect((await runT1lab(['model', 'init', '--out', join(tmp.path, 'y'), '--set', 'hidden_size=abc'])).code).toBe(2);
    const cuda = await runT1lab(['model', 'sample', dir, '--prompt', 'x', '--provider', 'cuda']);
    expect(cuda.code).toBe(1);
    expect(cuda.stderr).toMatch(/CUDA execution provider was requested but/);
    const broken = join(tmp.path, 'broken');
    await runT1lab(['model', 'init', '--out', broken, ...SMALL]);
    truncateSync(join(broken, 'model.safetensors'), 1000);
    const r = await runT1lab(['model', 'check', broken]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('model.safetensors');
    // Six CLI starts: 60 s was outrun at load average 10.
  }, 240_000);
});
