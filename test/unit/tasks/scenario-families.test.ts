/**
 * The second set of task families (tasks/families/scenarios): 50 seeds of every family load as valid tasks, are
 * distinct and deterministic, carry their metadata, and have dense verifiers; the set covers the categories,
 * difficulties, held-out share and long-horizon tasks the issue asks for.
 */
import { describe, expect, it } from 'vitest';
import { solutionCommands } from '../../../electron/lab/tasks';
import { SCENARIO_FAMILIES } from '../../../tasks/families/scenarios';
import { LONG_HORIZON_COMMANDS } from '../../../tasks/families/scenarios/kit/conventions';
import { phrase } from '../../../tasks/families/kit/task';
import { createFamilyRng } from '../../../tasks/families/rng';
import { TB_CATEGORIES } from '../../../tasks/families/types';
import { familyPackLine, generateFamilyTask, loadFamilyTask } from '../../helpers/family-tasks';

const SEEDS = 50;
const LONG_HORIZON = [
  'rename-refactor',
  'daily-pipeline',
  'service-fleet-migration',
  'incident-investigation',
  'monorepo-release',
  'multi-module-debug',
  'credential-rotation',
];

/** Assertions a task declares: inline ones plus one per pytest test function. */
function assertionCount(task: ReturnType<typeof loadFamilyTask>): number {
  const pytest = task.verifier.pytest ? task.files.find((f) => f.path === task.verifier.pytest) : undefined;
  const tests = pytest
    ? (
        Buffer.from(pytest.data)
          .toString('utf8')
          .match(/^def test_/gm) ?? []
      ).length
    : 0;
  return task.verifier.assertions.length + tests;
}

describe('scenario task families: the set', () => {
  it('has 30+ uniquely named families over 10+ categories, every difficulty, ~1/4 held out, 5+ long-horizon', () => {
    expect(SCENARIO_FAMILIES.length).toBeGreaterThanOrEqual(30);
    const names = SCENARIO_FAMILIES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const f of SCENARIO_FAMILIES) {
      expect(f.name).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      expect(TB_CATEGORIES).toContain(f.category);
      expect(f.summary.length).toBeGreaterThan(10);
    }
    expect(new Set(SCENARIO_FAMILIES.map((f) => f.category)).size).toBeGreaterThanOrEqual(10);
    expect(new Set(SCENARIO_FAMILIES.map((f) => f.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
    const heldOut = SCENARIO_FAMILIES.filter((f) => f.heldOut);
    expect(heldOut.length / SCENARIO_FAMILIES.length).toBeGreaterThanOrEqual(0.2);
    expect(heldOut.length / SCENARIO_FAMILIES.length).toBeLessThanOrEqual(0.3);
    expect(new Set(heldOut.map((f) => f.category)).size).toBeGreaterThanOrEqual(5);
    for (const name of LONG_HORIZON) expect(names).toContain(name);
  });
});

describe('phrase', () => {
  it('keeps the last phrasing for the eval split and draws the others for train', () => {
    const variants = ['a', 'b', 'c', 'held'];
    const rng = createFamilyRng(7);
    const train = new Set(Array.from({ length: 200 }, () => phrase(rng, 'train', variants)));
    expect(train).toEqual(new Set(['a', 'b', 'c']));
    expect(phrase(rng, 'eval', variants)).toBe('held');
    expect(() => phrase(rng, 'train', ['only'])).toThrow(/two phrasings/);
  });
});

describe.each(SCENARIO_FAMILIES.map((f) => [f.name, f] as const))('family %s', (_name, family) => {
  it(`${SEEDS} seeds give valid, distinct, deterministic tasks with metadata and dense verifiers`, () => {
    const ids = new Set<string>();
    const instructions = new Set<string>();
    for (let seed = 1; seed <= SEEDS; seed++) {
      const split = seed % 5 === 0 ? 'eval' : 'train';
      const generated = generateFamilyTask(family, seed, split);
      // Same seed, same bytes (checked on every fifth seed: generation dominates this test's time).
      if (seed % 5 === 1)
        expect(familyPackLine(generateFamilyTask(family, seed, split))).toBe(familyPackLine(generated));
      const task = loadFamilyTask(generated);
      expect(task.warnings, generated.id).toEqual([]);
      expect(task.id.startsWith(`${family.name}-`)).toBe(true);
      expect(task.metadata.category).toBe(family.category);
      expect(task.metadata.difficulty).toBe(generated.difficulty);
      expect(task.metadata.extra).toMatchObject({
        family: family.name,
        expected_commands: generated.expectedCommands,
        split,
      });
      expect(solutionCommands(task)).toHaveLength(generated.expectedCommands);
      expect(task.solution, generated.id).not.toBeNull();
      expect(task.environment.runtime.kind).toBe('sandbox');
      expect(assertionCount(task), generated.id).toBeGreaterThanOrEqual(3);
      if (LONG_HORIZON.includes(family.name))
        expect(generated.expectedCommands, generated.id).toBeGreaterThanOrEqual(LONG_HORIZON_COMMANDS);
      ids.add(task.id);
      instructions.add(task.instruction);
    }
    // The id is a hash of the content: 50 seeds, 50 different tasks.
    expect(ids.size).toBe(SEEDS);
    // Several phrasings are drawn (instructions also vary with the content in most families).
    expect(instructions.size).toBeGreaterThanOrEqual(2);
  });
});
