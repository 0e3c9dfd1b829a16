/** `t1lab repro --settings FILE`: fields laid over the preset; a typo or wrong type names the file and field. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPRO_QUICK } from '../../../electron/lab/experiments/repro';
import { applyReproSettings, readReproSettings } from '../../../electron/lab/experiments/repro-settings';

const file = (body: string) => {
  const p = join(mkdtempSync(join(tmpdir(), 't1-repro-settings-')), 'settings.json');
  writeFileSync(p, body);
  return p;
};

describe('repro settings file', () => {
  it('lays the given fields over the preset and merges stage overrides key by key', () => {
    const s = applyReproSettings(REPRO_QUICK, readReproSettings(file(JSON.stringify({ ppoSteps: 50, overrides: { ppo: { 'ppo.group_size': 4 } } }))));
    expect(s.ppoSteps).toBe(50);
    expect(s.lmSteps).toBe(REPRO_QUICK.lmSteps);
    expect(s.overrides.ppo['ppo.group_size']).toBe(4);
    expect(s.overrides.ppo['ppo.max_turns']).toBe(REPRO_QUICK.overrides.ppo['ppo.max_turns']);
    expect(s.overrides.lm).toEqual(REPRO_QUICK.overrides.lm);
  });

  it('names the file and the field of a typo or a wrong type', () => {
    const typo = file('{"ppoStep": 50}');
    expect(() => readReproSettings(typo)).toThrow(/settings\.json.*ppoStep/);
    expect(() => readReproSettings(file('{"sftSteps": "many"}'))).toThrow(/field 'sftSteps'/);
    expect(() => readReproSettings(file('{"overrides": {"rl": {}}}'))).toThrow(/field 'overrides'/);
    expect(() => readReproSettings(file('{not json'))).toThrow(/--settings .*settings\.json/);
  });
});
