/**
 * The plumbing of `t1lab repro`'s pipeline: a stage is one `t1lab` process whose `--json` result is kept as
 * `<stage>.done.json` (a rerun skips it), a training stage's config is the preset's with the reproduction's
 * settings over it (written once as `<stage>.toml`), and an evaluation stage resumes its own run folder.
 * The process runner is injected, so the phases of repro.ts can be tested without spawning anything.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { readDone, runT1labStep, writeDone } from './cli-step';
import type { ReproSettings } from './repro-settings';
import { addStageTime } from './stage-times';

export type Json = Record<string, unknown>;
export type StageKind = 'lm' | 'sft' | 'ppo';

/** Everything a phase needs: where the reproduction lives, its settings, its log and how a stage is run. */
export interface ReproPipeline {
  out: string;
  quick: boolean;
  s: ReproSettings;
  log: (line: string) => void;
  runStep: typeof runT1labStep;
}

export function reproPipeline(
  fields: Omit<ReproPipeline, 'runStep'> & { runStep?: typeof runT1labStep },
): ReproPipeline {
  return { ...fields, runStep: fields.runStep ?? runT1labStep };
}

/** Runs one stage (or returns its recorded result when it finished before), adding its wall time. */
export async function runStage(p: ReproPipeline, name: string, args: string[]): Promise<Json> {
  const doneFile = join(p.out, `${name}.done.json`);
  const done = readDone<Json>(doneFile);
  if (done) {
    p.log(`${name}: done before, skipped`);
    return done;
  }
  const t0 = performance.now();
  const r = await p.runStep(args, { log: (l) => p.log(`${name}: ${l}`) });
  addStageTime(p.out, name, (performance.now() - t0) / 1000);
  if (r.code !== 0 || r.json === null)
    throw new Error(
      `stage ${name} failed (exit ${r.code}); rerun t1lab repro with the same --out to resume.\n${r.stdout.slice(-2000)}`,
    );
  writeDone(doneFile, r.json);
  return r.json as Json;
}

function setDotted(config: Json, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let at = config;
  for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Json;
  at[parts.at(-1)!] = value;
}

/** A stage's run config: the preset's (`train init-config`) with `settings`, then the stage's overrides, over it. */
export async function stageConfig(p: ReproPipeline, kind: StageKind, settings: Json): Promise<Json> {
  const init = await p.runStep(['train', 'init-config', '--stage', kind, '--preset', p.s.preset]);
  if (init.code !== 0) throw new Error(`t1lab train init-config --stage ${kind} failed (exit ${init.code})`);
  const config = parseToml(init.stdout) as Json;
  for (const [k, v] of Object.entries({ ...settings, ...p.s.overrides[kind] })) setDotted(config, k, v);
  return config;
}

/** PPO's `[ppo]` table as the PPO stages will run it (the probe and the sampled evaluations sample the same way). */
export async function ppoSection(p: ReproPipeline): Promise<Json> {
  return ((await stageConfig(p, 'ppo', {})).ppo ?? {}) as Json;
}

/** A training stage (`train lm|sft|ppo`), resumed when its run folder exists; returns its final checkpoint. */
export async function trainStage(
  p: ReproPipeline,
  name: string,
  kind: StageKind,
  extra: string[],
  settings: Json,
): Promise<string> {
  const configFile = join(p.out, `${name}.toml`);
  if (!existsSync(configFile)) {
    const config = await stageConfig(p, kind, settings);
    writeFileSync(configFile, `# written by t1lab repro${p.quick ? ' --quick' : ''}\n${stringifyToml(config)}\n`);
  }
  const runDir = join(p.out, name);
  const resume = existsSync(join(runDir, 'run.json'));
  const args = [
    'train',
    kind,
    '--config',
    configFile,
    ...(resume ? ['--resume', runDir] : ['--out', runDir, ...extra]),
  ];
  const result = await runStage(p, name, [...args, '--json']);
  const checkpoint = result.checkpoint;
  if (typeof checkpoint !== 'string') throw new Error(`stage ${name} printed no checkpoint`);
  return checkpoint;
}

/**
 * An evaluation stage into `<out>/<name>`: `t1lab eval` with `fresh(dir)`'s arguments, or `--resume` when its
 * run folder exists; returns the run folder.
 */
export async function evalStage(p: ReproPipeline, name: string, fresh: (dir: string) => string[]): Promise<string> {
  const dir = join(p.out, name);
  const resume = existsSync(join(dir, 'run.json'));
  await runStage(p, name, ['eval', ...(resume ? ['--resume', dir] : fresh(dir)), '--json']);
  return dir;
}

/** `t1lab tasks synth` of `count` train tasks of the curriculum's families into `pack`. */
export async function synthStage(p: ReproPipeline, name: string, pack: string, count: number, seed: number) {
  await runStage(p, name, [
    'tasks',
    'synth',
    '--out',
    pack,
    '--count',
    String(count),
    '--seed',
    String(seed),
    '--split',
    'train',
    ...(p.s.families.length ? ['--families', p.s.families.join(',')] : []),
    '--json',
  ]);
}
