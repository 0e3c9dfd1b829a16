/**
 * `t1lab repro`'s training phases in order, with the process runner faked (nothing is spawned): each stage's
 * output feeds the next, a rerun skips every stage that finished, and a failed stage says how to resume.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import type { StepResult } from '../../../electron/lab/experiments/cli-step';
import { ppoBudgetArgs, REPRO_QUICK, trainModels } from '../../../electron/lab/experiments/repro';
import { reproPipeline, runStage } from '../../../electron/lab/experiments/repro-pipeline';
import type { ReproSettings } from '../../../electron/lab/experiments/repro-settings';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-repro-pipeline-');
afterAll(() => tmp.remove());

/** What `train init-config` prints, cut to the keys the phases read. */
const INIT_CONFIG = 'stage = "x"\n[train]\nsteps = 1\n[ppo]\nmax_turns = 6\ntemperature = 1.0\n';

/** A fake `t1lab`: records every command line and answers as the real stages' `--json` does. */
function fakeT1lab(out: string, fail?: string) {
  const calls: string[][] = [];
  const runStep = async (args: string[]): Promise<StepResult> => {
    calls.push(args);
    const answer = (json: unknown, stdout = JSON.stringify(json)): StepResult => ({ code: 0, json, stdout });
    const [command, sub] = args;
    if (fail && args.join(' ').startsWith(fail)) return { code: 1, json: null, stdout: 'boom' };
    if (command === 'train' && sub === 'init-config') return answer(null, INIT_CONFIG);
    if (command === 'model') return answer({ path: join(out, 'init') });
    if (command === 'train') {
      const at = args.includes('--out') ? args.indexOf('--out') : args.indexOf('--resume');
      return answer({ checkpoint: `${args[at + 1]}/final` });
    }
    if (command === 'tasks' && sub === 'pool') return answer({ tasks: 5, kept: ['write-file'] });
    return answer({});
  };
  return { calls, runStep };
}

const settings: ReproSettings = { ...REPRO_QUICK, families: ['write-file', 'count-matches'], sftDrillSamples: 3 };
const valueOf = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe('repro pipeline', () => {
  it('runs the training stages in order, each fed the one before', async () => {
    const out = join(tmp.path, 'fresh');
    mkdirSync(out);
    const t1lab = fakeT1lab(out);
    const logs: string[] = [];
    const p = reproPipeline({ out, quick: true, s: settings, log: (l) => logs.push(l), runStep: t1lab.runStep });

    const { pack, checkpoints } = await trainModels(p);

    const stages = t1lab.calls.filter((a) => a[1] !== 'init-config');
    expect(stages.map((a) => a.slice(0, 2).join(' '))).toEqual([
      'model init',
      'train lm',
      'tasks synth',
      'tasks sft-data',
      'tasks synth',
      'tasks sft-data',
      'tasks sft-drills',
      'train sft',
      'tasks synth',
      'eval --suite',
      'tasks pool',
      'train ppo',
      'train ppo',
    ]);
    const [init, lm, synth, sftData, synthFirst, sftFirst, drills, sft, probeSynth, probe, pool, dense, binary] =
      stages as [string[], ...string[][]];
    expect(valueOf(lm!, '--model')).toBe(join(out, 'init'));
    expect(init).toContain('--json');
    expect(pack).toBe(join(out, 'train.jsonl'));
    expect(valueOf(synth!, '--families')).toBe('write-file,count-matches');
    expect(valueOf(synth!, '--count')).toBe(String(settings.trainTasks));
    // The SFT prompts state the evaluation's budget; the first-turn pack is another seed of the same families.
    expect(valueOf(sftData!, '--checkpoint')).toBe(checkpoints.base);
    expect(valueOf(sftData!, '--max-turns')).toBe(valueOf(settings.evalArgs, '--max-turns'));
    expect(valueOf(synthFirst!, '--seed')).toBe(String(settings.seed + 1));
    expect(sftFirst).toContain('--first-turns');
    expect(valueOf(drills!, '--like')).toBe(join(out, 'sft.jsonl'));
    // SFT trains on the three data files, its config the preset's with the settings over it.
    const sftConfig = parseToml(readFileSync(valueOf(sft!, '--config')!, 'utf8')) as { data: { path: string[] } };
    expect(sftConfig.data.path).toEqual(['sft.jsonl', 'sft-first.jsonl', 'sft-drills.jsonl'].map((f) => join(out, f)));
    expect(valueOf(sft!, '--model')).toBe(checkpoints.base);
    // The probe: probeTasksPerFamily per family, sampled by the SFT checkpoint as PPO will (the PPO overrides).
    expect(valueOf(probeSynth!, '--count')).toBe(String(settings.probeTasksPerFamily * 2));
    expect(valueOf(probe!, '--policy')).toBe(`onnx:${checkpoints.sft}`);
    expect(valueOf(probe!, '--max-turns')).toBe(String(settings.overrides.ppo['ppo.max_turns']));
    expect(valueOf(probe!, '--temperature')).toBe('1');
    expect(valueOf(pool!, '--probe')).toBe(valueOf(probe!, '--out'));
    expect(logs).toContain('ppo pool: 5 train tasks in write-file');
    // Both PPO runs start from SFT on the pool, alike but for the reward.
    for (const run of [dense!, binary!]) {
      expect(valueOf(run, '--model')).toBe(checkpoints.sft);
      expect(valueOf(run, '--data')).toBe(join(out, 'ppo-pool.jsonl'));
    }
    const reward = (args: string[]) =>
      (parseToml(readFileSync(valueOf(args, '--config')!, 'utf8')) as { ppo: { reward: string } }).ppo.reward;
    expect([reward(dense!), reward(binary!)]).toEqual(['dense', 'binary']);
    expect(checkpoints).toEqual({
      base: join(out, 'lm', 'final'),
      sft: join(out, 'sft', 'final'),
      'rl-dense': join(out, 'rl-dense', 'final'),
      'rl-binary': join(out, 'rl-binary', 'final'),
    });
    expect(existsSync(join(out, 'stage-times.json'))).toBe(true);

    // A rerun finds every stage done: nothing runs but the probe's look at PPO's config.
    const again = fakeT1lab(out);
    const rerun = await trainModels({ ...p, runStep: again.runStep });
    expect(rerun.checkpoints).toEqual(checkpoints);
    expect(again.calls.map((a) => a.slice(0, 2).join(' '))).toEqual(['train init-config']);
  });

  it('a failed stage names itself and how to resume; the stages before it stay done', async () => {
    const out = join(tmp.path, 'failed');
    mkdirSync(out);
    const t1lab = fakeT1lab(out, 'tasks sft-data');
    const p = reproPipeline({ out, quick: true, s: settings, log: () => {}, runStep: t1lab.runStep });
    await expect(trainModels(p)).rejects.toThrow(
      /stage sft-data failed \(exit 1\); rerun t1lab repro with the same --out/,
    );
    expect(['init', 'lm', 'synth'].map((s) => existsSync(join(out, `${s}.done.json`)))).toEqual([true, true, true]);
    expect(existsSync(join(out, 'sft-data.done.json'))).toBe(false);
    await expect(runStage(p, 'synth', [])).resolves.toEqual({});
  });

  it('gives the probe only the budget flags PPO sets', () => {
    expect(ppoBudgetArgs({ max_turns: 4, temperature: 0.7, concurrency: null })).toEqual([
      '--max-turns',
      '4',
      '--temperature',
      '0.7',
    ]);
  });
});
