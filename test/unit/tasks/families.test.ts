/** The family registry, the split rule and the synthesizer's determinism and distinctness. */
import { describe, expect, it } from 'vitest';
import {
  ALL_FAMILIES,
  CORE_FAMILIES,
  createFamilyRng,
  duplicateFamilyNames,
  seedSplit,
  TB_CATEGORIES,
  type TaskFamily,
} from '../../../tasks/families';
import { phrase } from '../../../tasks/families/kit/task';
import { parseTaskToml } from '../../../electron/lab/tasks/config/task-toml';
import { chooseFamilies, generateOne, synthesize, taskSeed } from '../../../electron/lab/tasks/synth/generate';
import { parsePackLine, packLineOf } from '../../../electron/lab/tasks/pack';
import { fileText } from '../../../electron/lab/tasks/model';
import { typedCommands } from '../../../native/util/shell-split';

describe('the family registry', () => {
  it('has unique kebab-case names, Terminal-Bench categories, and a core set of 12+ families over 6+ categories', () => {
    expect(duplicateFamilyNames(ALL_FAMILIES)).toEqual([]);
    expect(duplicateFamilyNames([...CORE_FAMILIES, CORE_FAMILIES[0]!])).toEqual([CORE_FAMILIES[0]!.name]);
    for (const f of ALL_FAMILIES) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(TB_CATEGORIES).toContain(f.category);
    }
    expect(CORE_FAMILIES.length).toBeGreaterThanOrEqual(12);
    expect(new Set(CORE_FAMILIES.map((f) => f.category)).size).toBeGreaterThanOrEqual(6);
    expect(CORE_FAMILIES.some((f) => f.heldOut)).toBe(true);
    expect(CORE_FAMILIES.some((f) => !f.heldOut)).toBe(true);
  });

  const SEEDS = 12;
  it.each(ALL_FAMILIES.map((f) => [f.name, f] as [string, TaskFamily]))(
    '%s writes loadable tasks with full metadata, deterministically',
    (name, family) => {
      const ids = new Set<string>();
      for (let i = 0; i < SEEDS; i++) {
        const seed = taskSeed(name, 7, i);
        const split = i % 2 ? 'eval' : 'train';
        const g = generateOne(family, seed, split);
        expect(packLineOf(g)).toBe(packLineOf(generateOne(family, seed, split)));
        const entry = parsePackLine('t.jsonl', 1, packLineOf(g));
        expect(
          entry.problems.filter((p) => p.severity === 'error'),
          `${g.id}`,
        ).toEqual([]);
        const task = entry.task!;
        expect(task.id.startsWith(name)).toBe(true);
        ids.add(task.id);
        const toml = parseTaskToml(fileText(task, 'task.toml')!);
        expect(toml.ok).toBe(true);
        const meta: Record<string, unknown> = toml.ok ? toml.value.metadata : {};
        expect(meta).toMatchObject({ family: name, category: family.category, difficulty: g.difficulty, split });
        expect(meta.expected_commands).toBe(g.expectedCommands);
        // The oracle exists and the verifier is dense: several assertions or pytest tests.
        const solve = fileText(task, 'solution/solve.sh')!;
        expect(typedCommands(solve).length).toBe(g.expectedCommands);
        const tests = (fileText(task, 'tests/test_outputs.py') ?? '').match(/^def test_/gm)?.length ?? 0;
        expect(task.verifier.assertions.length + tests).toBeGreaterThanOrEqual(2);
      }
      expect(ids.size).toBe(SEEDS);
    },
  );

  it('gives a long-horizon family 20+ commands', () => {
    const ops = CORE_FAMILIES.find((f) => f.name === 'ops-checklist')!;
    for (let i = 0; i < 5; i++)
      expect(generateOne(ops, taskSeed('ops-checklist', 1, i), 'train').expectedCommands).toBeGreaterThanOrEqual(20);
  });
});

describe('the split rule', () => {
  it('sends about one seed in eight to eval, independently of the synth seed', () => {
    let evals = 0;
    for (let s = 0; s < 8000; s++) if (seedSplit('write-file', s) === 'eval') evals++;
    expect(evals / 8000).toBeGreaterThan(0.1);
    expect(evals / 8000).toBeLessThan(0.15);
  });

  it('keeps the last phrasing for eval', () => {
    const rng = createFamilyRng(3);
    for (let i = 0; i < 20; i++) expect(phrase(rng, 'eval', ['a', 'b', 'c'])).toBe('c');
    const seen = new Set(Array.from({ length: 40 }, () => phrase(rng, 'train', ['a', 'b', 'c'])));
    expect([...seen].sort()).toEqual(['a', 'b']);
  });

  it('refuses held-out families for training and leaves them out by default', () => {
    const held = ALL_FAMILIES.find((f) => f.heldOut)!;
    expect(() => chooseFamilies(ALL_FAMILIES, [held.name], 'train')).toThrow(/held out/);
    expect(() => chooseFamilies(ALL_FAMILIES, ['no-such-family'], 'train')).toThrow(/no family 'no-such-family'/);
    expect(chooseFamilies(ALL_FAMILIES, null, 'train').some((f) => f.heldOut)).toBe(false);
    expect(chooseFamilies(ALL_FAMILIES, null, 'eval').some((f) => f.heldOut)).toBe(true);
  });

  it('makes train and eval corpora that share no task, and distinct tasks within each', () => {
    const train = [
      ...synthesize({ count: 600, seed: 1, split: 'train', families: chooseFamilies(ALL_FAMILIES, null, 'train') }),
    ];
    const evals = [
      ...synthesize({ count: 300, seed: 1, split: 'eval', families: chooseFamilies(ALL_FAMILIES, null, 'eval') }),
    ];
    expect(train).toHaveLength(600);
    expect(new Set(train.map((t) => t.hashes.content)).size).toBe(600);
    const trainHashes = new Set(train.map((t) => t.hashes.content));
    expect(evals.filter((t) => trainHashes.has(t.hashes.content))).toEqual([]);
    const trainIds = new Set(train.map((t) => t.id));
    expect(evals.filter((t) => trainIds.has(t.id))).toEqual([]);
    for (const t of train) expect(seedSplit(t.family, t.seed)).toBe('train');
    for (const t of evals) expect(seedSplit(t.family, t.seed)).toBe('eval');
  });

  it('counts a duplicate instead of writing it twice', () => {
    const constant: TaskFamily = {
      ...CORE_FAMILIES[0]!,
      name: 'constant',
      generate: (rng, o) => ({
        ...CORE_FAMILIES[0]!.generate(createFamilyRng(1), { seed: 1, split: o.split }),
        id: `constant-${rng.int(0, 1e9)}`,
      }),
    };
    const rejects: string[] = [];
    const out = [
      ...synthesize({ count: 3, seed: 1, split: 'train', families: [constant] }, (r) => rejects.push(r.verdict)),
    ];
    expect(out).toHaveLength(1);
    expect(rejects.length).toBeGreaterThan(0);
    expect(new Set(rejects)).toEqual(new Set(['duplicate']));
  });
});

describe('long-horizon selection', () => {
  it('keeps only tasks that need --min-commands commands, counting the others', () => {
    const rejects: string[] = [];
    const tasks = [
      ...synthesize({ count: 5, seed: 1, split: 'eval', families: ALL_FAMILIES, minCommands: 20 }, (r) =>
        rejects.push(r.verdict),
      ),
    ];
    expect(tasks).toHaveLength(5);
    for (const t of tasks) expect(t.expectedCommands).toBeGreaterThanOrEqual(20);
    expect(rejects).toContain('too-short');
  });
});
