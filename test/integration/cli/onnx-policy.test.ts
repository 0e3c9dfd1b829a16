/**
 * The local policy through the same harness: an untrained nano checkpoint drives a real episode. It fails the
 * task, but every sampled token is in the trajectory with its id, log-prob and routing, and in the ledger.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEpisodeSummary } from '../../../electron/domain/runs';
import type { Trajectory } from '../../../electron/domain/trajectory';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

describe('onnx:CHECKPOINT policy', () => {
  const tmp = makeTempDir('t1lab-onnx-policy-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  const checkpoint = join(tmp.path, 'nano');
  let suite: string;

  beforeAll(async () => {
    suite = writeSuite(join(tmp.path, 'suite'));
    const init = await runT1lab(
      ['model', 'init', '--preset', 'nano', '--out', checkpoint, '--set', 'num_hidden_layers=2'],
      { env, timeoutMs: 120_000 },
    );
    expect(init.code, init.stderr).toBe(0);
  }, 120_000);
  afterAll(() => tmp.remove());

  it('runs an episode with token ids, log-probs and routing for every sampled token', async () => {
    const r = await runT1lab(
      [
        'run',
        'make-hello',
        '--suite',
        suite,
        '--policy',
        `onnx:${checkpoint}`,
        '--max-turns',
        '2',
        '--max-tokens',
        '24',
        '--seed',
        '7',
        '--json',
      ],
      { env, timeoutMs: 120_000 },
    );
    const s = parseJsonOutput<RunEpisodeSummary>(r);
    expect(s).toMatchObject({ task: 'make-hello', resolved: false, turns: 2, stopReason: 'max_turns' });
    expect(s.tokens.completion).toBeGreaterThan(0);
    const t = JSON.parse(
      readFileSync(join(s.runDir, 'episodes', 'make-hello-a0', 'trajectory.json'), 'utf8'),
    ) as Trajectory;
    expect(t.policy.protocol).toBe('hermes');
    for (const turn of t.turns) {
      const tokens = turn.tokens!;
      expect(tokens.ids.length).toBeGreaterThan(0);
      expect(tokens.logprobs).toHaveLength(tokens.ids.length);
      expect(tokens.logprobs.every((l) => l <= 0 && Number.isFinite(l))).toBe(true);
      expect(tokens.routing).toHaveLength(tokens.ids.length);
      expect(tokens.routing!.every((layers) => layers.length === 2 && layers.every((k) => k.length >= 1))).toBe(true);
    }
    const ledger = t.ledger!;
    expect(ledger.counters.lossDrift).toBe(0);
    // Every sampled id, in order, is trained on in exactly one sample (forks keep samples as sampled).
    const trained = ledger.samples.flatMap((sample) => sample.ids.filter((_, i) => sample.mask[i] === 1));
    const masked = ledger.counters.maskedSampled;
    expect(trained.length + masked).toBe(t.turns.reduce((n, turn) => n + turn.tokens!.ids.length, 0));
    // R3 on every token: the sampler's experts for every token it processed, prompt included (exact TITO:
    // the sample ends at the last sampled token, and the sampler processed all of it).
    for (const sample of ledger.samples) {
      const routed = sample.routing!;
      expect(routed).toHaveLength(sample.ids.length);
      expect(routed.every((r) => r !== null && r.length === 2)).toBe(true);
      expect(sample.fed!.length).toBeGreaterThan(0);
    }
    expect(ledger.counters).toMatchObject({ exact: 1, retokenized: 0 });
  }, 120_000);

  it('gets at least one turn on a real example task with the default reply budget (nano: 2048 positions)', async () => {
    const examples = join(REPO_ROOT, 'tasks', 'examples');
    const r = await runT1lab(
      [
        'run',
        'count-log-levels',
        '--suite',
        examples,
        '--policy',
        `onnx:${checkpoint}`,
        '--max-turns',
        '1',
        '--seed',
        '3',
        '--json',
      ],
      { env, timeoutMs: 120_000 },
    );
    const s = parseJsonOutput<RunEpisodeSummary>(r);
    // With the full system prompt this task's first prompt was ~1.7k tokens; small windows get the compact
    // prompt (issue 12): the same tools in far fewer words, so the instruction and a reply fit with room to spare.
    expect(s.tokens.prompt).toBeGreaterThan(300);
    expect(s.tokens.prompt).toBeLessThan(1000);
    expect(s).toMatchObject({ task: 'count-log-levels', resolved: false, turns: 1 });
    expect(s.tokens.completion).toBeGreaterThan(0);
  }, 120_000);
});
