/**
 * The faster update changes no number a run reports: `t1lab train ppo` with synchronous rollouts, run as the
 * lab runs now and on the previous path (glibc's default allocator, the vocabulary head on every position, the full [T, T] attention,
 * every sequence forwarded whole with its prompt),
 * from the same seed, samples the same tokens in every episode of both steps and reports losses within 1e-5.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../../../electron/domain/trajectory';
import { FULL_ATTENTION_ENV, FULL_HEAD_ENV } from '../../../native/model/graph-cache';
import { UNSHARED_PREFIX_ENV } from '../../../electron/lab/ppo/update';
import { ALLOCATOR_ENV } from '../../../native/onnx/allocator-env';
import { runT1lab } from '../../helpers/cli';
import { writeTinyPpoSetup } from '../../helpers/ppo-setup';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const STEPS = 2;

describe('the PPO update against its previous path', () => {
  const tmp = makeTempDir('t1lab-ppo-path-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };

  it('samples the same tokens and reports the same losses from the same seed', async () => {
    const { config } = await writeTinyPpoSetup(tmp.path, {
      env,
      suite: writeSuite(join(tmp.path, 'suite')),
      seed: 5,
      steps: STEPS,
      lr: 1e-3,
      ppo: {
        tasks_per_step: 2,
        group_size: 2,
        concurrency: 2,
        max_turns: 2,
        max_tokens: 24,
        critic_warmup_steps: 0,
        oversample: 0,
        epochs: 2,
        minibatches: 1,
        async: false,
      },
    });
    const run = async (name: string, extra: Record<string, string>) => {
      const out = join(tmp.path, name);
      const r = await runT1lab(['train', 'ppo', '--config', config, '--out', out, '--json'], {
        env: { ...env, ...extra },
        timeoutMs: 300_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const rows = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, number>);
      /** Per step, each episode's sampled token ids (the ledger's samples), by episode key. */
      const sampled = Array.from({ length: STEPS }, (_, i) => {
        const dir = join(out, 'rollouts', `step-${String(i + 1).padStart(7, '0')}`, 'episodes');
        return Object.fromEntries(
          readdirSync(dir)
            .sort()
            .map((key) => {
              const t = JSON.parse(readFileSync(join(dir, key, 'trajectory.json'), 'utf8')) as Trajectory;
              return [key.replace(/^.*?-/, ''), t.ledger!.samples.map((s) => s.ids.filter((_, p) => s.mask[p] === 1))];
            }),
        );
      });
      return { rows, sampled };
    };
    const now = await run('now', {});
    const before = await run('before', {
      [ALLOCATOR_ENV]: 'system',
      [FULL_HEAD_ENV]: '1',
      [FULL_ATTENTION_ENV]: '1',
      [UNSHARED_PREFIX_ENV]: '1',
    });
    expect(now.rows).toHaveLength(STEPS);
    for (let i = 0; i < STEPS; i++) {
      expect(Object.keys(now.sampled[i]!).length).toBeGreaterThan(0);
      expect(now.sampled[i]).toEqual(before.sampled[i]);
      for (const key of ['loss', 'pg_loss', 'vf_loss', 'entropy', 'ppo_kl'])
        expect(Math.abs(now.rows[i]![key]! - before.rows[i]![key]!), `step ${i + 1} ${key}`).toBeLessThan(1e-5);
      // The update ran its head on the loss positions only: fewer than the positions it forwarded.
      expect(now.rows[i]!.update_loss_tokens).toBeGreaterThan(0);
      expect(now.rows[i]!.update_loss_tokens).toBeLessThan(now.rows[i]!.update_forwarded_tokens!);
      expect(now.rows[i]!.update_computed_tokens).toBeGreaterThanOrEqual(now.rows[i]!.update_forwarded_tokens!);
      // A group's episodes share their prompt, forwarded once now and with every episode before.
      expect(now.rows[i]!.update_trained_tokens).toBe(before.rows[i]!.update_trained_tokens);
      expect(before.rows[i]!.update_forwarded_tokens).toBe(before.rows[i]!.update_trained_tokens);
      expect(now.rows[i]!.update_forwarded_tokens).toBeLessThan(now.rows[i]!.update_trained_tokens!);
    }
  }, 600_000);
});
