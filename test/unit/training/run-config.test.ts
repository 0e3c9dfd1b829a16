/** The run config: every error names its key, unknown keys included; the default configs parse back. */
import { describe, expect, it } from 'vitest';
import { defaultConfigToml } from '../../../electron/lab/training/config/default-config';
import { parseRunConfigToml, RunConfigError } from '../../../electron/lab/training/config/run-config';

const minimal = 'stage = "lm"\n[model]\ncheckpoint = "/m"\n[data]\npath = "builtin"\n';

describe('run config', () => {
  it('fills defaults and applies command-line overrides', () => {
    const c = parseRunConfigToml(minimal, 'x.toml', {
      steps: 7,
      seed: 3,
      model: '/other',
      data: '/d.txt',
      checkpointEvery: 2,
    });
    expect(c).toMatchObject({
      stage: 'lm',
      seed: 3,
      model: { checkpoint: '/other' },
      data: { path: '/d.txt' },
      train: { steps: 7 },
      checkpoint: { every: 2, keep_last: 2 },
      optimizer: { lr: 3e-4 },
      schedule: { kind: 'cosine' },
    });
  });

  it.each([
    ['an unknown top-level key', `lerning_rate = 1\n${minimal}`, /x\.toml: lerning_rate: unknown key/],
    ['an unknown key in a section', `${minimal}[optimizer]\nlr_max = 1\n`, /optimizer\.lr_max: unknown key/],
    [
      'an unknown key in a group',
      `${minimal}[[optimizer.groups]]\npattern = "a"\nscale = 2\n`,
      /optimizer\.groups\.0\.scale: unknown key/,
    ],
    ['a bad value', `${minimal}[train]\nsteps = -1\n`, /train\.steps: /],
    ['a bad enum', `${minimal}[schedule]\nkind = "step"\n`, /schedule\.kind: /],
    ['a wrong type', `${minimal}[optimizer]\nlr = "fast"\n`, /optimizer\.lr: /],
    ['no model', 'stage = "lm"\n[data]\npath = "x"\n', /model: /],
    [
      'both model sources',
      'stage = "lm"\n[model]\ncheckpoint = "a"\npreset = "nano"\n[data]\npath = "x"\n',
      /model\.checkpoint: set exactly one of model\.checkpoint and model\.preset/,
    ],
    ['an unknown stage', 'stage = "rlhf"\n[model]\npreset = "nano"\n[data]\npath = "x"\n', /stage: /],
    ['a PPO key (open for the PPO stage)', `${minimal}[ppo]\nclip = 0.2\n`, /ppo\.clip: unknown key/],
    [
      'dynamic sampling trying fewer tasks than a step needs',
      'stage = "ppo"\n[model]\npreset = "nano"\n[data]\npath = "x"\n[ppo]\ntasks_per_step = 4\ndynamic_max_tasks = 2\n',
      /ppo\.dynamic_max_tasks: 2 is below tasks_per_step \(4\)/,
    ],
    [
      'dynamic sampling with over-sampling',
      'stage = "ppo"\n[model]\npreset = "nano"\n[data]\npath = "x"\n[ppo]\ndynamic_max_tasks = 8\noversample = 0.5\n',
      /ppo\.dynamic_max_tasks: dynamic sampling judges whole groups, and oversample = 0\.5/,
    ],
    [
      'engine hosts given as an empty list',
      'stage = "ppo"\n[model]\npreset = "nano"\n[data]\npath = "x"\n[ppo]\nhosts = []\n',
      /ppo\.hosts: /,
    ],
  ])('%s is an error naming the key', (_what, text, message) => {
    expect(() => parseRunConfigToml(text, 'x.toml')).toThrow(RunConfigError);
    expect(() => parseRunConfigToml(text, 'x.toml')).toThrow(message);
  });

  it('takes ppo.hosts as names or "all", absent by default', () => {
    const ppo = (extra: string) =>
      parseRunConfigToml(`stage = "ppo"\n[model]\npreset = "nano"\n[data]\npath = "x"\n[ppo]\n${extra}`, 'x.toml').ppo
        .hosts;
    expect(ppo('hosts = ["a", "b"]\n')).toEqual(['a', 'b']);
    expect(ppo('hosts = "all"\n')).toBe('all');
    expect(ppo('')).toBeUndefined();
  });

  it('bad TOML names the file', () => {
    expect(() => parseRunConfigToml('stage = ', 'bad.toml')).toThrow(/bad\.toml: not valid TOML/);
  });

  it.each([
    ['lm', 'nano'],
    ['lm', 'micro'],
    ['sft', 'nano'],
    ['ppo', 'micro'],
  ] as const)('the default %s config (%s) is complete and parses', (stage, preset) => {
    const text = defaultConfigToml({ stage, preset });
    const c = parseRunConfigToml(text, 'default.toml');
    expect(c.stage).toBe(stage);
    // Every section is written out with its keys (complete), and comments explain them.
    for (const section of [
      '[model]',
      '[data]',
      '[train]',
      '[optimizer]',
      '[schedule]',
      '[checkpoint]',
      '[lm]',
      '[sft]',
      '[ppo]',
    ])
      expect(text).toContain(section);
    expect(text.split('\n').filter((l) => l.startsWith('#')).length).toBeGreaterThan(20);
    expect(c.lm.seq_len).toBe(preset === 'nano' ? 256 : 512);
  });

  it('the nano preset bounds a PPO step (4 tasks x 4 episodes, 6 turns x 576 tokens, 60 s, group advantages) and SFT batches whole episodes 8 at a time', () => {
    const ppo = parseRunConfigToml(defaultConfigToml({ stage: 'ppo', preset: 'nano' }), 'ppo.toml');
    expect(ppo.ppo).toMatchObject({
      tasks_per_step: 4,
      group_size: 8,
      concurrency: 8,
      max_turns: 6,
      max_tokens: 576,
      agent_timeout_sec: 60,
      episode_deadline_sec: 180,
      temperature: 0.7,
      advantage: 'group',
    });
    expect(ppo.optimizer.lr).toBe(2e-5);
    expect(ppo.schedule.kind).toBe('constant');
    const sft = parseRunConfigToml(defaultConfigToml({ stage: 'sft', preset: 'nano' }), 'sft.toml');
    expect(sft.train).toMatchObject({ batch_size: 8, micro_batch_size: 4 });
    expect(sft.optimizer.lr).toBe(2e-3);
    const lm = parseRunConfigToml(defaultConfigToml({ stage: 'lm', preset: 'nano' }), 'lm.toml');
    expect(lm.train).toMatchObject({ batch_size: 16, micro_batch_size: 8 });
    // Every preset's PPO step has a token cap per turn.
    expect(parseRunConfigToml(defaultConfigToml({ stage: 'ppo', preset: 'micro' }), 'ppo.toml').ppo.max_tokens).toBe(
      576,
    );
  });
});
