/**
 * The PPO step's time split (issue 16): a fixed small PPO run (`t1lab train ppo` from source, a 2-layer
 * nano checkpoint, the quick test suite in real bubblewrap sandboxes, synchronous rollouts) and where each
 * step's wall time goes, read from the run's metrics.jsonl:
 * - generation and environment: the rollout wall time (`time_rollout`) split by the episodes' summed
 *   decode time against their summed shell/verifier time (`time_generation_sum`, `time_environment_sum`);
 * - training: scoring the experience plus the PPO update (`time_training`);
 * - idle: the rest of the step (weight swap, samples and checkpoint writing, bookkeeping).
 * Each part is printed as seconds per step with its share of the step, and the rollout slots' occupancy
 * (busy episode time over concurrency x rollout wall time) as the share of the rollout's own limit.
 * The same run is made once more without the environment step's overlaps (T1LAB_ENV_OVERLAP=0: verifier
 * started cold, shells closed before it), and its environment time is the baseline of the first's.
 */
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENV_OVERLAP_ENV } from '../../electron/lab/runs/run-episode';
import { runT1lab } from '../helpers/cli';
import { writeTinyPpoSetup } from '../helpers/ppo-setup';
import { writeSuite } from '../helpers/tasks';
import { runRecipeBench } from './ppo-recipe';
import type { Bench } from './reporter';

interface StepRow {
  step: number;
  time_step: number;
  time_rollout: number;
  time_training: number;
  time_generation_sum: number;
  time_environment_sum: number;
  tokens_per_s: number;
  episodes: number;
}

const CONCURRENCY = 2;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

const bench: Bench = {
  name: 'ppo',
  about:
    "PPO step time split (generation, environment, training, idle) on a fixed small config; --recipe: the nano reproduction's own PPO step against the previous path",
  async run(report, { quick, flags }) {
    if (flags.has('--recipe')) return runRecipeBench(report, quick);
    const root = mkdtempSync(join(tmpdir(), 't1lab-bench-ppo-'));
    const env = { T1LAB_HOME: join(root, 'home') };
    try {
      const steps = quick ? 2 : 3;
      const { config } = await writeTinyPpoSetup(root, {
        env,
        suite: writeSuite(join(root, 'suite')),
        seed: 3,
        steps,
        lr: 1e-4,
        checkpointEvery: steps,
        // Synchronous rollouts: the split is then additive (no rollout overlapping the update).
        ppo: {
          tasks_per_step: 2,
          group_size: 2,
          concurrency: CONCURRENCY,
          max_turns: 2,
          max_tokens: quick ? 16 : 32,
          critic_warmup_steps: 0,
          oversample: 0,
          epochs: 1,
          minibatches: 1,
          async: false,
        },
      });
      /** One `train ppo` run; each step's split. */
      const ppo = async (name: string, extraEnv: Record<string, string>) => {
        const runDir = join(root, name);
        const started = performance.now();
        const run = await runT1lab(['train', 'ppo', '--config', config, '--out', runDir, '--json'], {
          env: { ...env, ...extraEnv },
          timeoutMs: 600_000,
        });
        const wall = (performance.now() - started) / 1000;
        if (run.code !== 0) throw new Error(`train ppo failed (exit ${run.code}): ${run.stderr.slice(-2000)}`);
        const rows = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as StepRow);
        for (const r of rows) {
          if (typeof r.time_step !== 'number')
            throw new Error(
              `metrics.jsonl step ${r.step} lacks the time split keys (time_step, time_generation_sum, time_environment_sum)`,
            );
        }
        const split = rows.map((r) => {
          const busy = r.time_generation_sum + r.time_environment_sum;
          const genShare = busy > 0 ? r.time_generation_sum / busy : 0;
          return {
            step: r.time_step,
            generation: r.time_rollout * genShare,
            environment: r.time_rollout * (1 - genShare),
            training: r.time_training,
            idle: Math.max(0, r.time_step - r.time_rollout - r.time_training),
            occupancy: r.time_rollout > 0 ? busy / (CONCURRENCY * r.time_rollout) : 0,
            tokensPerS: r.tokens_per_s,
            environmentSum: r.time_environment_sum,
          };
        });
        return { split, wall };
      };
      const { split, wall } = await ppo('run', {});
      const serial = await ppo('serial', { [ENV_OVERLAP_ENV]: '0' });
      for (const [i, s] of split.entries()) {
        report.note(
          `step ${i + 1}: ${s.step.toFixed(2)} s = generation ${s.generation.toFixed(2)} + environment ${s.environment.toFixed(2)} + training ${s.training.toFixed(2)} + idle ${s.idle.toFixed(2)} s; rollout slots busy ${(s.occupancy * 100).toFixed(0)}%`,
        );
      }
      report.note(
        `${steps} steps x 4 episodes (2 tasks x group 2, concurrency ${CONCURRENCY}, 2 turns, synchronous rollouts); the whole command took ${wall.toFixed(1)} s (process start, model load, checkpoint included)`,
      );
      const stepWall = mean(split.map((s) => s.step));
      const baseline = { name: 'the step', value: stepWall };
      report.figure({ name: 'PPO step wall time (mean)', value: stepWall, unit: 's' });
      for (const part of ['generation', 'environment', 'training', 'idle'] as const) {
        const value = mean(split.map((s) => s[part]));
        report.figure({
          name: `${part} per step (share of the step)`,
          value,
          unit: 's',
          baseline,
          ratio: value / stepWall,
        });
      }
      const occupancy = mean(split.map((s) => s.occupancy));
      report.figure({
        name: 'rollout slot occupancy (busy / concurrency x wall)',
        value: occupancy * 100,
        unit: '%',
        baseline: { name: 'all slots busy', value: 100 },
        ratio: occupancy,
      });
      report.figure({
        name: 'PPO update throughput (trained tokens / training s)',
        value: mean(split.map((s) => s.tokensPerS)),
        unit: 'tok/s',
      });
      // Per episode: the summed shell/verifier time of a step's episodes, over the episodes (4 per step).
      const envSum = mean(split.map((s) => s.environmentSum));
      const serialEnvSum = mean(serial.split.map((s) => s.environmentSum));
      report.figure({
        name: 'environment time per step, summed over episodes',
        value: envSum,
        unit: 's',
        baseline: { name: 'serial (T1LAB_ENV_OVERLAP=0)', value: serialEnvSum },
        ratio: envSum / serialEnvSum,
      });
      report.figure({
        name: 'PPO step wall time, serial environment',
        value: mean(serial.split.map((s) => s.step)),
        unit: 's',
        baseline: { name: 'overlapped', value: stepWall },
        ratio: mean(serial.split.map((s) => s.step)) / stepWall,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
export default bench;
