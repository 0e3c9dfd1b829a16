/** Descriptive statistics of a CSV with missing values, plus one correlation, checked with a tolerance. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import type { TaskFamily } from '../types';

const COLUMNS = [
  'height_cm',
  'weight_kg',
  'age',
  'income',
  'score',
  'latency_ms',
  'temp_c',
  'rainfall_mm',
  'speed_kmh',
  'pressure_hpa',
];

function stats(xs: number[]) {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const s = [...xs].sort((a, b) => a - b);
  const median = n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  return { count: n, mean, median, std: sd, min: s[0]!, max: s[n - 1]! };
}

export const columnStats: TaskFamily = {
  name: 'column-stats',
  category: 'data-science',
  summary: 'Per-column descriptive statistics of a CSV with missing values, and a Pearson correlation',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const cols = rng.sample(COLUMNS, rng.int(3, 5));
    const n = rng.int(30, 80);
    const base = cols.map(() => ({ mu: rng.int(10, 500), sd: rng.int(2, 60) }));
    const data: (number | null)[][] = [];
    for (let i = 0; i < n; i++) {
      const z = rng.next() * 2 - 1;
      data.push(
        cols.map((_, j) =>
          rng.bool(0.08)
            ? null
            : Math.round(
                (base[j]!.mu + base[j]!.sd * (j < 2 ? z + (rng.next() - 0.5) * 0.6 : rng.next() * 2 - 1)) * 10,
              ) / 10,
        ),
      );
    }
    const want: Record<string, unknown> = {};
    cols.forEach((c, j) => (want[c] = stats(data.map((r) => r[j]).filter((v): v is number => v !== null))));
    const pairs = data.filter((r) => r[0] !== null && r[1] !== null).map((r) => [r[0]!, r[1]!] as const);
    const mx = pairs.reduce((a, p) => a + p[0], 0) / pairs.length;
    const my = pairs.reduce((a, p) => a + p[1], 0) / pairs.length;
    const cov = pairs.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
    const r =
      cov /
      Math.sqrt(pairs.reduce((a, p) => a + (p[0] - mx) ** 2, 0) * pairs.reduce((a, p) => a + (p[1] - my) ** 2, 0));
    const file = rng.pick(['measurements.csv', 'survey.csv', 'samples.csv']);
    const missing = rng.pick(['', 'NA', 'null']);
    const csv =
      [
        ['id', ...cols].join(','),
        ...data.map((row, i) => [`r${i + 1}`, ...row.map((v) => (v === null ? missing : String(v)))].join(',')),
      ].join('\n') + '\n';
    const corrFile = 'correlation.txt';
    const missDoc = missing === '' ? 'an empty cell' : `\`${missing}\``;
    const instruction = phrase(rng, split, [
      `Compute descriptive statistics for every numeric column of /app/${file} (the \`id\` column is not numeric; a missing value is ${missDoc} and is skipped). Write /app/stats.json: {"<column>": {"count", "mean", "median", "std" (sample standard deviation, n-1), "min", "max"}}. Also write the Pearson correlation between ${cols[0]} and ${cols[1]} (over rows where both are present) as a single number to /app/${corrFile}.`,
      `Profile the dataset /app/${file}. For each column except id produce count, mean, median, std (sample, ddof=1), min and max, ignoring missing values (${missDoc}), into /app/stats.json keyed by column name. Then put Pearson's r of ${cols[0]} vs ${cols[1]} (pairwise complete rows) in /app/${corrFile}.`,
      `Summary statistics please: /app/stats.json with, per numeric column of /app/${file}, the keys count, mean, median, std (n-1 denominator), min, max, computed over non-missing values (missing = ${missDoc}); and /app/${corrFile} with the correlation coefficient between ${cols[0]} and ${cols[1]}.`,
    ]);
    const solve = `head -5 ${file}
python3 - <<'PY'
import csv, json, math, statistics
rows = list(csv.DictReader(open("${file}")))
cols = [c for c in rows[0] if c != "id"]
val = lambda v: None if v in ("", "NA", "null") else float(v)
out = {}
for c in cols:
    xs = [val(r[c]) for r in rows if val(r[c]) is not None]
    out[c] = {"count": len(xs), "mean": statistics.fmean(xs), "median": statistics.median(xs), "std": statistics.stdev(xs), "min": min(xs), "max": max(xs)}
json.dump(out, open("stats.json", "w"), indent=2)
pairs = [(val(r["${cols[0]}"]), val(r["${cols[1]}"])) for r in rows]
pairs = [p for p in pairs if None not in p]
print(statistics.correlation([p[0] for p in pairs], [p[1] for p in pairs]), file=open("${corrFile}", "w"))
PY
cat stats.json ${corrFile}`;
    return buildTask(SCENARIO, {
      family: columnStats,
      difficulty: 'medium',
      split,
      instruction,
      files: { [file]: csv },
      solve,
      expected: { 'stats.json': JSON.stringify(want) },
      assertions: [
        ...cols.map((c) => check(`statistics of ${c}`, 'json', 'stats.json', '/tests/expected/stats.json', c, '1e-6')),
        check(`correlation ${cols[0]} vs ${cols[1]}`, 'num', corrFile, String(r), '1e-6'),
      ],
      tags: ['statistics', 'csv', 'missing-values'],
    });
  },
};
