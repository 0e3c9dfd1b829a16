/** Compute a deterministic build order (topological sort) and build levels for a package graph. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, NOUNS } from './kit/pools';
import type { TaskFamily } from '../types';

export const buildOrder: TaskFamily = {
  name: 'build-order',
  category: 'software-engineering',
  summary: 'Topologically sort packages by their declared dependencies (lexicographic Kahn) and compute levels',
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { split }) {
    const names = rng.sample(NOUNS, rng.int(6, 12)).map((n) => `lib${n}`);
    const order = rng.shuffle(names);
    const deps = new Map<string, string[]>();
    order.forEach((n, i) => deps.set(n, i === 0 ? [] : rng.sample(order.slice(0, i), rng.int(0, Math.min(3, i)))));
    // Kahn's algorithm, always taking the smallest ready name.
    const indeg = new Map(names.map((n) => [n, deps.get(n)!.length]));
    const ready = names.filter((n) => indeg.get(n) === 0).sort(byCodePoint);
    const out: string[] = [];
    while (ready.length) {
      const n = ready.shift()!;
      out.push(n);
      for (const m of names)
        if (deps.get(m)!.includes(n)) {
          indeg.set(m, indeg.get(m)! - 1);
          if (indeg.get(m) === 0) {
            ready.push(m);
            ready.sort(byCodePoint);
          }
        }
    }
    const level = new Map<string, number>();
    for (const n of out) level.set(n, Math.max(0, ...deps.get(n)!.map((d) => level.get(d)! + 1)));
    const style = rng.pick(['files', 'single']);
    const files: Record<string, string> = {};
    if (style === 'files')
      for (const n of names)
        files[`packages/${n}/DEPS`] =
          deps
            .get(n)!
            .map((d) => `${d}\n`)
            .join('') || '# no dependencies\n';
    else files['packages.txt'] = names.map((n) => `${n}: ${deps.get(n)!.join(' ')}`.trimEnd()).join('\n') + '\n';
    const where =
      style === 'files'
        ? 'Each folder /app/packages/<name>/ has a DEPS file listing the packages it depends on, one per line (lines starting with # are comments).'
        : 'Each line of /app/packages.txt is `name: dep1 dep2 ...` (a package and the packages it depends on).';
    const instruction = phrase(rng, split, [
      `${where} Write /app/build_order.txt: every package once, each after all of its dependencies; when several packages are ready, take the alphabetically smallest first. Also write /app/levels.json mapping each package to its level (0 without dependencies, otherwise 1 + the largest level of its dependencies).`,
      `Plan the build. ${where} Produce /app/build_order.txt (one package per line, dependencies first, ties broken by picking the lexicographically smallest available package) and /app/levels.json {"package": level} where level = 0 for leaves and 1 + max(level of deps) otherwise.`,
      `${where} I need a deterministic topological order in /app/build_order.txt (Kahn's algorithm choosing the smallest name among ready packages) and the depth of each package in /app/levels.json (no deps -> 0; else one more than its deepest dependency).`,
    ]);
    const read =
      style === 'files'
        ? `deps = {p.name: [l.strip() for l in (p / "DEPS").read_text().splitlines() if l.strip() and not l.startswith("#")] for p in pathlib.Path("packages").iterdir()}`
        : `deps = {l.split(":")[0]: l.split(":")[1].split() for l in open("packages.txt") if l.strip()}`;
    return buildTask(SCENARIO, {
      family: buildOrder,
      difficulty: 'medium',
      split,
      instruction,
      files,
      solve: `${style === 'files' ? 'head packages/*/DEPS' : 'cat packages.txt'}
python3 - <<'PY'
import heapq, json, pathlib
${read}
indeg = {n: len(d) for n, d in deps.items()}
ready = [n for n, k in indeg.items() if k == 0]
heapq.heapify(ready)
order = []
while ready:
    n = heapq.heappop(ready)
    order.append(n)
    for m, d in deps.items():
        if n in d:
            indeg[m] -= 1
            if indeg[m] == 0:
                heapq.heappush(ready, m)
level = {}
for n in order:
    level[n] = max([level[d] + 1 for d in deps[n]], default=0)
open("build_order.txt", "w").write("\\n".join(order) + "\\n")
json.dump(level, open("levels.json", "w"), indent=2)
PY
cat build_order.txt`,
      expected: {
        'build_order.txt': out.join('\n') + '\n',
        'levels.json': JSON.stringify(Object.fromEntries(level)),
        'deps.json': JSON.stringify(Object.fromEntries(deps)),
      },
      assertions: [
        {
          name: 'every package once, dependencies first',
          run: `python3 -c 'import json; o = open("build_order.txt").read().split(); d = json.load(open("/tests/expected/deps.json")); assert sorted(o) == sorted(d), "not every package once"; p = {n: i for i, n in enumerate(o)}; assert all(p[x] < p[n] for n in d for x in d[n]), "a dependency comes later"'`,
        },
        check('ties broken alphabetically', 'same', 'build_order.txt', '/tests/expected/build_order.txt'),
        check('levels', 'json', 'levels.json', '/tests/expected/levels.json'),
      ],
      tags: ['graphs', 'topological-sort', 'dependencies'],
    });
  },
};
