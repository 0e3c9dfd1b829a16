/**
 * Multi-step debugging: a small Python module whose functions each carry one planted bug; pytest tests
 * (one per function, so every test fails before the fix) check the behaviour the instruction describes.
 */
import type { TaskFamily } from '../types';
import { buildTask, phrase } from '../kit/task';
import { CORE, NOUNS } from './kit';

interface Fn {
  name: string;
  doc: string;
  good: string;
  bad: string;
  /** pytest assertions (body lines) that pass only on the good version. */
  test: string[];
}

/** Each function is parameterised by the seed (constants), so tests and bodies differ from task to task. */
function functions(k: number, m: number): Fn[] {
  return [
    {
      name: 'clamp',
      doc: `Clamp x into [lo, hi].`,
      good: 'def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n',
      bad: 'def clamp(x, lo, hi):\n    return min(lo, max(x, hi))\n',
      test: [
        `assert mod.clamp(${k}, 0, ${k + 5}) == ${k}`,
        `assert mod.clamp(${-k}, 0, 10) == 0`,
        `assert mod.clamp(${k + 50}, 1, ${k}) == ${k}`,
      ],
    },
    {
      name: 'mean',
      doc: 'Arithmetic mean of a non-empty list.',
      good: 'def mean(xs):\n    return sum(xs) / len(xs)\n',
      bad: 'def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n',
      test: [`assert mod.mean([${k}, ${k + 2 * m}]) == ${k + m}`, `assert mod.mean([${m}] * 5) == ${m}`],
    },
    {
      name: 'last_n',
      doc: 'The last n items of a list (all of them when n >= len).',
      good: 'def last_n(xs, n):\n    return xs[-n:] if n > 0 else []\n',
      bad: 'def last_n(xs, n):\n    return xs[-n + 1:] if n > 0 else []\n',
      test: [
        `assert mod.last_n(list(range(${k + 10})), ${m}) == list(range(${k + 10 - m}, ${k + 10}))`,
        'assert mod.last_n([1, 2], 5) == [1, 2]',
      ],
    },
    {
      name: 'is_leap',
      doc: 'Gregorian leap year.',
      good: 'def is_leap(y):\n    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)\n',
      bad: 'def is_leap(y):\n    return y % 4 == 0 and y % 100 != 0\n',
      test: [
        `assert mod.is_leap(${2000 + 4 * k})`,
        'assert mod.is_leap(2000)',
        `assert not mod.is_leap(${1900 - 100 * (k % 3)})`,
      ],
    },
    {
      name: 'count_words',
      doc: 'Number of whitespace-separated words.',
      good: 'def count_words(s):\n    return len(s.split())\n',
      bad: 'def count_words(s):\n    return len(s.split(" "))\n',
      test: [`assert mod.count_words("a  b " * ${m}) == ${2 * m}`, 'assert mod.count_words("") == 0'],
    },
    {
      name: 'percent',
      doc: 'part as a percentage of whole, rounded to 1 decimal.',
      good: 'def percent(part, whole):\n    return round(100 * part / whole, 1)\n',
      bad: 'def percent(part, whole):\n    return round(100 * part // whole, 1)\n',
      test: [`assert mod.percent(1, 3) == 33.3`, `assert mod.percent(${m}, ${m * 8}) == 12.5`],
    },
    {
      name: 'dedupe',
      doc: 'Items without repeats, first occurrence order kept.',
      good: 'def dedupe(xs):\n    seen = set()\n    out = []\n    for x in xs:\n        if x not in seen:\n            seen.add(x)\n            out.append(x)\n    return out\n',
      bad: 'def dedupe(xs):\n    return sorted(set(xs))\n',
      test: [`assert mod.dedupe([${k + 3}, 1, ${k + 3}, 2, 1]) == [${k + 3}, 1, 2]`],
    },
  ];
}

export const fixPythonBugs: TaskFamily = {
  name: 'fix-python-bugs',
  category: 'debugging',
  summary: 'find and fix the planted bug in each function of a small Python module',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const nBugs = rng.int(2, 4);
    const chosen = rng.sample(functions(rng.int(3, 40), rng.int(2, 9)), nBugs);
    const module = `${rng.pick(NOUNS)}_${rng.pick(['utils', 'helpers', 'lib', 'tools'])}`;
    const source = `"""${module}: small helpers used across the project."""\n\n\n${chosen.map((f) => `${f.bad.replace(':\n', `:\n    """${f.doc}"""\n`)}`).join('\n\n')}`;
    const fixed = `"""${module}: small helpers used across the project."""\n\n\n${chosen.map((f) => `${f.good.replace(':\n', `:\n    """${f.doc}"""\n`)}`).join('\n\n')}`;
    const names = chosen.map((f) => `\`${f.name}\``).join(', ');
    const instruction = phrase(rng, split, [
      `\`/app/${module}.py\` has ${nBugs === 1 ? 'a bug' : `${nBugs} bugs, one in each function`} (${names}). Each function's docstring says what it must do. Fix the code so every function behaves as documented; keep the names and signatures.`,
      `The functions ${names} in /app/${module}.py do not do what their docstrings say. Debug and fix ${nBugs === 1 ? 'it' : 'them'} in place (same module, same signatures).`,
      `Our tests of /app/${module}.py fail. The docstrings are the specification; find the defect${nBugs === 1 ? '' : 's'} in ${names} and correct ${nBugs === 1 ? 'it' : 'them'}.`,
    ]);
    const pytest = [
      'import importlib.util',
      '',
      '',
      'def load():',
      `    spec = importlib.util.spec_from_file_location(${JSON.stringify(module)}, ${JSON.stringify(`/app/${module}.py`)})`,
      '    mod = importlib.util.module_from_spec(spec)',
      '    spec.loader.exec_module(mod)',
      '    return mod',
      '',
      ...chosen.flatMap((f) => ['', `def test_${f.name}():`, '    mod = load()', ...f.test.map((t) => `    ${t}`), '']),
    ].join('\n');
    return buildTask(CORE, {
      family: fixPythonBugs,
      seed,
      split,
      difficulty: nBugs >= 3 ? 'hard' : 'medium',
      instruction,
      tags: ['python', 'debugging', 'pytest'],
      files: { [`${module}.py`]: source },
      solve: `cat > ${module}.py <<'PY'\n${fixed}PY\npython3 -c 'import ${module}'`,
      pytest,
    });
  },
};
