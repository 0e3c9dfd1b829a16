/** `t1lab repro --settings FILE`: fields laid over the preset; a typo or wrong type names the file and field. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NANO_FAMILIES, REPRO_FULL, REPRO_QUICK } from '../../../electron/lab/experiments/repro';
import { findFamily } from '../../../tasks/families';
import { applyReproSettings, readReproSettings } from '../../../electron/lab/experiments/repro-settings';

const file = (body: string) => {
  const p = join(mkdtempSync(join(tmpdir(), 't1-repro-settings-')), 'settings.json');
  writeFileSync(p, body);
  return p;
};

describe('repro settings file', () => {
  it('lays the given fields over the preset and merges stage overrides key by key', () => {
    const s = applyReproSettings(
      REPRO_QUICK,
      readReproSettings(file(JSON.stringify({ ppoSteps: 50, overrides: { ppo: { 'ppo.group_size': 4 } } }))),
    );
    expect(s.ppoSteps).toBe(50);
    expect(s.lmSteps).toBe(REPRO_QUICK.lmSteps);
    expect(s.overrides.ppo['ppo.group_size']).toBe(4);
    expect(s.overrides.ppo['ppo.max_turns']).toBe(REPRO_QUICK.overrides.ppo['ppo.max_turns']);
    expect(s.overrides.lm).toEqual(REPRO_QUICK.overrides.lm);
  });

  it('takes a list for a stage override (the LM corpus: data.path)', () => {
    const s = applyReproSettings(
      REPRO_FULL,
      readReproSettings(file(JSON.stringify({ overrides: { lm: { 'data.path': ['builtin', 'builtin:copy'] } } }))),
    );
    expect(s.overrides.lm['data.path']).toEqual(['builtin', 'builtin:copy']);
    expect(s.overrides.lm['train.batch_size']).toBe(REPRO_FULL.overrides.lm['train.batch_size']);
    expect(() => readReproSettings(file(JSON.stringify({ overrides: { lm: { 'data.path': [1] } } })))).toThrow(
      /field 'overrides.lm.data.path/,
    );
  });

  it('takes the curriculum (families) and the first-turn samples from the file', () => {
    const s = applyReproSettings(
      REPRO_FULL,
      readReproSettings(file(JSON.stringify({ families: ['write-file'], firstTurnTasks: 0 }))),
    );
    expect(s).toMatchObject({ families: ['write-file'], firstTurnTasks: 0, trainTasks: REPRO_FULL.trainTasks });
    expect(() => readReproSettings(file('{"families": "write-file"}'))).toThrow(/field 'families'/);
    expect(() => readReproSettings(file('{"firstTurnTasks": -1}'))).toThrow(/field 'firstTurnTasks'/);
  });

  it('takes the copy drills beside the oracle episodes from the file (0: none)', () => {
    expect(applyReproSettings(REPRO_FULL, readReproSettings(file('{"sftDrillSamples": 800}'))).sftDrillSamples).toBe(
      800,
    );
    expect(applyReproSettings(REPRO_QUICK, readReproSettings(file('{}'))).sftDrillSamples).toBe(
      REPRO_QUICK.sftDrillSamples,
    );
    expect(() => readReproSettings(file('{"sftDrillSamples": 1.5}'))).toThrow(/field 'sftDrillSamples'/);
  });

  it('the PPO pool probe: off with 0 tasks per family; a probe of one attempt cannot see attempts disagree', () => {
    expect(
      applyReproSettings(REPRO_FULL, readReproSettings(file('{"probeTasksPerFamily": 0}'))).probeTasksPerFamily,
    ).toBe(0);
    expect(() => readReproSettings(file('{"probeAttempts": 1}'))).toThrow(/field 'probeAttempts'/);
    expect(REPRO_FULL.probeAttempts).toBeGreaterThanOrEqual(2);
  });

  it('the full preset evaluates greedily with the budget PPO trains with, on the curriculum it trains on', () => {
    const arg = (flag: string) => REPRO_FULL.evalArgs[REPRO_FULL.evalArgs.indexOf(flag) + 1];
    expect(arg('--temperature')).toBe('0');
    expect(Number(arg('--max-turns'))).toBe(REPRO_FULL.overrides.ppo['ppo.max_turns']);
    expect(Number(arg('--max-tokens'))).toBe(REPRO_FULL.overrides.ppo['ppo.max_tokens']);
    expect(Number(arg('--agent-timeout'))).toBe(REPRO_FULL.overrides.ppo['ppo.agent_timeout_sec']);
    expect(REPRO_FULL.families).toEqual(NANO_FAMILIES);
    // Train families only: a held-out family would make synth --split train refuse the pack.
    for (const name of NANO_FAMILIES) expect(findFamily(name)?.heldOut, name).toBe(false);
    // Whole oracle episodes, enough of them that names are copied rather than remembered.
    expect(REPRO_FULL.trainTasks).toBeGreaterThanOrEqual(1000);
  });

  it('names the file and the field of a typo or a wrong type', () => {
    const typo = file('{"ppoStep": 50}');
    expect(() => readReproSettings(typo)).toThrow(/settings\.json.*ppoStep/);
    expect(() => readReproSettings(file('{"sftSteps": "many"}'))).toThrow(/field 'sftSteps'/);
    expect(() => readReproSettings(file('{"overrides": {"rl": {}}}'))).toThrow(/field 'overrides'/);
    expect(() => readReproSettings(file('{not json'))).toThrow(/--settings .*settings\.json/);
  });
});
