/**
 * The learning check at the recipe's own settings: from the bundled SFT checkpoint, `t1lab train ppo` with
 * the nano reproduction's PPO settings (its learning rate, warm-up, temperature, group size, epochs; only
 * fewer tasks per step and synchronous rollouts, so that it fits CI) on numeric-integration, the family
 * where the warm start's sampled attempts disagree most. The new policy's sampled success on the tasks it
 * trained on, estimated from the step's own episodes by importance weights (test/helpers/importance-success),
 * must rise: it falls when the policy-gradient sign is flipped and stays put when the update is skipped.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { REPRO_FULL } from '../../../electron/lab/experiments/repro';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { importanceSuccess } from '../../helpers/importance-success';
import { makeTempDir } from '../../helpers/tmp';

const SFT = join(REPO_ROOT, 'models', 'nano-sft');
const STEPS = 2;

function setDotted(o: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let at = o;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

describe('PPO at the recipe settings raises the sampled success of a mixed family', () => {
  const tmp = makeTempDir('t1lab-ppo-recipe-learns-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  afterAll(() => (process.env.KEEP_TMP ? console.log('kept', tmp.path) : tmp.remove()));

  it(`${STEPS} steps from models/nano-sft on numeric-integration`, async () => {
    const pack = join(tmp.path, 'train.jsonl');
    const synth = await runT1lab(
      [
        'tasks',
        'synth',
        '--out',
        pack,
        '--count',
        '2',
        '--seed',
        '3',
        '--split',
        'train',
        '--families',
        'numeric-integration',
        '--json',
      ],
      { env, timeoutMs: 120_000 },
    );
    expect(synth.code, synth.stderr).toBe(0);
    const init = await runT1lab(['train', 'init-config', '--stage', 'ppo', '--preset', 'nano'], { env });
    expect(init.code, init.stderr).toBe(0);
    const config = parseToml(init.stdout) as Record<string, unknown>;
    const settings = {
      'ppo.reward': 'dense',
      'ppo.tito': 'exact',
      'ppo.r3': 'on',
      ...REPRO_FULL.overrides.ppo,
      'ppo.tasks_per_step': 2,
      'ppo.async': false,
      'train.steps': STEPS,
      'checkpoint.every': STEPS,
      seed: 5,
    };
    for (const [k, v] of Object.entries(settings)) setDotted(config, k, v);
    const configFile = join(tmp.path, 'ppo.toml');
    writeFileSync(configFile, stringifyToml(config));

    const runDir = join(tmp.path, 'run');
    const run = await runT1lab(
      ['train', 'ppo', '--config', configFile, '--model', SFT, '--data', pack, '--out', runDir, '--json'],
      { env, timeoutMs: 420_000 },
    );
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const { checkpoint } = parseJsonOutput<{ checkpoint: string }>(run);

    const temperature = Number(REPRO_FULL.overrides.ppo['ppo.temperature']);
    const est = await importanceSuccess(runDir, 1, SFT, checkpoint, temperature);
    const ratios = est.rows.map((r) => r.logRatio);
    console.log(
      `${est.episodes} episodes of step 1: resolved ${est.resolved.before.toFixed(3)} -> ${est.resolved.after.toFixed(3)}, dense ${est.dense.before.toFixed(3)} -> ${est.dense.after.toFixed(3)}; log-ratio per episode ${Math.min(...ratios).toFixed(3)}..${Math.max(...ratios).toFixed(3)}`,
    );
    // The precondition: attempts that disagree, or no group carries a signal.
    expect(est.rows.some((r) => r.resolved)).toBe(true);
    expect(est.rows.some((r) => !r.resolved)).toBe(true);
    // The update moved the policy, towards the episodes that earned more.
    expect(Math.max(...ratios.map(Math.abs))).toBeGreaterThan(1e-3);
    expect(est.dense.after).toBeGreaterThan(est.dense.before);
    expect(est.resolved.after).toBeGreaterThan(est.resolved.before);
  }, 600_000);
});
