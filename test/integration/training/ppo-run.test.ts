/**
 * `t1lab train ppo` end to end, as a user runs it: a 2-layer nano checkpoint, the quick suite in real
 * bubblewrap sandboxes, 2 PPO steps (the first critic-only), asynchronous rollouts and over-sampling. The
 * run is killed with SIGKILL in the middle of step 2 (after step 1's checkpoint, with some of step 2's
 * episodes recorded), then resumed: it finishes with every recorded episode kept, none run twice, the
 * issue's metrics keys and final JSON, the rollouts stored token by token, and zero loss drift.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DenseGuard } from '../../../electron/domain/dense-guard';
import type { Trajectory } from '../../../electron/domain/trajectory';
import { readDenseGuard } from '../../../electron/lab/ppo/guard-report';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { REPO_ROOT, parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeTinyPpoSetup } from '../../helpers/ppo-setup';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const CLI = fileURLToPath(new URL('../../../electron/cli/t1lab.ts', import.meta.url));
const FIXED_KEYS = [
  'reward_dense',
  'reward_binary',
  'resolved',
  'pg_loss',
  'pg_clipfrac',
  'ppo_kl',
  'entropy',
  'vf_loss',
  'vf_explained_var',
  'grad_norm',
  'tis_weight_mean',
  'train_infer_gap_r3',
  'train_infer_gap_free',
  'loss_drift',
  'routing_agreement',
  'staleness',
  'aborted_share',
];

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
    : [];

describe('t1lab train ppo', () => {
  const tmp = makeTempDir('t1lab-ppo-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  const checkpoint = join(tmp.path, 'nano');
  const runDir = join(tmp.path, 'run');
  let config: string;

  beforeAll(async () => {
    ({ config } = await writeTinyPpoSetup(tmp.path, {
      env,
      suite: writeSuite(join(tmp.path, 'suite')),
      seed: 3,
      steps: 2,
      lr: 1e-4,
      checkpointEvery: 1,
      ppo: {
        tasks_per_step: 2,
        group_size: 2,
        concurrency: 3,
        max_turns: 2,
        max_tokens: 16,
        critic_warmup_steps: 1,
        oversample: 0.5,
        epochs: 1,
        minibatches: 1,
      },
    }));
  }, 120_000);
  afterAll(() => tmp.remove());

  it('runs 2 steps in real sandboxes; kill -9 mid-step 2 and --resume lose and double-count nothing', async () => {
    // First attempt: killed once step 1 is checkpointed and step 2 has recorded episodes (async rollouts).
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'train', 'ppo', '--config', config, '--out', runDir, '--json'],
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: 'ignore' },
    );
    const step2 = join(runDir, 'rollouts', 'step-0000002', 'episodes.jsonl');
    const ckpt1 = join(runDir, 'checkpoints', 'step-0000001', 'manifest.json');
    for (let i = 0; i < 600 && !(existsSync(ckpt1) && lines(step2).length >= 1); i++) await sleep(250);
    expect(existsSync(ckpt1)).toBe(true);
    const before = lines(step2).map((l) => JSON.parse(l) as { key: string; policyVersion: number });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(before.length).toBeGreaterThanOrEqual(1);

    const resumed = await runT1lab(['train', 'ppo', '--resume', runDir, '--json'], { env, timeoutMs: 240_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = parseJsonOutput<Record<string, unknown> & { final: Record<string, unknown> }>(resumed);
    expect(Object.keys(result)).toEqual(
      expect.arrayContaining(['stage', 'steps', 'episodes', 'tokens', 'checkpoint', 'runDir', 'final', 'durationMs']),
    );
    expect(result).toMatchObject({ stage: 'ppo', steps: 2, episodes: 8, runDir });
    expect(Object.keys(result.final).sort()).toEqual(['resolved', 'reward', 'trainInferGap']);
    // 2 turns x 16 tokens: no oracle call of the quick suite fits, so PPO says so (and run.json records it).
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^warning: only 0 of 3 tasks of data\.path .* can be finished by the oracle itself at 2 turns x 16 tokens/,
      ),
    ]);
    expect(resumed.stderr).toContain((result.warnings as string[])[0]);
    expect(result.final.trainInferGap as number).toBeLessThan(1e-4);

    // Step 2's episodes: the ones recorded before the kill are kept as they were, none twice.
    const after = lines(step2).map((l) => JSON.parse(l) as { key: string; policyVersion: number; aborted: boolean });
    const keys = after.map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const b of before) expect(after.find((e) => e.key === b.key)?.policyVersion).toBe(b.policyVersion);
    expect(after.filter((e) => !e.aborted)).toHaveLength(4);

    const rows = lines(join(runDir, 'metrics.jsonl')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => r.step)).toEqual([1, 2]);
    for (const row of rows) for (const key of FIXED_KEYS) expect(row, key).toHaveProperty(key);
    expect(rows[0]!.critic_warmup).toBe(1);
    // Critic warm-up: step 1 moved the value head only (its weight; the bias may stay: the first batch's
    // standardised value targets have token mean 0, which a zero-initialised head already predicts).
    const init = loadCheckpoint(checkpoint).parameters;
    const warm = loadCheckpoint(join(runDir, 'checkpoints', 'step-0000001')).parameters;
    const moved = [...init].filter(([name, w]) => !w.every((v, i) => v === warm.get(name)![i])).map(([name]) => name);
    expect(moved).toContain('value_head.weight');
    expect(moved.filter((name) => !name.startsWith('value_head.'))).toEqual([]);
    expect(rows.every((r) => r.loss_drift === 0)).toBe(true);
    expect(rows[1]!.staleness).toBeLessThanOrEqual(1);
    expect(readdirSync(runDir).some((f) => f.startsWith('events.out.tfevents'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as {
      data: { switches: Record<string, string>; feasibility: unknown };
      resumes: unknown[];
      warnings: string[];
    };
    expect(manifest.warnings).toEqual(result.warnings);
    expect(manifest.data.feasibility).toMatchObject({ tasks: 3, feasible: 0, share: 0, maxTurns: 2, maxTokens: 16 });
    expect(manifest.data.switches).toEqual({ reward: 'dense', tito: 'exact', r3: 'on', tis: 'on', advantage: 'gae' });
    expect(manifest.resumes).toHaveLength(1);
    // The dense-reward guard: guard.json (the last checkpoint's) is what the app computes from the folder,
    // over the kept episodes of both steps, and its flags are summary.json's.
    const guard = JSON.parse(readFileSync(join(runDir, 'guard.json'), 'utf8')) as DenseGuard;
    expect(guard).toEqual(readDenseGuard(runDir));
    expect(guard).toMatchObject({ steps: [1, 2], episodes: 8 });
    expect(guard.assertions.length).toBeGreaterThan(0);
    expect(
      (JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { flaggedAssertions: unknown })
        .flaggedAssertions,
    ).toEqual(guard.flags);

    // The rollouts, token by token: samples.jsonl lines up with the trajectory's ledger samples.
    const samples = lines(join(runDir, 'rollouts', 'step-0000002', 'samples.jsonl')).map(
      (l) =>
        JSON.parse(l) as {
          episode: string;
          sample: number;
          lossMask: number[];
          samplerLogprobs: number[];
          trainerLogprobs: number[];
          advantages: number[];
        },
    );
    expect(samples.length).toBeGreaterThanOrEqual(4);
    const s = samples[0]!;
    const episode = after.find((e) => e.key === s.episode)!;
    const t = JSON.parse(
      readFileSync(join(runDir, 'rollouts', 'step-0000002', 'episodes', episode.key, 'trajectory.json'), 'utf8'),
    ) as Trajectory;
    const ledger = t.ledger!.samples[s.sample]!;
    expect(s.lossMask).toHaveLength(ledger.ids.length - 1);
    expect(s.lossMask).toEqual(ledger.mask.slice(1));
    expect(ledger.routing!.every((r) => r !== null)).toBe(true);
    s.lossMask.forEach((m, p) => {
      if (m === 1) expect(Math.abs(s.trainerLogprobs[p]! - s.samplerLogprobs[p]!)).toBeLessThan(1e-4);
    });

    // A finished run given more steps continues from its last checkpoint (--steps was ignored on resume).
    const extended = await runT1lab(['train', 'ppo', '--resume', runDir, '--steps', '3', '--json'], {
      env,
      timeoutMs: 240_000,
    });
    expect(extended.code, extended.stderr).toBe(0);
    expect(parseJsonOutput(extended)).toMatchObject({ stage: 'ppo', steps: 3, episodes: 12 });
    const rows3 = lines(join(runDir, 'metrics.jsonl')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows3.map((r) => r.step)).toEqual([1, 2, 3]);
    expect(existsSync(join(runDir, 'checkpoints', 'step-0000003', 'manifest.json'))).toBe(true);
  }, 480_000);
});
