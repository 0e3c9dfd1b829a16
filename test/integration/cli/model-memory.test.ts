/**
 * A model that cannot fit is refused before a weight is read, with the numbers: `model sample` and
 * `train sft|ppo` on a published folder under a lowered memory limit (T1LAB_MEMORY_LIMIT_BYTES stands in
 * for a smaller machine), and no run folder is left behind. The same folder loads under the real limit.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countParameters } from '../../../native/model/config';
import { readModelConfig } from '../../../native/model/policy-checkpoint';
import { runT1lab } from '../../helpers/cli';
import { writeHfTestCheckpoint } from '../../helpers/hf-checkpoint';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-model-memory-');
afterAll(() => tmp.remove());
const hf = join(tmp.path, 'qwen3-moe');
writeHfTestCheckpoint(hf, 'qwen3_moe', { shards: 2 });
const params = countParameters(readModelConfig(hf)!);

describe('models that cannot fit the memory', () => {
  it('model sample: refused with the parameter count, the estimate and the limit; loads under the real limit', async () => {
    // Between the training estimate (16 B/parameter) and the sampling one (20 B/parameter).
    const limit = String(params * 18);
    const env = { T1LAB_HOME: join(tmp.path, 'home'), T1LAB_MEMORY_LIMIT_BYTES: limit };
    const r = await runT1lab(['model', 'sample', hf, '--prompt', 'ls', '--max-tokens', '2'], {
      env,
      timeoutMs: 240_000,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${hf}: ${(params / 1e6).toFixed(1)}M parameters need about`);
    expect(r.stderr).toMatch(
      /20 bytes per parameter for sampling .*; the limit is 0\.0 GiB \(T1LAB_MEMORY_LIMIT_BYTES\), [\d.]+ GiB available now\. Not loading/,
    );
    const ok = await runT1lab(['model', 'sample', hf, '--prompt', 'ls', '--max-tokens', '2'], {
      env: { T1LAB_HOME: join(tmp.path, 'home') },
      timeoutMs: 240_000,
    });
    expect(ok.code, ok.stderr).toBe(0);
  }, 600_000);

  it('train sft / train ppo: refused before the run folder is made (PPO counts the trainer and the sampler)', async () => {
    const env = { T1LAB_HOME: join(tmp.path, 'home'), T1LAB_MEMORY_LIMIT_BYTES: String(params * 30) };
    const config = (stage: string) => {
      const path = join(tmp.path, `${stage}.toml`);
      writeFileSync(path, `stage = "${stage}"\n`);
      return path;
    };
    const sft = await runT1lab(
      [
        'train',
        'sft',
        '--config',
        config('sft'),
        '--model',
        hf,
        '--data',
        join(tmp.path, 'none.jsonl'),
        '--out',
        join(tmp.path, 'sft'),
      ],
      { env, timeoutMs: 240_000 },
    );
    // 30 B/parameter holds the SFT trainer (16): SFT goes on to the data, which is missing.
    expect(sft.stderr).not.toContain('parameters need about');
    const ppo = await runT1lab(
      [
        'train',
        'ppo',
        '--config',
        config('ppo'),
        '--model',
        hf,
        '--data',
        join(tmp.path, 'suite'),
        '--out',
        join(tmp.path, 'ppo'),
      ],
      { env, timeoutMs: 240_000 },
    );
    expect(ppo.code).not.toBe(0);
    expect(ppo.stderr).toMatch(
      /model\.checkpoint: .* parameters need about [\d.]+ GiB \(16 bytes per parameter for training .* plus 20 bytes per parameter for sampling/,
    );
    expect(existsSync(join(tmp.path, 'ppo'))).toBe(false);
    const small = { ...env, T1LAB_MEMORY_LIMIT_BYTES: String(params * 10) };
    const sft2 = await runT1lab(
      [
        'train',
        'sft',
        '--config',
        config('sft'),
        '--model',
        hf,
        '--data',
        join(tmp.path, 'none.jsonl'),
        '--out',
        join(tmp.path, 'sft2'),
      ],
      { env: small, timeoutMs: 240_000 },
    );
    expect(sft2.code).not.toBe(0);
    expect(sft2.stderr).toContain('16 bytes per parameter for training');
    expect(existsSync(join(tmp.path, 'sft2'))).toBe(false);
  }, 600_000);
});
