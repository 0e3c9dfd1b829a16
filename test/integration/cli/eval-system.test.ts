/**
 * A real `t1lab eval` (the oracle on the quick suite, real bubblewrap sandboxes) samples the machine into
 * the run folder's system.jsonl while it runs: plausible values, episodes and sandboxes seen running, no
 * GPU field on a machine without nvidia-smi; a resume appends; `t1lab runs show --json` summarizes it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary } from '../../../electron/domain/runs';
import type { RunSystemSample, SystemSummary } from '../../../electron/domain/system-samples';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const GB = 1024 ** 3;
const hasNvidiaSmi = (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, 'nvidia-smi')));
const samplesOf = (dir: string) =>
  readFileSync(join(dir, 'system.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunSystemSample);

describe('t1lab eval samples the machine', () => {
  const tmp = makeTempDir('t1lab-eval-system-');
  // A sample every 100 ms: a three-task oracle run lasts a few seconds.
  const env = { T1LAB_HOME: join(tmp.path, 'home'), T1LAB_SYSTEM_SAMPLE_MS: '100' };
  let suite: string;
  let runDir: string;

  beforeAll(() => {
    suite = writeSuite(join(tmp.path, 'suite'));
  });
  afterAll(() => tmp.remove());

  it('system.jsonl: a line per interval with plausible values; episodes and sandboxes rose above 0', async () => {
    const r = await runT1lab(['eval', '--suite', suite, '--policy', 'oracle', '--concurrency', '2', '--json'], {
      env,
      timeoutMs: 300_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const summary = parseJsonOutput<EvalSummary>(r);
    expect(summary).toMatchObject({ episodes: 3, resolvedRate: 1 });
    runDir = summary.runDir;
    const samples = samplesOf(runDir);
    expect(samples.length).toBeGreaterThanOrEqual(3);
    const times = samples.map((s) => Date.parse(s.t));
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
    // Within the run. That they span it (taken while episodes ran, the last once all had ended) is asserted
    // below by the episode counts, not by a spread in seconds, which a fast run makes small.
    expect((times.at(-1)! - times[0]!) / 1000).toBeLessThanOrEqual(summary.durationMs / 1000 + 1);
    for (const s of samples) {
      expect(s.mem_used_gb).toBeGreaterThan(0);
      expect(s.mem_used_gb).toBeLessThanOrEqual(totalmem() / GB);
      // The eval process: tsx, the harness, the sandboxes' node-pty: tens of MB at least, not GBs.
      expect(s.rss_gb).toBeGreaterThan(0.03);
      expect(s.rss_gb).toBeLessThan(4);
      expect(s.disk_free_gb).toBeGreaterThan(0);
      expect(s.load1).toBeGreaterThanOrEqual(0);
      if (s.cpu_percent !== undefined) expect(s.cpu_percent).toBeGreaterThanOrEqual(0);
      if (s.cpu_percent !== undefined) expect(s.cpu_percent).toBeLessThanOrEqual(100);
      expect(s.episodes).toBeLessThanOrEqual(2);
      if (!hasNvidiaSmi) expect(s).not.toHaveProperty('gpu');
    }
    expect(samples.filter((s) => s.cpu_percent !== undefined).length).toBeGreaterThanOrEqual(samples.length - 1);
    expect(Math.max(...samples.map((s) => s.episodes ?? 0))).toBeGreaterThan(0);
    expect(Math.max(...samples.map((s) => s.sandboxes ?? 0))).toBeGreaterThan(0);
    // Each episode starts the agent's sandbox and the verifier's (the count is of every one started).
    expect(samples.reduce((n, s) => n + (s.sandboxes_started ?? 0), 0)).toBeGreaterThanOrEqual(3);
    expect(samples.at(-1)).toMatchObject({ episodes: 0, sandboxes: 0 });
  }, 300_000);

  it('runs show --json: the run as before plus the system summary (and the samples with --samples)', async () => {
    const before = samplesOf(runDir).length;
    const resumed = await runT1lab(['eval', '--resume', runDir, '--json'], { env, timeoutMs: 120_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    // A resumed run appends to the same file.
    expect(samplesOf(runDir).length).toBeGreaterThan(before);
    const r = await runT1lab(['runs', 'show', runDir, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const shown = parseJsonOutput<{
      runId: string;
      kind: string;
      dir: string;
      summary: EvalSummary;
      system: { summary: SystemSummary; samples?: unknown[] };
    }>(r);
    expect(shown).toMatchObject({ kind: 'eval', dir: runDir, summary: { episodes: 3, resolvedRate: 1 } });
    expect(shown.system.samples).toBeUndefined();
    expect(shown.system.summary).toMatchObject({ samples: samplesOf(runDir).length });
    expect(shown.system.summary.episodesPeak).toBeGreaterThan(0);
    expect(shown.system.summary.sandboxesPeak).toBeGreaterThan(0);
    expect(shown.system.summary.rssGbPeak).toBeGreaterThan(0.03);
    expect(shown.system.summary.cpuPercentMean).toBeGreaterThanOrEqual(0);
    const all = parseJsonOutput<{ system: { samples: RunSystemSample[] } }>(
      await runT1lab(['runs', 'show', runDir, '--json', '--samples'], { env }),
    );
    expect(all.system.samples).toEqual(samplesOf(runDir));
    const text = await runT1lab(['runs', 'show', runDir], { env });
    expect(text.stdout).toMatch(
      /system: \d+ samples over \d+ s · CPU mean \d+% .*episodes peak [12] · sandboxes peak [1-9]/,
    );
  }, 180_000);
});
