/**
 * `t1lab eval` with a local policy at a budget the oracle itself cannot meet: the warning is on stderr, in
 * the `--json` summary's `warnings` and in the run's record (run.json), with the feasible share.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary, RunManifest } from '../../../electron/domain/runs';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

describe('t1lab eval: the feasibility warning', () => {
  const tmp = makeTempDir('t1lab-eval-feasible-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  let suite: string;

  beforeAll(() => {
    suite = writeSuite(join(tmp.path, 'suite'));
  });
  afterAll(() => tmp.remove());

  it('1 turn x 16 tokens: the oracle finishes none of the quick suite (one command of ~30 tokens each after `cd /app`, which is no call of its own), and eval says so', async () => {
    const policy = `onnx:${join(REPO_ROOT, 'models', 'nano-sft')}`;
    const r = await runT1lab(
      [
        'eval',
        '--suite',
        suite,
        '--policy',
        policy,
        '--max-turns',
        '1',
        '--max-tokens',
        '16',
        '--concurrency',
        '2',
        '--seed',
        '1',
        '--json',
      ],
      { env, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const s = parseJsonOutput<EvalSummary>(r);
    expect(r.stderr).toMatch(
      /warning: only 0 of 3 tasks of the suite .* \(0%\) can be finished by the oracle itself at 1 turns x 16 tokens \(3 have a longer call; 3 of 3 oracle calls are longer than 16 tokens\)/,
    );
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings![0]).toContain('can be finished by the oracle itself at 1 turns x 16 tokens');
    const manifest = JSON.parse(readFileSync(join(s.runDir, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.warnings).toEqual(s.warnings);
    expect(manifest.feasibility).toEqual({
      tasks: 3,
      feasible: 0,
      share: 0,
      maxTurns: 1,
      maxTokens: 16,
      cutCalls: { count: 3, calls: 3, share: 1 },
    });
  }, 300_000);
});
