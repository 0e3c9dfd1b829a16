import { describe, expect, test } from 'vitest';
import { runOverrides, setTomlKey } from '../../../renderer/src/components/training/run-config-edit';

describe("the new-run form's config edits", () => {
  test('setTomlKey replaces a key in its section, adds a missing one at the section end, or adds the section', () => {
    const toml = 'stage = "ppo"\n\n[ppo]\nr3 = "on"\ntis = "on"\n\n[lm]\nseq_len = 256\n';
    expect(setTomlKey(toml, 'ppo', 'r3', 'off')).toBe(
      'stage = "ppo"\n\n[ppo]\nr3 = "off"\ntis = "on"\n\n[lm]\nseq_len = 256\n',
    );
    expect(setTomlKey(toml, 'ppo', 'tito', 'retokenize')).toBe(
      'stage = "ppo"\n\n[ppo]\nr3 = "on"\ntis = "on"\ntito = "retokenize"\n\n[lm]\nseq_len = 256\n',
    );
    expect(setTomlKey('stage = "ppo"\n\n', 'ppo', 'r3', 'off')).toBe('stage = "ppo"\n\n[ppo]\nr3 = "off"\n');
  });

  test('runOverrides sends trimmed paths, steps and the checkpoint interval above 0, and a seed when given (0 included)', () => {
    expect(runOverrides({ model: ' ./nano ', data: '', steps: '0', seed: '0', every: '' })).toEqual({
      model: './nano',
      seed: 0,
    });
    expect(runOverrides({ model: '', data: 'sft.jsonl', steps: '20', seed: '', every: '5' })).toEqual({
      data: 'sft.jsonl',
      steps: 20,
      checkpointEvery: 5,
    });
  });
});
