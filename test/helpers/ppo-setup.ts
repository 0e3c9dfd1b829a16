/**
 * What the PPO tests and the PPO benchmark start from: a 2-layer nano checkpoint made by `t1lab model init`
 * (as a user makes one) and a PPO config in TOML on a task suite, small enough to run in seconds.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runT1lab } from './cli';

export interface TinyPpoOptions {
  /** The `T1LAB_HOME` environment of the runs. */
  env: Record<string, string>;
  /** The task suite folder (`data.path`). */
  suite: string;
  seed: number;
  steps: number;
  /** Keys of the `[ppo]` table. */
  ppo: Record<string, number | boolean | string | string[]>;
  /** `optimizer.lr`, when not the default. */
  lr?: number;
  /** `checkpoint.every`, when not the default. */
  checkpointEvery?: number;
  /** A nano checkpoint made before (by an earlier call): used as it is, none is made. */
  checkpoint?: string;
  /** The config's file name under `root` (default ppo.toml). */
  configName?: string;
}

const tomlValue = (v: number | boolean | string | string[]) =>
  typeof v === 'string' || Array.isArray(v) ? JSON.stringify(v) : String(v);

/** Writes `root/nano` (unless `checkpoint` is given) and `root/ppo.toml`; throws with init's stderr if the checkpoint cannot be made. */
export async function writeTinyPpoSetup(
  root: string,
  o: TinyPpoOptions,
): Promise<{ checkpoint: string; config: string }> {
  const checkpoint = o.checkpoint ?? join(root, 'nano');
  if (!o.checkpoint) {
    const init = await runT1lab(
      ['model', 'init', '--preset', 'nano', '--out', checkpoint, '--set', 'num_hidden_layers=2'],
      { env: o.env, timeoutMs: 180_000 },
    );
    if (init.code !== 0) throw new Error(`model init failed (exit ${init.code}): ${init.stderr}`);
  }
  const config = join(root, o.configName ?? 'ppo.toml');
  writeFileSync(
    config,
    [
      'stage = "ppo"',
      `seed = ${o.seed}`,
      `[model]\ncheckpoint = ${JSON.stringify(checkpoint)}`,
      `[data]\npath = ${JSON.stringify(o.suite)}`,
      `[train]\nsteps = ${o.steps}\nmicro_batch_size = 4\nprovider = "cpu"\nthreads = 1`,
      ...(o.lr !== undefined ? [`[optimizer]\nlr = ${o.lr}`] : []),
      '[schedule]\nkind = "constant"\nwarmup_steps = 0',
      ...(o.checkpointEvery !== undefined ? [`[checkpoint]\nevery = ${o.checkpointEvery}`] : []),
      `[ppo]\n${Object.entries(o.ppo)
        .map(([k, v]) => `${k} = ${tomlValue(v)}`)
        .join('\n')}`,
    ].join('\n'),
  );
  return { checkpoint, config };
}
