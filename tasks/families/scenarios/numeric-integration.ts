/** Definite integrals of seeded functions, checked against the closed form with a tolerance. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import type { TaskFamily } from '../types';

const r2 = (x: number) => Math.round(x * 100) / 100;

export const numericIntegration: TaskFamily = {
  name: 'numeric-integration',
  category: 'scientific-computing',
  summary: 'Integrate several seeded functions numerically to 1e-6 and write the results as JSON',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const k = rng.int(3, 5);
    const specs: string[] = [];
    const want: Record<string, number> = {};
    const names = rng.sample(['f', 'g', 'h', 'p', 'q', 'u', 'v', 'w'], k);
    for (const name of names) {
      const [a, b, c, d, e] = [
        r2(rng.next() * 4 - 2),
        r2(rng.next() * 5 - 2.5),
        r2(0.3 + rng.next() * 3),
        r2(rng.next() * 3),
        r2(0.2 + rng.next() * 2),
      ];
      const lo = r2(rng.next() * 2 - 1);
      const hi = r2(lo + 0.5 + rng.next() * 4);
      const F = (x: number) => (a * x ** 3) / 3 - (b * Math.cos(c * x)) / c - (d * Math.exp(-e * x)) / e;
      want[name] = F(hi) - F(lo);
      specs.push(`${name}(x) = ${a}*x**2 + ${b}*sin(${c}*x) + ${d}*exp(-${e}*x)    on [${lo}, ${hi}]`);
    }
    const out = rng.pick(['integrals.json', 'results.json']);
    const instruction = phrase(rng, split, [
      `/app/functions.txt defines ${k} functions, each with an interval. Compute the definite integral of each over its interval to an absolute accuracy of 1e-6 and write /app/${out} as a JSON object mapping the function name to the value (a number).`,
      `For every line \`name(x) = expression    on [a, b]\` of /app/functions.txt, integrate the expression from a to b (accuracy 1e-6 or better; Python's math module is available, numpy is not). Save {"name": integral, ...} to /app/${out}.`,
      `Numerically evaluate ∫ₐᵇ f(x) dx for each function listed in /app/functions.txt (Python syntax; sin, exp are the usual ones). Write the results to /app/${out}: keys are the function names, values floats accurate to 1e-6.`,
    ]);
    const solve = `cat functions.txt
python3 - <<'PY'
import json, math, re
out = {}
for line in open("functions.txt"):
    m = re.match(r"(\\w+)\\(x\\) = (.*?)\\s+on \\[(\\S+), (\\S+)\\]", line.strip())
    if not m:
        continue
    name, expr, a, b = m.group(1), m.group(2), float(m.group(3)), float(m.group(4))
    f = eval("lambda x: " + expr, {"sin": math.sin, "exp": math.exp, "cos": math.cos})
    n = 20000
    h = (b - a) / n
    s = f(a) + f(b) + sum((4 if i % 2 else 2) * f(a + i * h) for i in range(1, n))
    out[name] = s * h / 3
json.dump(out, open("${out}", "w"), indent=2)
PY
cat ${out}`;
    return buildTask(SCENARIO, {
      family: numericIntegration,
      difficulty: 'medium',
      split,
      instruction,
      files: { 'functions.txt': specs.join('\n') + '\n' },
      solve,
      expected: { [out]: JSON.stringify(want) },
      assertions: names.map((n) =>
        check(`integral of ${n} within 1e-6`, 'json', out, `/tests/expected/${out}`, n, '1e-6'),
      ),
      tags: ['numerics', 'integration', 'python'],
    });
  },
};
