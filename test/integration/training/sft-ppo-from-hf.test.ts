/**
 * `t1lab train sft` and `t1lab train ppo` from a published checkpoint, as a user runs them: a tiny random
 * Qwen3-MoE folder in the Hugging Face layout (sharded safetensors, per-head QK-norm, its own chat
 * template). SFT data comes from the quick suite's oracle in real sandboxes, tokenized with the folder's
 * tokenizer and template; SFT with attention and embeddings frozen by their published names lowers the
 * loss and leaves exactly those tensors untouched; one PPO step from the same folder (critic warm-up off)
 * samples episodes with routing outputs, replays them (R3), and updates the imported weights.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { paramName } from '../../../native/model/config';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeHfTestCheckpoint } from '../../helpers/hf-checkpoint';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
    : [];

describe('train sft and train ppo from a published Qwen3-MoE checkpoint', () => {
  const tmp = makeTempDir('t1lab-hf-sft-ppo-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  afterAll(() => tmp.remove());
  const hf = join(tmp.path, 'qwen3-moe');
  // A window the compact prompt and the quick suite's episodes fit in (the lab's nano size).
  writeHfTestCheckpoint(hf, 'qwen3_moe', { shards: 3, merges: 200, config: { max_position_embeddings: 1024 } });
  const suite = writeSuite(join(tmp.path, 'suite'));

  it('SFT with parameters frozen by published names, then one PPO step with routing replay', async () => {
    const data = join(tmp.path, 'sft.jsonl');
    const made = await runT1lab(
      ['tasks', 'sft-data', '--suite', suite, '--checkpoint', hf, '--out', data, '--concurrency', '2', '--json'],
      { env, timeoutMs: 240_000 },
    );
    expect(made.code, made.stderr).toBe(0);
    expect(parseJsonOutput<{ resolved: number; samples: number; tooLong: number }>(made)).toMatchObject({
      resolved: 3,
      tooLong: 0,
    });

    const sftConfig = join(tmp.path, 'sft.toml');
    writeFileSync(
      sftConfig,
      [
        'stage = "sft"',
        'seed = 1',
        `[data]\npath = ${JSON.stringify(data)}\neval_fraction = 0.0`,
        '[train]\nsteps = 12\nbatch_size = 3\nmicro_batch_size = 3\neval_every = 0\nprovider = "cpu"\nthreads = 1',
        // Published names: the embedding and every attention tensor of every layer (QK-norm included).
        '[optimizer]\nlr = 0.003\nweight_decay = 0.0\nfreeze = ["model.embed_tokens.weight", "model.layers.*.self_attn.**"]',
        '[schedule]\nkind = "constant"\nwarmup_steps = 0',
        '[checkpoint]\nevery = 12\nkeep_last = 1',
      ].join('\n'),
    );
    const sftOut = join(tmp.path, 'runs', 'sft');
    const sft = await runT1lab(['train', 'sft', '--config', sftConfig, '--model', hf, '--out', sftOut, '--json'], {
      env,
      timeoutMs: 300_000,
    });
    expect(sft.code, sft.stderr).toBe(0);
    const sftResult = parseJsonOutput<{ steps: number; checkpoint: string }>(sft);
    expect(sftResult.steps).toBe(12);
    const rows = lines(join(sftOut, 'metrics.jsonl')).map((l) => JSON.parse(l) as { loss: number });
    const mean = (xs: { loss: number }[]) => xs.reduce((a, r) => a + r.loss, 0) / xs.length;
    expect(mean(rows.slice(-3))).toBeLessThan(mean(rows.slice(0, 3)));
    expect(sft.stderr).not.toContain('matches no parameter');

    const before = loadCheckpoint(hf).parameters;
    const after = loadCheckpoint(sftResult.checkpoint).parameters;
    const changed = (name: string) => before.get(name)!.some((v, i) => v !== after.get(name)![i]);
    const frozen = [
      paramName.embed,
      paramName.wq(0),
      paramName.wk(1),
      paramName.wv(0),
      paramName.wo(1),
      paramName.qNorm(0),
      paramName.kNorm(1),
    ];
    for (const name of frozen) expect(changed(name), `${name} (frozen)`).toBe(false);
    for (const name of [
      paramName.router(0),
      paramName.wGate(1),
      paramName.wDown(0),
      paramName.ffnNorm(1),
      paramName.lmHead,
    ])
      expect(changed(name), name).toBe(true);
    const run = JSON.parse(readFileSync(join(sftOut, 'run.json'), 'utf8')) as {
      paramGroups: { frozen: boolean; parameters: number }[];
    };
    const frozenCount = run.paramGroups.filter((g) => g.frozen).reduce((n, g) => n + g.parameters, 0);
    const frozenSize = [...before]
      .filter(([n]) => n === paramName.embed || /^layers\.\d+\.attn\./.test(n))
      .reduce((n, [, w]) => n + w.length, 0);
    expect(frozenCount).toBe(frozenSize);

    // One PPO step straight from the published folder, the policy updated in that step.
    const ppoConfig = join(tmp.path, 'ppo.toml');
    writeFileSync(
      ppoConfig,
      [
        'stage = "ppo"',
        'seed = 2',
        `[data]\npath = ${JSON.stringify(suite)}`,
        '[train]\nsteps = 1\nmicro_batch_size = 4\nprovider = "cpu"\nthreads = 1',
        '[optimizer]\nlr = 0.0001',
        '[schedule]\nkind = "constant"\nwarmup_steps = 0',
        '[ppo]\ntasks_per_step = 2\ngroup_size = 2\nconcurrency = 2\nmax_turns = 2\nmax_tokens = 16\ncritic_warmup_steps = 0\nepochs = 1\nminibatches = 1\nr3 = "on"',
      ].join('\n'),
    );
    const ppoOut = join(tmp.path, 'runs', 'ppo');
    const ppo = await runT1lab(['train', 'ppo', '--config', ppoConfig, '--model', hf, '--out', ppoOut, '--json'], {
      env,
      timeoutMs: 300_000,
    });
    expect(ppo.code, ppo.stderr).toBe(0);
    expect(parseJsonOutput<{ steps: number; episodes: number }>(ppo)).toMatchObject({ steps: 1, episodes: 4 });
    const [row] = lines(join(ppoOut, 'metrics.jsonl')).map((l) => JSON.parse(l) as Record<string, number>);
    expect(row!.critic_warmup).toBe(0);
    expect(row!.loss_drift).toBe(0);
    expect(row!.routing_agreement).toBeGreaterThan(0.9); // the trainer's own top-k against the replayed one
    expect(Math.abs(row!.train_infer_gap_r3!)).toBeLessThan(1e-4);
    const manifest = JSON.parse(readFileSync(join(ppoOut, 'run.json'), 'utf8')) as {
      data: { switches: Record<string, string> };
    };
    expect(manifest.data.switches.r3).toBe('on');
    const samples = lines(join(ppoOut, 'rollouts', 'step-0000001', 'samples.jsonl')).map(
      (l) => JSON.parse(l) as { episode: string; sample: number },
    );
    expect(samples.length).toBeGreaterThan(0);
    const step = loadCheckpoint(join(ppoOut, 'checkpoints', 'step-0000001')).parameters;
    expect(before.get(paramName.wGate(0))!.some((v, i) => v !== step.get(paramName.wGate(0))![i])).toBe(true);
    expect(before.get(paramName.qNorm(1))!.some((v, i) => v !== step.get(paramName.qNorm(1))![i])).toBe(true);
  }, 900_000);
});
