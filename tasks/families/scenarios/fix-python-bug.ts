/** A small Python module whose test suite fails because of planted bugs: fix the code, not the tests. */
import { buildTask, phrase } from '../kit/task';
import { SCENARIO, sha256Hex } from './kit/conventions';
import { NOUNS } from './kit/pools';
import { moduleSource, PY_BUGS, type PyBug, type PyCase } from './kit/py-bugs';
import { pyLit } from './kit/python';
import type { FamilyRng, TaskFamily } from '../types';

function call(mod: string, bug: PyBug, c: PyCase): string {
  return `${mod}.${bug.fn}(${c.args.map(pyLit).join(', ')})`;
}

function assertCase(mod: string, bug: PyBug, c: PyCase): string {
  return typeof c.expected === 'number'
    ? `assert abs(${call(mod, bug, c)} - ${pyLit(c.expected)}) < 1e-6`
    : `assert ${call(mod, bug, c)} == ${pyLit(c.expected)}`;
}

export const fixPythonBug: TaskFamily = {
  name: 'fix-python-bug',
  category: 'debugging',
  summary: 'Fix the planted bugs in a small Python module so that its unit tests (and hidden ones) pass',
  heldOut: false,
  difficulty: 'medium',
  generate(rng: FamilyRng, { split }) {
    const hard = rng.bool(0.35);
    const fns = rng.sample(PY_BUGS, rng.int(4, 6));
    const bugged = rng.sample(fns, hard ? 2 : 1);
    const buggy = new Set(bugged.map((b) => b.fn));
    const mod = `${rng.pick(NOUNS)}_${rng.pick(['utils', 'helpers', 'tools', 'lib', 'core'])}`;
    const cases = new Map(fns.map((b) => [b.fn, b.cases(rng)]));
    const visible = `import ${mod}\n\n${fns.map((b) => `\ndef test_${b.fn}():\n    ${assertCase(mod, b, cases.get(b.fn)![0]!)}\n`).join('\n')}`;
    const testFile = `test_${mod}.py`;
    const hidden = [
      'import subprocess, sys, hashlib',
      'sys.path.insert(0, "/app")',
      `import ${mod}`,
      '',
      `VISIBLE_SHA = ${pyLit(sha256Hex(visible))}`,
      '',
      'def test_visible_suite_passes_unchanged():',
      `    assert hashlib.sha256(open("/app/${testFile}", "rb").read()).hexdigest() == VISIBLE_SHA, "the test file was edited"`,
      `    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "${testFile}"], cwd="/app", capture_output=True, text=True)`,
      '    assert r.returncode == 0, r.stdout[-2000:]',
      ...bugged.flatMap((b, i) => {
        const [, c1, c2] = cases.get(b.fn)!;
        // The other functions must keep working: folded into the first bug's checks.
        const others =
          i === 0
            ? fns.filter((f) => !buggy.has(f.fn)).map((f) => `    ${assertCase(mod, f, cases.get(f.fn)![1]!)}`)
            : [];
        return [
          '',
          `def test_${b.fn}_fixed():`,
          `    ${assertCase(mod, b, c1!)}`,
          ...others,
          '',
          `def test_${b.fn}_more_cases():`,
          `    ${assertCase(mod, b, c2!)}`,
        ];
      }),
      '',
    ].join('\n');
    const fixes = bugged
      .map(
        (b) =>
          `python3 - <<'PY'\nfrom pathlib import Path\np = Path("${mod}.py")\np.write_text(p.read_text().replace(${pyLit(b.bad)}, ${pyLit(b.good)}))\nPY`,
      )
      .join('\n');
    const instruction = phrase(rng, split, [
      `The tests in /app/${testFile} fail. Find the bug${hard ? 's' : ''} in /app/${mod}.py and fix ${hard ? 'them' : 'it'} so that \`python3 -m pytest ${testFile}\` passes. Do not modify the tests; the functions' docstrings describe the intended behaviour.`,
      `\`${mod}.py\` (in /app) has ${hard ? 'a couple of bugs' : 'a bug'}: its test suite \`${testFile}\` is red. Fix the module (not the tests) so every function does what its docstring says.`,
      `Debug the Python module /app/${mod}.py. Run its tests (${testFile}), locate the faulty implementation${hard ? 's' : ''} and correct ${hard ? 'them' : 'it'}. Leave ${testFile} untouched; extra hidden tests will check the functions against their docstrings.`,
    ]);
    return buildTask(SCENARIO, {
      family: fixPythonBug,
      difficulty: hard ? 'hard' : 'medium',
      split,
      instruction,
      files: {
        [`${mod}.py`]: moduleSource(fns, buggy, `Helpers of the ${mod.split('_')[0]} service.`),
        [testFile]: visible,
      },
      solve: `python3 -m pytest -q -p no:cacheprovider ${testFile} || true\ncat ${mod}.py\n${fixes}\npython3 -m pytest -q -p no:cacheprovider ${testFile}`,
      pytest: hidden,
      tags: ['python', 'pytest', 'bugfix'],
    });
  },
};
