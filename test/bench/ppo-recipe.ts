/**
 * `npm run bench -- ppo --recipe`: the nano reproduction's own PPO step (its settings from REPRO_FULL: 4 tasks
 * x 8 episodes, 6 turns x 576 tokens, 2 epochs x 2 minibatches, micro-batches of 4) for 3 steps from the
 * bundled SFT checkpoint, on a train pack of the families that checkpoint resolves part of the time, in real
 * bubblewrap sandboxes. Measured twice in the same run with the same seed: as the lab runs now, and on the
 * previous path (glibc's default allocator, the vocabulary head on every position, the full [T, T] attention,
 * every sequence forwarded whole with its prompt, 2 episodes at a time, the next step's rollouts overlapping
 * this step's update). Prints each step's split,
 * the update's FLOPs per trained token and its rate as a share of the GEMM roofline measured in this run, and
 * the step time against the previous path's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { loadCheckpoint } from '../../native/model/checkpoint/load';
import { forwardFlopsPerToken, measureGemmRoofline } from '../../native/model/bench';
import { ALLOCATOR_ENV } from '../../native/onnx/allocator-env';
import { REPRO_FULL } from '../../electron/lab/experiments/repro';
import { FULL_ATTENTION_ENV, FULL_HEAD_ENV } from '../../native/model/graph-cache';
import { UNSHARED_PREFIX_ENV } from '../../electron/lab/ppo/update';
import { REPO_ROOT, runT1lab } from '../helpers/cli';
import type { BenchReporter } from './reporter';

/** Families where the bundled SFT checkpoint's sampled success is mixed (neither 0 nor 1), so groups disagree. */
const MIXED_FAMILIES = ['mail-merge', 'passwd-audit', 'number-theory-batch', 'numeric-integration'];
const SFT = join(REPO_ROOT, 'models', 'nano-sft');
/** Episodes the previous path ran (and decoded) at once. */
const PREVIOUS_ROLLOUT_CONCURRENCY = 2;

interface Row {
  step: number;
  time_step: number;
  time_rollout: number;
  time_training: number;
  time_generation_sum: number;
  time_environment_sum: number;
  time: { data: number; fwd_bwd: number };
  update_loss_tokens?: number;
  update_trained_tokens?: number;
  update_forwarded_tokens?: number;
  update_computed_tokens?: number;
  episode_tokens: number;
  loss: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

function setDotted(o: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let at = o;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

export async function runRecipeBench(report: BenchReporter, quick: boolean): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 't1lab-bench-ppo-recipe-'));
  const env = { T1LAB_HOME: join(root, 'home') };
  const steps = quick ? 2 : 3;
  try {
    const pack = join(root, 'train.jsonl');
    const synth = await runT1lab(
      [
        'tasks',
        'synth',
        '--out',
        pack,
        '--count',
        '16',
        '--seed',
        '41',
        '--split',
        'train',
        '--families',
        MIXED_FAMILIES.join(','),
        '--json',
      ],
      { env, timeoutMs: 300_000 },
    );
    if (synth.code !== 0) throw new Error(`tasks synth failed: ${synth.stderr.slice(-1000)}`);
    const init = await runT1lab(['train', 'init-config', '--stage', 'ppo', '--preset', 'nano'], { env });
    if (init.code !== 0) throw new Error(`train init-config failed: ${init.stderr.slice(-1000)}`);
    const config = parseToml(init.stdout) as Record<string, unknown>;
    for (const [k, v] of Object.entries({
      'ppo.reward': 'dense',
      'ppo.tito': 'exact',
      'ppo.r3': 'on',
      ...REPRO_FULL.overrides.ppo,
      'train.steps': steps,
      'checkpoint.every': steps,
      seed: 7,
    }))
      setDotted(config, k, v);
    const configFile = join(root, 'ppo.toml');
    writeFileSync(configFile, stringifyToml(config));
    // The previous path ran 2 episodes at a time, and the next step's rollouts during this step's update.
    const previousConfigFile = join(root, 'ppo-previous.toml');
    setDotted(config, 'ppo.concurrency', PREVIOUS_ROLLOUT_CONCURRENCY);
    setDotted(config, 'ppo.async', true);
    writeFileSync(previousConfigFile, stringifyToml(config));

    const run = async (name: string, configFile: string, extraEnv: Record<string, string>) => {
      const out = join(root, name);
      const started = performance.now();
      const r = await runT1lab(
        [
          'train',
          'ppo',
          '--config',
          configFile,
          '--model',
          SFT,
          '--data',
          pack,
          '--steps',
          String(steps),
          '--out',
          out,
          '--json',
        ],
        { env: { ...env, ...extraEnv }, timeoutMs: 3_600_000 },
      );
      if (r.code !== 0) throw new Error(`train ppo (${name}) failed (exit ${r.code}): ${r.stderr.slice(-2000)}`);
      const rows = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Row);
      return { rows, wall: (performance.now() - started) / 1000 };
    };
    const roof = await measureGemmRoofline(undefined, quick);
    const now = await run('now', configFile, {});
    const before = await run('before', previousConfigFile, {
      [ALLOCATOR_ENV]: 'system',
      [FULL_HEAD_ENV]: '1',
      [FULL_ATTENTION_ENV]: '1',
      [UNSHARED_PREFIX_ENV]: '1',
    });
    const roofAfter = await measureGemmRoofline(undefined, quick);
    const peak = Math.max(roof.gflops, roofAfter.gflops);

    report.note(
      `episodes at once (decoded in one batch): now ${String(REPRO_FULL.overrides.ppo['ppo.concurrency'])}, previous path ${PREVIOUS_ROLLOUT_CONCURRENCY}; rollouts overlapping the update: now ${String(REPRO_FULL.overrides.ppo['ppo.async'] ?? true)}, previous path true`,
    );
    const model = loadCheckpoint(SFT).config;
    for (const [label, r] of [
      ['now', now],
      ['before', before],
    ] as const) {
      for (const row of r.rows) {
        const busy = row.time_generation_sum + row.time_environment_sum;
        const gen = busy > 0 ? (row.time_rollout * row.time_generation_sum) / busy : 0;
        report.note(
          `${label} step ${row.step}: ${row.time_step.toFixed(1)} s = rollouts ${row.time_rollout.toFixed(1)} (generation ${gen.toFixed(1)}, environment ${(row.time_rollout - gen).toFixed(1)}) + scoring ${row.time.data.toFixed(1)} + update ${row.time.fwd_bwd.toFixed(1)} + rest ${(row.time_step - row.time_rollout - row.time_training).toFixed(1)}; loss ${row.loss.toFixed(5)}`,
        );
      }
      report.note(
        `${label}: ${steps} steps in ${r.wall.toFixed(0)} s (the command, process start and checkpoint included)`,
      );
    }
    const stepNow = mean(now.rows.map((r) => r.time_step));
    const stepBefore = mean(before.rows.map((r) => r.time_step));
    report.figure({
      name: 'PPO step, nano repro settings (mean)',
      value: stepNow,
      unit: 's',
      baseline: { name: 'previous path, same run', value: stepBefore },
      ratio: stepBefore / stepNow,
      goal: '<= 60 s',
      met: stepNow <= 60,
    });
    for (const part of ['time_rollout', 'time_training'] as const) {
      const v = mean(now.rows.map((r) => r[part]));
      report.figure({
        name: `${part === 'time_rollout' ? 'rollouts' : 'scoring + update'} per step (share of the step)`,
        value: v,
        unit: 's',
        baseline: { name: 'the step', value: stepNow },
        ratio: v / stepNow,
      });
    }
    // The update's useful FLOPs: forward + backward (3x the forward) of the positions it forwards (a shared
    // prompt once) at the mean attention context of the sequences, with the vocabulary head counted at the loss
    // positions only (where it runs now).
    const forwarded = mean(now.rows.map((r) => r.update_forwarded_tokens ?? 0));
    const trained = mean(now.rows.map((r) => r.update_trained_tokens ?? r.update_forwarded_tokens ?? 0));
    const lossShare = mean(
      now.rows.map((r) => (r.update_loss_tokens ?? 0) / Math.max(1, r.update_forwarded_tokens ?? 0)),
    );
    const context = mean(
      now.rows.map(
        (r) =>
          (r.update_trained_tokens ?? r.update_forwarded_tokens ?? 0) /
          2 /
          Math.max(
            1,
            (REPRO_FULL.overrides.ppo['ppo.tasks_per_step'] as number) *
              (REPRO_FULL.overrides.ppo['ppo.group_size'] as number) *
              2,
          ),
      ),
    );
    const head = 2 * model.hidden_size * model.vocab_size;
    const flopsPerToken = 3 * (forwardFlopsPerToken(model, context) - head + head * lossShare);
    const update = mean(now.rows.map((r) => r.time.fwd_bwd));
    const rate = (forwarded * flopsPerToken) / update / 1e9;
    report.note(
      `update: ${trained.toFixed(0)} positions of sequences a step, ${forwarded.toFixed(0)} forwarded (shared prompts once; ${(lossShare * 100).toFixed(0)}% carry a loss; ${mean(now.rows.map((r) => r.update_computed_tokens ?? 0)).toFixed(0)} computed with padding), mean context ${context.toFixed(0)}`,
    );
    report.figure({
      name: 'update positions forwarded (shared prompts once)',
      value: forwarded,
      unit: 'positions',
      baseline: {
        name: 'previous path, whole sequences',
        value: mean(before.rows.map((r) => r.update_forwarded_tokens ?? 0)),
      },
      ratio: forwarded / Math.max(1, mean(before.rows.map((r) => r.update_forwarded_tokens ?? 0))),
    });
    report.figure({ name: 'update FLOPs per trained token (fwd + bwd)', value: flopsPerToken / 1e6, unit: 'MFLOP' });
    report.figure({
      name: 'update rate (share of the GEMM roofline)',
      value: rate,
      unit: 'GFLOP/s',
      baseline: { name: `GEMM roofline ${roof.shape}`, value: peak, unit: 'GFLOP/s' },
      ratio: rate / peak,
      goal: '>= 35%',
      met: rate / peak >= 0.35,
    });
    report.figure({
      name: 'update time per step',
      value: update,
      unit: 's',
      baseline: { name: 'previous path', value: mean(before.rows.map((r) => r.time.fwd_bwd)) },
      ratio: mean(before.rows.map((r) => r.time.fwd_bwd)) / update,
    });
    report.figure({
      name: 'scoring time per step',
      value: mean(now.rows.map((r) => r.time.data)),
      unit: 's',
      baseline: { name: 'previous path', value: mean(before.rows.map((r) => r.time.data)) },
      ratio: mean(before.rows.map((r) => r.time.data)) / mean(now.rows.map((r) => r.time.data)),
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
