/** Write a small Python command-line tool to a spec; hidden data and invocations check it. */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { byCodePoint, CITIES, NOUNS, REGIONS } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

interface Domain {
  noun: string;
  nums: string[];
  cats: { name: string; values: readonly string[] }[];
}

const DOMAINS: Domain[] = [
  {
    noun: 'server',
    nums: ['cpus', 'memory_gb', 'disk_gb'],
    cats: [
      { name: 'region', values: REGIONS },
      { name: 'os', values: ['debian', 'ubuntu', 'alpine', 'rocky'] },
    ],
  },
  {
    noun: 'book',
    nums: ['pages', 'year', 'copies'],
    cats: [
      { name: 'genre', values: ['novel', 'poetry', 'history', 'science', 'travel'] },
      { name: 'shelf', values: ['a', 'b', 'c', 'd'] },
    ],
  },
  {
    noun: 'employee',
    nums: ['age', 'salary', 'tenure'],
    cats: [
      { name: 'team', values: ['infra', 'data', 'web', 'mobile', 'sales'] },
      { name: 'office', values: CITIES },
    ],
  },
];

type Row = Record<string, string | number>;

function rows(rng: FamilyRng, d: Domain, n: number): Row[] {
  const names = new Set<string>();
  while (names.size < n) names.add(`${rng.pick(NOUNS)}-${rng.int(1, 99)}`);
  return [...names].map((name) => ({
    name,
    ...Object.fromEntries(d.nums.map((f) => [f, rng.int(1, 60)])),
    ...Object.fromEntries(d.cats.map((c) => [c.name, rng.pick(c.values.slice(0, 4))])),
  }));
}

function csv(d: Domain, rs: Row[]): string {
  const cols = ['name', ...d.nums, ...d.cats.map((c) => c.name)];
  return [cols.join(','), ...rs.map((r) => cols.map((c) => r[c]).join(','))].join('\n') + '\n';
}

export const buildCliTool: TaskFamily = {
  name: 'build-cli-tool',
  category: 'software-engineering',
  summary: 'Implement a Python CLI with several subcommands over a CSV, checked on hidden data',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const d = rng.pick(DOMAINS);
    const tool = `${d.noun}s.py`;
    const sample = rows(rng, d, rng.int(6, 10));
    const hidden = rows(rng, d, rng.int(12, 20));
    const num = rng.pick(d.nums);
    const cat = rng.pick(d.cats);
    const n = rng.int(2, 4);
    const catValue = String(hidden[0]![cat.name]);
    const top = [...hidden]
      .sort((a, b) => (b[num] as number) - (a[num] as number) || byCodePoint(a.name as string, b.name as string))
      .slice(0, n)
      .map((r) => r.name as string);
    const sumOf = hidden.reduce((s, r) => s + (r[num] as number), 0);
    const filtered = hidden
      .filter((r) => String(r[cat.name]) === catValue)
      .map((r) => r.name as string)
      .sort(byCodePoint);
    const uniq = [...new Set(hidden.map((r) => String(r[cat.name])))].sort(byCodePoint);
    const spec = `- \`python3 ${tool} count FILE\` prints the number of ${d.noun}s;
- \`python3 ${tool} sum FILE FIELD\` prints the integer sum of a numeric column;
- \`python3 ${tool} top FILE FIELD N\` prints the names of the N ${d.noun}s with the largest FIELD, largest first (ties: name ascending), one per line;
- \`python3 ${tool} filter FILE FIELD VALUE\` prints the sorted names of the ${d.noun}s whose FIELD equals VALUE, one per line;
- \`python3 ${tool} unique FILE FIELD\` prints the sorted distinct values of FIELD, one per line;
- an unknown subcommand or a missing argument prints a usage message to stderr and exits with status 2; a FIELD that is not a column exits with status 1 and an error on stderr.`;
    const instruction = phrase(rng, split, [
      `Write a command-line tool /app/${tool} (Python 3, standard library only) for CSV files like /app/${d.noun}s.csv (first row is the header; \`name\` identifies a ${d.noun}):\n${spec}`,
      `Implement /app/${tool}, a CLI over ${d.noun} inventories in CSV (see the example /app/${d.noun}s.csv). Required behaviour:\n${spec}\nIt will be tested on other files with the same columns.`,
      `We need a tiny tool. Create /app/${tool} (python3, no third-party packages) that reads a CSV of ${d.noun}s (header row, \`name\` column) and supports:\n${spec}`,
    ]);
    const program = `#!/usr/bin/env python3
"""${d.noun}s.py: queries over a CSV of ${d.noun}s."""
import csv
import sys

USAGE = "usage: ${tool} count FILE | sum FILE FIELD | top FILE FIELD N | filter FILE FIELD VALUE | unique FILE FIELD"
ARITY = {"count": 1, "sum": 2, "top": 3, "filter": 3, "unique": 2}


def main(argv):
    if len(argv) < 2 or argv[1] not in ARITY or len(argv) != ARITY[argv[1]] + 2:
        print(USAGE, file=sys.stderr)
        return 2
    cmd, path, *rest = argv[1:]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rest and rows and rest[0] not in rows[0]:
        print(f"unknown field: {rest[0]}", file=sys.stderr)
        return 1
    if cmd == "count":
        print(len(rows))
    elif cmd == "sum":
        print(sum(int(r[rest[0]]) for r in rows))
    elif cmd == "top":
        for r in sorted(rows, key=lambda r: (-int(r[rest[0]]), r["name"]))[: int(rest[1])]:
            print(r["name"])
    elif cmd == "filter":
        for name in sorted(r["name"] for r in rows if r[rest[0]] == rest[1]):
            print(name)
    else:
        for v in sorted({r[rest[0]] for r in rows}):
            print(v)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
`;
    const H = '/tests/expected/hidden.csv';
    const run = (args: string) => `python3 ${tool} ${args}`;
    const lines = (xs: readonly (string | number)[]) => shq(xs.join('\n'));
    return buildTask(SCENARIO, {
      family: buildCliTool,
      difficulty: 'hard',
      split,
      instruction,
      files: { [`${d.noun}s.csv`]: csv(d, sample) },
      solve: `head -3 ${d.noun}s.csv\ncat > ${tool} <<'PY'\n${program}PY\nchmod +x ${tool}\npython3 ${tool} count ${d.noun}s.csv\npython3 ${tool} top ${d.noun}s.csv ${num} 3\npython3 ${tool} unique ${d.noun}s.csv ${cat.name}`,
      expected: { 'hidden.csv': csv(d, hidden) },
      assertions: [
        {
          name: 'count and sum',
          run: `test "$(${run(`count ${H}`)})" = ${hidden.length} && test "$(${run(`sum ${H} ${num}`)})" = ${sumOf}`,
        },
        { name: 'top N with ties by name', run: `test "$(${run(`top ${H} ${num} ${n}`)})" = ${lines(top)}` },
        {
          name: 'filter by value',
          run: `test "$(${run(`filter ${H} ${cat.name} ${catValue}`)})" = ${lines(filtered)}`,
        },
        { name: 'unique values', run: `test "$(${run(`unique ${H} ${cat.name}`)})" = ${lines(uniq)}` },
        {
          name: 'usage errors exit 2, unknown field exits 1',
          run: `test -f ${tool}; ${run('frobnicate x')} 2>/dev/null; a=$?; ${run(`sum ${H}`)} 2>/dev/null; b=$?; ${run(`sum ${H} no_such_field`)} 2>/dev/null; c=$?; test -f ${tool} && test "$a$b$c" = 221`,
        },
      ],
      tags: ['python', 'cli', 'argparse', 'csv'],
    });
  },
};
