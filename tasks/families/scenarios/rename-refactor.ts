/**
 * Long-horizon refactor: rename a function, a constant and a module across a Python package of 22-90
 * modules and its tests, then record it in the changelog. The oracle edits file by file (20+ commands).
 */
import { buildTask, phrase, shq, type Assertion } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { ADJECTIVES, NOUNS } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

/** The drawn rename: the names before and after, and the package's modules. */
interface Rename {
  pkg: string;
  oldMod: string;
  newMod: string;
  thing: string;
  oldFn: string;
  newFn: string;
  oldConst: string;
  newConst: string;
  /** The constant's value. */
  base: number;
  modNames: string[];
  /** The modules that import the function (the first 18 always). */
  users: Set<string>;
  /** The modules tests/test_tasks.py imports. */
  tested: string[];
}

export const renameRefactor: TaskFamily = {
  name: 'rename-refactor',
  category: 'software-engineering',
  summary: 'Rename a function, a constant and a module throughout a 22-90 module Python package and its tests',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const r = drawRename(rng);
    const { before, after } = packageTrees(r);
    const entry = changelogEntry(r);
    const instruction = phrase(rng, split, instructions(r, entry));
    const expected: Record<string, string> = {};
    for (const [p, t] of Object.entries(after)) expected[`tree/${p}`] = t;
    return buildTask(SCENARIO, {
      family: renameRefactor,
      difficulty: 'hard',
      split,
      instruction,
      files: before,
      solve: solveScript(r, before, after, entry),
      expected,
      assertions: renameAssertions(r),
      tags: ['refactor', 'python', 'sed', 'long-horizon'],
    });
  },
};

/** The names (package, module, function, constant, old and new), the constant's value, the modules and who uses the function. */
function drawRename(rng: FamilyRng): Rename {
  const pkg = `${rng.pick(NOUNS)}kit`;
  const [oldMod, newMod] = rng.pick([
    ['pricing', 'pricing_rules'],
    ['rates', 'rate_table'],
    ['scoring', 'score_model'],
    ['limits', 'quota_rules'],
    ['weights', 'weighting'],
  ]) as [string, string];
  const verb = rng.pick(['compute', 'calc', 'derive', 'estimate']);
  const thing = rng.pick(['rate', 'score', 'weight', 'factor', 'cost']);
  const oldFn = `${verb}_${thing}`;
  const newFn = `${rng.pick(['resolve', 'evaluate', 'determine'])}_${thing}_${rng.pick(['value', 'amount', 'level'])}`;
  const oldConst = `${thing.toUpperCase()}_BASE`;
  const newConst = `DEFAULT_${thing.toUpperCase()}_${rng.pick(['UNIT', 'STEP', 'BASIS'])}`;
  const base = rng.int(2, 9);
  const n = rng.bool(0.6) ? rng.int(22, 45) : rng.int(46, 90);
  const modNames = Array.from({ length: n }, (_, i) => `${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}_${i}`);
  const users = new Set(modNames.filter((_, i) => i < 18 || rng.bool(0.6)));
  const tested = rng.sample(modNames, 6);
  return { pkg, oldMod, newMod, thing, oldFn, newFn, oldConst, newConst, base, modNames, users, tested };
}

/** What a task module returns for x (users call the function and, every third, subtract the constant). */
function taskValue({ modNames, users, base }: Rename, m: string, x: number): number {
  const i = modNames.indexOf(m);
  return users.has(m) ? x * base + 1 + i - (i % 3 === 0 ? base : 0) : x + i;
}

/** The package, its tests and the changelog before the rename, and each file as it must be after it. */
function packageTrees(r: Rename): { before: Record<string, string>; after: Record<string, string> } {
  const { pkg, oldMod, newMod, thing, oldFn, newFn, oldConst, newConst, base, modNames, users, tested } = r;
  const before: Record<string, string> = {};
  const after: Record<string, string> = {};
  const add = (path: string, text: string) => {
    before[path] = text;
    after[path] = text
      .replace(new RegExp(`\\b${oldFn}\\b`, 'g'), newFn)
      .replace(new RegExp(`\\b${oldConst}\\b`, 'g'), newConst)
      .replace(new RegExp(`\\b${pkg}\\.${oldMod}\\b`, 'g'), `${pkg}.${newMod}`);
  };
  add(`${pkg}/__init__.py`, `"""${pkg}: task helpers."""\n`);
  const core = `"""Core ${thing} logic."""\n\n${oldConst} = ${base}\n\n\ndef ${oldFn}(x):\n    """The ${thing} of x: x * ${oldConst} + 1."""\n    return x * ${oldConst} + 1\n`;
  before[`${pkg}/${oldMod}.py`] = core;
  modNames.forEach((m, i) => {
    const uses = users.has(m);
    add(
      `${pkg}/${m}.py`,
      uses
        ? `"""Task ${i}."""\nfrom ${pkg}.${oldMod} import ${oldFn}${i % 3 === 0 ? `, ${oldConst}` : ''}\n\n\ndef task_${i}(x):\n    return ${oldFn}(x) + ${i}${i % 3 === 0 ? ` - ${oldConst}` : ''}\n`
        : `"""Task ${i}."""\n\n\ndef task_${i}(x):\n    return x + ${i}\n`,
    );
  });
  const val = (m: string, x: number) => taskValue(r, m, x);
  add(
    'tests/test_tasks.py',
    `import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))\n${tested.map((m) => `from ${pkg}.${m} import task_${modNames.indexOf(m)}`).join('\n')}\nfrom ${pkg}.${oldMod} import ${oldFn}, ${oldConst}\n\n\ndef test_core():\n    assert ${oldFn}(3) == 3 * ${oldConst} + 1\n\n\ndef test_tasks():\n${tested.map((m) => `    assert task_${modNames.indexOf(m)}(5) == ${val(m, 5)}`).join('\n')}\n`,
  );
  add('CHANGELOG.md', `# Changelog\n\n## Unreleased\n\n- Initial task modules.\n`);
  after['CHANGELOG.md'] =
    `# Changelog\n\n## Unreleased\n\n- Initial task modules.\n- Renamed ${pkg}.${oldMod} to ${pkg}.${newMod}, ${oldFn} to ${newFn} and ${oldConst} to ${newConst}.\n`;
  after[`${pkg}/${newMod}.py`] = core
    .replace(new RegExp(`\\b${oldFn}\\b`, 'g'), newFn)
    .replace(new RegExp(`\\b${oldConst}\\b`, 'g'), newConst);
  return { before, after };
}

/** The line the changelog gains. */
function changelogEntry({ pkg, oldMod, newMod, oldFn, newFn, oldConst, newConst }: Rename): string {
  return `- Renamed ${pkg}.${oldMod} to ${pkg}.${newMod}, ${oldFn} to ${newFn} and ${oldConst} to ${newConst}.`;
}

/** The instruction's three phrasings. */
function instructions({ pkg, oldMod, newMod, oldFn, newFn, oldConst, newConst }: Rename, entry: string): string[] {
  return [
    `Refactor the package /app/${pkg}: rename the module \`${pkg}.${oldMod}\` to \`${pkg}.${newMod}\` (file ${pkg}/${newMod}.py), the function \`${oldFn}\` to \`${newFn}\` and the constant \`${oldConst}\` to \`${newConst}\`, updating every import and use in the package and in tests/. Change nothing else. Then append this line at the end of the "Unreleased" list in CHANGELOG.md:\n\n${entry}\n\nThe tests (\`python3 -m pytest tests\`) must pass.`,
    `Naming cleanup in /app: \`${oldFn}\` becomes \`${newFn}\`, \`${oldConst}\` becomes \`${newConst}\`, and the module ${pkg}/${oldMod}.py moves to ${pkg}/${newMod}.py. Update all the modules and tests that refer to them (no compatibility aliases, no other edits), add the line \`${entry}\` as the last item under "## Unreleased" in CHANGELOG.md, and make sure pytest passes.`,
    `Please perform this rename across /app (package ${pkg} plus tests/): module ${oldMod} -> ${newMod}, function ${oldFn} -> ${newFn}, constant ${oldConst} -> ${newConst}. No old name may remain and nothing else may change. Record it in CHANGELOG.md by appending "${entry}" to the Unreleased section. Verify with python3 -m pytest tests.`,
  ];
}

/** The oracle: find the uses, move the module, sed every file that changes, append the entry, run the tests. */
function solveScript(
  { pkg, oldMod, newMod, oldFn, newFn, oldConst, newConst }: Rename,
  before: Record<string, string>,
  after: Record<string, string>,
  entry: string,
): string {
  const files = Object.keys(before).filter(
    (p) => p !== `${pkg}/${oldMod}.py` && p !== 'CHANGELOG.md' && before[p] !== after[p],
  );
  const sed = `sed -i -E 's/\\b${oldFn}\\b/${newFn}/g; s/\\b${oldConst}\\b/${newConst}/g; s/\\b${pkg}\\.${oldMod}\\b/${pkg}.${newMod}/g'`;
  return [
    `grep -rn '${oldFn}\\|${oldConst}\\|${pkg}\\.${oldMod}' ${pkg} tests | wc -l`,
    `grep -rln '${oldFn}\\|${oldConst}\\|${pkg}\\.${oldMod}' ${pkg} tests`,
    `mv ${pkg}/${oldMod}.py ${pkg}/${newMod}.py`,
    `${sed} ${pkg}/${newMod}.py`,
    ...files.map((f) => `${sed} ${shq(f)}`),
    `echo ${shq(entry)} >> CHANGELOG.md`,
    `grep -rn '${oldFn}\\|${oldConst}\\|${pkg}\\.${oldMod}' ${pkg} tests || echo 'no old names left'`,
    'python3 -m pytest -q -p no:cacheprovider tests',
  ].join('\n');
}

/** The checks: no old name left, tests pass, the renamed API works, every file exact, the changelog entry. */
function renameAssertions(r: Rename): Assertion[] {
  const { pkg, oldMod, newMod, oldFn, newFn, oldConst, newConst, base, modNames, users } = r;
  const val = (m: string, x: number) => taskValue(r, m, x);
  const lost = modNames.filter((m) => users.has(m)).slice(0, 3);
  return [
    {
      name: 'no old name left, module moved',
      run: `test -f ${pkg}/${newMod}.py && test ! -e ${pkg}/${oldMod}.py && ! grep -rqE '\\b(${oldFn}|${oldConst})\\b|${pkg}\\.${oldMod}\\b' ${pkg} tests`,
    },
    {
      name: 'tests pass',
      run: `test -f ${pkg}/${newMod}.py && python3 -m pytest -q -p no:cacheprovider tests >/tmp/pytest.txt 2>&1`,
    },
    {
      name: 'renamed API works from a fresh import',
      run: `python3 -c 'from ${pkg}.${newMod} import ${newFn}, ${newConst}; ${lost.map((m) => `from ${pkg}.${m} import task_${modNames.indexOf(m)}`).join('; ')}; assert ${newFn}(2) == 2 * ${base} + 1 and ${newConst} == ${base}; ${lost.map((m) => `assert task_${modNames.indexOf(m)}(7) == ${val(m, 7)}`).join('; ')}'`,
    },
    {
      name: 'every file edited exactly (nothing else changed)',
      run: `diff -r -x __pycache__ -x .pytest_cache ${pkg} /tests/expected/tree/${pkg} && diff -r -x __pycache__ tests /tests/expected/tree/tests`,
    },
    { name: 'changelog entry', run: `cmp -s CHANGELOG.md /tests/expected/tree/CHANGELOG.md` },
  ];
}
