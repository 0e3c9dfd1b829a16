/** A pipeline: group a CSV by one column, sum another, write a sorted summary CSV. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CITIES, CORE, fileEquals, py } from './kit';

const SHAPES = [
  { file: 'sales.csv', key: 'region', value: 'amount', keys: CITIES, other: 'sku' },
  {
    file: 'expenses.csv',
    key: 'team',
    value: 'cost',
    keys: ['infra', 'ml', 'web', 'data', 'ops', 'sec', 'qa'],
    other: 'vendor',
  },
  {
    file: 'traffic.csv',
    key: 'host',
    value: 'bytes',
    keys: ['edge1', 'edge2', 'edge3', 'core1', 'core2', 'lb1'],
    other: 'path',
  },
] as const;

export const csvGroupSum: TaskFamily = {
  name: 'csv-group-sum',
  category: 'data-processing',
  summary: 'sum a CSV column per key and write a summary sorted by total',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const shape = rng.pick(SHAPES);
    const keys = rng.sample(shape.keys, rng.int(3, Math.min(6, shape.keys.length)));
    const rows: [string, string, number][] = [];
    const n = rng.int(15, 60);
    for (let i = 0; i < n; i++) rows.push([rng.pick(keys), rng.word(5), rng.int(1, 900)]);
    for (const k of keys) if (!rows.some((r) => r[0] === k)) rows.push([k, rng.word(5), rng.int(1, 900)]);
    const cols = rng.shuffle([shape.key, shape.other, shape.value]);
    const csv = [
      cols.join(','),
      ...rows.map((r) => cols.map((c) => (c === shape.key ? r[0] : c === shape.value ? String(r[2]) : r[1])).join(',')),
    ].join('\n');
    const totals = new Map<string, number>();
    for (const [k, , v] of rows) totals.set(k, (totals.get(k) ?? 0) + v);
    const sorted = [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const out = `${shape.key}_totals_${rng.word(3)}.csv`;
    const input = shape.file.replace('.csv', `-${rng.word(4)}.csv`);
    const expected = [`${shape.key},total`, ...sorted.map(([k, v]) => `${k},${v}`)].join('\n');
    const instruction = phrase(rng, split, [
      `\`/app/${input}\` has a header row. Write \`/app/${out}\` with the header \`${shape.key},total\` and one row per ${shape.key}: the sum of \`${shape.value}\` for that ${shape.key}. Sort rows by total, highest first (ties by name).`,
      `Summarise /app/${input}: total ${shape.value} per ${shape.key}, as a CSV /app/${out} with columns ${shape.key},total, largest total first, ties broken alphabetically. Note the column order of the input.`,
      `Group the rows of /app/${input} by ${shape.key} and add up ${shape.value}. Save the result to /app/${out} (header \`${shape.key},total\`, descending by total, then by ${shape.key}).`,
      `Produce /app/${out}: for each distinct ${shape.key} in /app/${input}, the total ${shape.value}. CSV with header ${shape.key},total; order by total desc, ${shape.key} asc.`,
    ]);
    const ki = cols.indexOf(shape.key) + 1;
    const vi = cols.indexOf(shape.value) + 1;
    return buildTask(CORE, {
      family: csvGroupSum,
      seed,
      split,
      difficulty: 'medium',
      instruction,
      tags: ['csv', 'awk', 'sort'],
      files: { [input]: `${csv}\n` },
      solve: `echo '${shape.key},total' > ${shq(out)}\ntail -n +2 ${shq(input)} | awk -F, '{s[$${ki}] += $${vi}} END {for (k in s) print k "," s[k]}' | sort -t, -k2,2nr -k1,1 >> ${shq(out)}`,
      assertions: [
        { name: 'the header is right', run: `test "$(head -n1 ${shq(out)})" = ${shq(`${shape.key},total`)}` },
        { name: `one row per ${shape.key}`, run: `test "$(tail -n +2 ${shq(out)} | wc -l)" -eq ${sorted.length}` },
        {
          name: 'the largest total is first',
          run: `test "$(sed -n 2p ${shq(out)})" = ${shq(`${sorted[0]![0]},${sorted[0]![1]}`)}`,
        },
        {
          name: 'every total is right',
          run: py(
            `import sys; rows = dict(l.strip().split(",") for l in open(${JSON.stringify(out)}).readlines()[1:]); sys.exit(0 if rows == ${JSON.stringify(Object.fromEntries(sorted.map(([k, v]) => [k, String(v)])))} else 1)`,
          ),
        },
        { name: 'the whole file is exact (order included)', run: fileEquals(out, expected) },
      ],
    });
  },
};
