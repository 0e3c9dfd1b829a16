/**
 * Long-horizon debugging: a Python project of 6-9 modules, each with one planted bug caught by its own
 * test file. The oracle works module by module: run its tests, read it, fix it, rerun (20+ commands).
 */
import { buildTask, phrase } from '../kit/task';
import { SCENARIO, sha256Hex } from './kit/conventions';
import { ADJECTIVES, NOUNS } from './kit/pools';
import { moduleSource, PY_BUGS, type PyBug, type PyCase } from './kit/py-bugs';
import { pyLit } from './kit/python';
import type { TaskFamily } from '../types';

function assertCase(mod: string, bug: PyBug, c: PyCase): string {
  const call = `${mod}.${bug.fn}(${c.args.map(pyLit).join(', ')})`;
  return typeof c.expected === 'number'
    ? `assert abs(${call} - ${pyLit(c.expected)}) < 1e-6`
    : `assert ${call} == ${pyLit(c.expected)}`;
}

export const multiModuleDebug: TaskFamily = {
  name: 'multi-module-debug',
  category: 'debugging',
  summary: 'Fix one planted bug in each of 6-9 modules of a Python project until every test file passes',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const pkg = `${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}`;
    const bugs = rng.sample(PY_BUGS, rng.int(6, 9));
    const mods = bugs.map((b) => `${b.fn.split('_')[0]}_${rng.pick(['ops', 'util', 'calc', 'fns'])}`);
    const files: Record<string, string> = { [`${pkg}/__init__.py`]: '' };
    const hidden: string[] = ['import hashlib, subprocess, sys', 'sys.path.insert(0, "/app")', ''];
    const shas: Record<string, string> = {};
    const fixes: string[] = [];
    bugs.forEach((b, i) => {
      const mod = mods[i]!;
      const cases = b.cases(rng);
      files[`${pkg}/${mod}.py`] = moduleSource([b], new Set([b.fn]), `${mod}: part of ${pkg}.`);
      const test = `from ${pkg} import ${mod}\n\n\ndef test_${b.fn}():\n    ${assertCase(mod, b, cases[0]!)}\n`;
      files[`tests/test_${mod}.py`] = test;
      shas[`tests/test_${mod}.py`] = sha256Hex(test);
      hidden.push(`from ${pkg} import ${mod}`);
      fixes.push(
        `python3 -m pytest -q -p no:cacheprovider tests/test_${mod}.py || true`,
        `cat ${pkg}/${mod}.py`,
        `python3 - <<'PY'\nfrom pathlib import Path\np = Path("${pkg}/${mod}.py")\np.write_text(p.read_text().replace(${pyLit(b.bad)}, ${pyLit(b.good)}))\nPY`,
        `python3 -m pytest -q -p no:cacheprovider tests/test_${mod}.py`,
      );
    });
    hidden.push('', `SHAS = ${pyLit(shas)}`, '');
    bugs.forEach((b, i) => {
      const mod = mods[i]!;
      const cases = b.cases(rng);
      hidden.push(
        `def test_${mod}_fixed():`,
        `    assert hashlib.sha256(open("/app/tests/test_${mod}.py", "rb").read()).hexdigest() == SHAS["tests/test_${mod}.py"], "test file edited"`,
        `    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_${mod}.py"], cwd="/app", capture_output=True, text=True)`,
        '    assert r.returncode == 0, r.stdout[-1500:]',
        `    ${assertCase(mod, b, cases[1]!)}`,
        `    ${assertCase(mod, b, cases[2]!)}`,
        '',
      );
    });
    const instruction = phrase(rng, split, [
      `The project in /app (package ${pkg}, tests in tests/) has a failing test suite: every module has one bug. Fix the modules so that \`python3 -m pytest tests\` passes, without editing the tests. Each function's docstring states what it must do; hidden tests use other inputs.`,
      `\`python3 -m pytest tests\` fails in /app. Go through the ${bugs.length} modules of ${pkg}, find the bug in each and fix it (the docstrings are the specification). Do not touch tests/.`,
      `Debug /app/${pkg}: ${bugs.length} modules, each with a defect that its test in /app/tests exposes. Correct the implementations (never the tests) until the whole suite is green; other inputs will be checked too.`,
    ]);
    return buildTask(SCENARIO, {
      family: multiModuleDebug,
      difficulty: 'hard',
      split,
      instruction,
      files,
      solve: [
        `python3 -m pytest -q -p no:cacheprovider tests || true`,
        `ls ${pkg}`,
        ...fixes,
        'python3 -m pytest -q -p no:cacheprovider tests',
      ].join('\n'),
      pytest: hidden.join('\n'),
      tags: ['python', 'pytest', 'debugging', 'long-horizon'],
    });
  },
};
