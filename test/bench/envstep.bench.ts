/**
 * The environment step's profile (issue 16): an oracle evaluation of tasks/examples at concurrency 2,
 * each episode broken into phases from the timings the harness records (trajectory.phases, the
 * verifier's timings, the episode record's writeMs): workspace set-up, sandbox (first shell) start,
 * command execution (the agent loop), closing the shells, verifier set-up (workspace snapshot, test
 * files), verifier steps (each step's sandbox start, pytest start-up and tests), report parsing, copying
 * the verifier's logs, temp-folder removal and trajectory writing. Each phase is printed as its mean ms
 * per episode and its share of the episode's wall time, with the throughput in tasks/min.
 *
 * The overlapped environment step (the verifier started ahead, warm-verifier.ts; the shells closed while it
 * runs) is measured against the serial one in the same run: rounds alternate between them
 * (T1LAB_ENV_OVERLAP=0 for the serial ones), and the phases are the overlapped rounds' episodes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EpisodeRecord } from '../../electron/domain/runs';
import type { Trajectory } from '../../electron/domain/trajectory';
import { startEvaluation } from '../../electron/lab/runs/evaluate';
import { loadTaskSource } from '../../electron/lab/tasks';
import { ENV_OVERLAP_ENV } from '../../electron/lab/runs/run-episode';
import type { Bench } from './reporter';

const EXAMPLES = fileURLToPath(new URL('../../tasks/examples', import.meta.url));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Rounds per mode (alternating overlapped, serial, overlapped, ...): the machine's load drifts within a run. */
const ROUNDS = 2;

type Episode = { record: EpisodeRecord; t: Trajectory };

/** One oracle evaluation of `only` at concurrency 2; its episodes and wall time. */
async function evaluate(
  root: string,
  name: string,
  only: string[],
): Promise<{ episodes: Episode[]; minutes: number; resolvedRate: number }> {
  const out = join(root, name);
  const started = performance.now();
  const evaluation = await startEvaluation(
    { suite: EXAMPLES, policy: 'oracle', concurrency: 2, only, out },
    { dataDir: join(root, 'data') },
  );
  const { summary } = await evaluation.done;
  const minutes = (performance.now() - started) / 60_000;
  const records: EpisodeRecord[] = evaluation.records();
  const episodes = records.map((r) => ({
    record: r,
    t: JSON.parse(readFileSync(join(evaluation.runDir, r.dir, 'trajectory.json'), 'utf8')) as Trajectory,
  }));
  return { episodes, minutes, resolvedRate: summary.resolvedRate };
}

/** The mean time of the verifier steps of the episodes whose results came from `source` (pytest: junit). */
function stepsMsOf(episodes: Episode[], source: 'junit' | 'inline'): number {
  return mean(episodes.flatMap((e) => (e.t.verifier?.source === source ? [e.t.verifier.timings?.stepsMs ?? 0] : [])));
}

const bench: Bench = {
  name: 'envstep',
  about: 'issue 16: oracle evaluation of tasks/examples (concurrency 2) broken into environment-step phases',
  async run(report, { quick }) {
    const root = mkdtempSync(join(tmpdir(), 't1lab-bench-envstep-'));
    const before = process.env[ENV_OVERLAP_ENV];
    try {
      const ids = (await loadTaskSource(EXAMPLES)).tasks.map((t) => t.id);
      const only = quick ? ids.slice(0, 6) : ids;
      const runs = {
        overlapped: [] as Awaited<ReturnType<typeof evaluate>>[],
        serial: [] as Awaited<ReturnType<typeof evaluate>>[],
      };
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of ['overlapped', 'serial'] as const) {
          if (mode === 'serial') process.env[ENV_OVERLAP_ENV] = '0';
          else delete process.env[ENV_OVERLAP_ENV];
          const r = await evaluate(root, `${mode}-${round}`, only);
          if (r.resolvedRate !== 1)
            report.note(`${mode} round ${round}: resolved ${(r.resolvedRate * 100).toFixed(1)}% (expected 100%)`);
          runs[mode].push(r);
        }
      }
      const throughput = (rs: typeof runs.overlapped) =>
        (rs.length * only.length) / rs.reduce((n, r) => n + r.minutes, 0);
      const episodes = runs.overlapped.flatMap((r) => r.episodes);
      const serialEpisodes = runs.serial.flatMap((r) => r.episodes);
      const missing = episodes.filter((e) => !e.t.phases || !e.t.verifier?.timings || e.record.writeMs === undefined);
      if (missing.length)
        throw new Error(
          `${missing.length} episode(s) lack phase timings (trajectory.phases, verifier.timings, record.writeMs), e.g. ${missing[0]!.record.key}`,
        );
      const phases: [string, (e: Episode) => number][] = [
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
      const serialEpisodeMs = mean(serialEpisodes.map((e) => e.t.durationMs + (e.record.writeMs ?? 0)));
      const baseline = { name: 'the episode', value: episodeMs };
      report.note(
        `${only.length} example tasks x ${ROUNDS} rounds per mode (overlapped, serial alternating), oracle policy, concurrency 2`,
      );
      report.figure({
        name: 'episode wall time (mean)',
        value: episodeMs,
        unit: 'ms',
        baseline: { name: 'serial (T1LAB_ENV_OVERLAP=0)', value: serialEpisodeMs },
        ratio: episodeMs / serialEpisodeMs,
      });
      let covered = 0;
      for (const [name, of] of phases) {
        const value = mean(episodes.map(of));
        covered += value;
        report.figure({ name: `${name} (share)`, value, unit: 'ms', baseline, ratio: value / episodeMs });
      }
      const verifyMs = mean(episodes.map((e) => e.t.phases!.verifyMs));
      const verifierParts = mean(
        episodes.map((e) => {
          const v = e.t.verifier!.timings!;
          return v.setupMs + v.stepsMs + v.reportsMs + v.keepLogsMs;
        }),
      );
      // Counted once: verifyMs wraps the verifier's own parts; what is left there is its other work.
      const verifierOther = Math.max(0, verifyMs - verifierParts);
      report.figure({
        name: 'verifier, other (its temp folder removal)',
        value: verifierOther,
        unit: 'ms',
        baseline,
        ratio: verifierOther / episodeMs,
      });
      covered += verifierOther;
      report.figure({
        name: 'phases covered (sum of the above)',
        value: covered,
        unit: 'ms',
        baseline,
        ratio: covered / episodeMs,
      });
      for (const [source, name] of [
        ['junit', 'pytest'],
        ['inline', 'inline-assertion'],
      ] as const) {
        const warm = stepsMsOf(episodes, source);
        const cold = stepsMsOf(serialEpisodes, source);
        report.figure({
          name: `${name} verifier steps, warm start`,
          value: warm,
          unit: 'ms',
          baseline: { name: 'cold start', value: cold },
          ratio: warm / cold,
        });
      }
      const closeMs = mean(episodes.map((e) => e.t.phases!.closeMs));
      const serialCloseMs = mean(serialEpisodes.map((e) => e.t.phases!.closeMs));
      report.figure({
        name: 'closing the shells before the verifier',
        value: closeMs,
        unit: 'ms',
        baseline: { name: 'whole close', value: serialCloseMs },
        ratio: closeMs / serialCloseMs,
      });
      const rate = throughput(runs.overlapped);
      const serialRate = throughput(runs.serial);
      report.figure({ name: 'oracle eval throughput, serial baseline', value: serialRate, unit: 'tasks/min' });
      report.figure({
        name: 'oracle eval throughput, concurrency 2',
        value: rate,
        unit: 'tasks/min',
        baseline: { name: 'serial (T1LAB_ENV_OVERLAP=0)', value: serialRate },
        ratio: rate / serialRate,
        goal: '>= 60',
        met: rate >= 60,
      });
    } finally {
      if (before === undefined) delete process.env[ENV_OVERLAP_ENV];
      else process.env[ENV_OVERLAP_ENV] = before;
      rmSync(root, { recursive: true, force: true });
    }
  },
};
export default bench;
