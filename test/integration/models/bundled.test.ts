/**
 * The checkpoints shipped under models/ (the nano reproduction's SFT and RL policies, f16): small enough to
 * ship (<= 20 MB together), valid, listed by `t1lab model list` (what the Models page lists) as bundled,
 * and usable as they are: `t1lab eval --policy onnx:models/<rl>` runs an episode in a real sandbox.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { REPO_ROOT, parseJsonOutput, runT1lab } from '../../helpers/cli';
import { QUICK_SUITE, writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const MODELS = join(REPO_ROOT, 'models');
const bundled = existsSync(MODELS)
  ? readdirSync(MODELS).filter((d) => existsSync(join(MODELS, d, 'manifest.json')))
  : [];
const du = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (n, e) => n + (e.isDirectory() ? du(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );

describe('bundled models', () => {
  const tmp = makeTempDir('t1lab-bundled-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  afterAll(() => tmp.remove());

  it('ships an SFT and an RL checkpoint, 20 MB at most together, each valid', () => {
    expect(bundled.some((d) => d.includes('sft'))).toBe(true);
    expect(bundled.some((d) => d.includes('rl'))).toBe(true);
    expect(du(MODELS)).toBeLessThanOrEqual(20 * 1024 * 1024);
    for (const d of bundled) {
      const c = loadCheckpoint(join(MODELS, d));
      expect(c.config.vocab_size).toBeGreaterThan(0);
      expect(c.parameters.size).toBeGreaterThan(0);
    }
  });

  it('t1lab model list marks them bundled', async () => {
    const r = await runT1lab(['model', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const list = parseJsonOutput<{ roots: string[]; checkpoints: { path: string; status: string }[] }>(r);
    expect(list.roots).toContain(MODELS);
    for (const d of bundled) expect(list.checkpoints.find((c) => c.path === join(MODELS, d))?.status).toBe('ok');
    const text = await runT1lab(['model', 'list'], { env });
    expect(text.stdout).toContain('(bundled)');
  });

  it('t1lab eval --policy onnx:models/<rl> runs out of the box', async () => {
    const rl = bundled.find((d) => d.includes('rl'))!;
    const suite = writeSuite(join(tmp.path, 'suite'), QUICK_SUITE.slice(0, 1));
    const r = await runT1lab(
      [
        'eval',
        '--suite',
        suite,
        '--policy',
        `onnx:models/${rl}`,
        '--max-turns',
        '1',
        '--max-tokens',
        '16',
        '--out',
        join(tmp.path, 'eval'),
        '--json',
      ],
      { env, timeoutMs: 240_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const result = parseJsonOutput<{ tasks: number; episodes: number; policy: string }>(r);
    expect(result).toMatchObject({ tasks: 1, episodes: 1 });
    expect(result.policy).toContain(rl);
  }, 300_000);
});
