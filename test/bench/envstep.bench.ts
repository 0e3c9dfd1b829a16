/**
 * The environment step's profile (issue 16): an oracle evaluation of tasks/examples at concurrency 2,
 * each episode broken into phases from the timings the harness records (trajectory.phases, the
 * verifier's timings, the episode record's writeMs): workspace set-up, sandbox (first shell) start,
 * command execution (the agent loop), closing the shells, verifier set-up (workspace snapshot, test
 * files), verifier steps (each step's sandbox start, pytest start-up and tests), report parsing, copying
 * the verifier's logs, temp-folder removal and trajectory writing. Each phase is printed as its mean ms
 * per episode and its share of the episode's wall time, with the throughput in tasks/min.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EpisodeRecord } from '../../electron/domain/runs';
import type { Trajectory } from '../../electron/domain/trajectory';
import { startEvaluation } from '../../electron/lab/runs/evaluate';
import { loadTaskSource } from '../../electron/lab/tasks';
import type { Bench } from './reporter';

const EXAMPLES = fileURLToPath(new URL('../../tasks/examples', import.meta.url));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const bench: Bench = {
  name: 'envstep',
  about: 'issue 16: oracle evaluation of tasks/examples (concurrency 2) broken into environment-step phases',
  async run(report, { quick }) {
    const root = mkdtempSync(join(tmpdir(), 't1lab-bench-envstep-'));
    try {
      const ids = (await loadTaskSource(EXAMPLES)).tasks.map((t) => t.id);
      const only = quick ? ids.slice(0, 6) : ids;
      const out = join(root, 'eval');
      const started = performance.now();
      const evaluation = await startEvaluation({ suite: EXAMPLES, policy: 'oracle', concurrency: 2, only, out }, { dataDir: join(root, 'data') });
      const { summary } = await evaluation.done;
      const minutes = (performance.now() - started) / 60_000;
      if (summary.resolvedRate !== 1) report.note(`resolved ${(summary.resolvedRate * 100).toFixed(1)}% (expected 100%)`);
      const records: EpisodeRecord[] = evaluation.records();
      const episodes = records.map((r) => ({ record: r, t: JSON.parse(readFileSync(join(evaluation.runDir, r.dir, 'trajectory.json'), 'utf8')) as Trajectory }));
      const missing = episodes.filter((e) => !e.t.phases || !e.t.verifier?.timings || e.record.writeMs === undefined);
      if (missing.length) throw new Error(`${missing.length} episode(s) lack phase timings (trajectory.phases, verifier.timings, record.writeMs), e.g. ${missing[0]!.record.key}`);
      const phases: [string, (e: (typeof episodes)[number]) => number][] = [
        ['workspace set-up', (e) => e.t.phases!.setupMs],
        ['sandbox start (first shell ready)', (e) => e.t.phases!.shellStartMs],
        ['command execution (agent loop)', (e) => e.t.phases!.agentMs],
        ['closing the shells', (e) => e.t.phases!.closeMs],
        ['verifier set-up (snapshot, test files)', (e) => e.t.verifier!.timings!.setupMs],
        ['verifier steps (sandbox + pytest start + tests)', (e) => e.t.verifier!.timings!.stepsMs],
        ['report parsing', (e) => e.t.verifier!.timings!.reportsMs],
        ['verifier logs copy', (e) => e.t.verifier!.timings!.keepLogsMs],
        ['temp folder removal', (e) => e.t.phases!.cleanupMs],
        ['trajectory writing', (e) => e.record.writeMs!],
      ];
      // The episode's wall time including the trajectory writing (durationMs stops before it).
      const episodeMs = mean(episodes.map((e) => e.t.durationMs + e.record.writeMs!));
      const baseline = { name: 'the episode', value: episodeMs };
      report.note(`${episodes.length} example tasks, oracle policy, concurrency 2: ${(only.length / minutes).toFixed(1)} tasks/min`);
      report.figure({ name: 'episode wall time (mean)', value: episodeMs, unit: 'ms' });
      let covered = 0;
      for (const [name, of] of phases) {
        const value = mean(episodes.map(of));
        covered += value;
        report.figure({ name: `${name} (share)`, value, unit: 'ms', baseline, ratio: value / episodeMs });
      }
      const verifyMs = mean(episodes.map((e) => e.t.phases!.verifyMs));
      const verifierParts = mean(episodes.map((e) => { const v = e.t.verifier!.timings!; return v.setupMs + v.stepsMs + v.reportsMs + v.keepLogsMs; }));
      // Counted once: verifyMs wraps the verifier's own parts; what is left there is its other work.
      const verifierOther = Math.max(0, verifyMs - verifierParts);
      report.figure({ name: 'verifier, other (its temp folder removal)', value: verifierOther, unit: 'ms', baseline, ratio: verifierOther / episodeMs });
      covered += verifierOther;
      report.figure({ name: 'phases covered (sum of the above)', value: covered, unit: 'ms', baseline, ratio: covered / episodeMs });
      report.figure({ name: 'oracle eval throughput, concurrency 2', value: only.length / minutes, unit: 'tasks/min', goal: '>= 60', met: only.length / minutes >= 60 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
export default bench;
