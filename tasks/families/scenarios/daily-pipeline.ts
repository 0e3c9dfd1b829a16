/**
 * Long-horizon data pipeline: clean 15-100 daily CSV exports one by one (trim, drop invalid and duplicate
 * rows, normalise units), then build a summary over the period. The oracle writes a cleaner and runs it per file.
 */
import { buildTask, phrase } from '../kit/task';
import { SCENARIO, pyCheck } from './kit/conventions';
import { byCodePoint, CITIES, pad2 } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

export const dailyPipeline: TaskFamily = {
  name: 'daily-pipeline',
  category: 'data-processing',
  summary: 'Clean 15-100 daily CSV exports (trim, dedupe, drop invalid, convert units) and summarise the period',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    // Consecutive days from a seeded start (UTC date arithmetic on fixed dates, never the clock).
    const start = Date.UTC(2024, rng.int(0, 8), rng.int(1, 28));
    const days = rng.bool(0.6) ? rng.int(15, 31) : rng.int(32, 100);
    const stations = rng.sample(CITIES, rng.int(3, 6));
    const unitField: UnitField = rng.pick(['temp', 'wind']);
    const raw: Record<string, string> = {};
    const clean: Record<string, string> = {};
    const totals = new Map<string, StationTotal>();
    for (let d = 1; d <= days; d++) {
      const date = new Date(start + (d - 1) * 86_400_000).toISOString().slice(0, 10);
      const day = dayExport(rng, stations, unitField);
      raw[`raw/${date}.csv`] = day.csv;
      clean[`clean/${date}.csv`] = cleanCsv(day.good);
      addToTotals(totals, day.good);
    }
    const base =
      unitField === 'temp'
        ? 'degrees Celsius (F rows: C = (F - 32) * 5 / 9)'
        : 'km/h (ms rows are metres per second: km/h = m/s * 3.6)';
    const rules = `lower-case and trim station names; trim every field; drop rows whose value is not a number; convert values to ${base}, written with one decimal; drop exact duplicate (station, time) rows; sort by station then time; header \`station,time,value\``;
    const instruction = phrase(rng, split, [
      `/app/raw/ holds one CSV per day (station,time,value,unit). For every raw/<date>.csv write clean/<date>.csv: ${rules}. Then write /app/summary.csv with header \`station,readings,mean,max\` (one row per station over all days, sorted by station; mean with 2 decimals, max with 1).`,
      `Run the cleaning pipeline: each file in /app/raw becomes /app/clean/<same name> following these rules: ${rules}. Finish with /app/summary.csv (station,readings,mean,max; stations sorted; mean rounded to 2 decimals, max to 1) computed from the cleaned files.`,
      `Daily exports in /app/raw are dirty. Produce a cleaned copy of each in /app/clean (same file names): ${rules}. Also aggregate all cleaned rows into /app/summary.csv: station,readings,mean,max — sorted by station, mean to 2 decimals, max to 1 decimal.`,
    ]);
    const dates = Object.keys(raw)
      .map((p) => p.slice(4, -4))
      .sort(byCodePoint);
    const expected: Record<string, string> = { 'summary.csv': summaryCsv(totals) };
    for (const [p, t] of Object.entries(clean)) expected[p] = t;
    return buildTask(SCENARIO, {
      family: dailyPipeline,
      difficulty: 'hard',
      split,
      instruction,
      files: raw,
      solve: solveScript(dates, unitField),
      expected,
      assertions: assertionsFor(dates),
      tags: ['csv', 'pipeline', 'cleaning', 'units', 'long-horizon'],
    });
  },
};

type UnitField = 'temp' | 'wind';
type Reading = { station: string; time: string; tenths: number };
type StationTotal = { n: number; sumTenths: number; max: number };

/**
 * One day's raw export: 4-9 readings, some with no number, some in the other unit, some padded or upper-cased,
 * some repeated; `good` are the readings a correct cleaner keeps, in tenths of the base unit.
 */
function dayExport(rng: FamilyRng, stations: string[], unitField: UnitField): { csv: string; good: Reading[] } {
  const rows: string[] = ['station,time,value,unit'];
  const good: Reading[] = [];
  const seen = new Set<string>();
  for (let k = rng.int(4, 9); k > 0; k--) {
    const station = rng.pick(stations);
    const time = `${pad2(rng.int(0, 23))}:${rng.pick(['00', '30'])}`;
    const key = `${station}|${time}`;
    const tenths = unitField === 'temp' ? rng.int(-150, 350) : rng.int(0, 400);
    const kind = rng.int(0, 9);
    if (kind === 0) {
      rows.push(`${station},${time},${rng.pick(['', 'NaN', '--', 'err'])},${unitField === 'temp' ? 'C' : 'kmh'}`);
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    const { value, unit } = rawValue(unitField, tenths, kind <= 2);
    const line = `${rng.bool(0.3) ? ' ' : ''}${rng.bool(0.3) ? station.toUpperCase() : station},${time},${value}${rng.bool(0.2) ? ' ' : ''},${unit}`;
    rows.push(line);
    if (rng.bool(0.15)) rows.push(line);
    good.push({ station, time, tenths });
  }
  return { csv: rows.join('\n') + '\n', good };
}

/** A reading as the export writes it: in the base unit, or in the other one; values are exact in tenths after conversion. */
function rawValue(unitField: UnitField, tenths: number, otherUnit: boolean): { value: string; unit: string } {
  if (unitField === 'temp')
    return otherUnit
      ? { value: ((tenths * 9) / 50 + 32).toFixed(2), unit: 'F' }
      : { value: (tenths / 10).toFixed(1), unit: 'C' };
  return otherUnit ? { value: (tenths / 36).toFixed(4), unit: 'ms' } : { value: (tenths / 10).toFixed(1), unit: 'kmh' };
}

/** The cleaned day: sorted by station then time, one decimal. */
function cleanCsv(good: Reading[]): string {
  good.sort((a, b) => byCodePoint(a.station, b.station) || byCodePoint(a.time, b.time));
  return (
    ['station,time,value', ...good.map((g) => `${g.station},${g.time},${(g.tenths / 10).toFixed(1)}`)].join('\n') + '\n'
  );
}

function addToTotals(totals: Map<string, StationTotal>, good: Reading[]): void {
  for (const g of good) {
    const t = totals.get(g.station) ?? { n: 0, sumTenths: 0, max: -Infinity };
    t.n++;
    t.sumTenths += g.tenths;
    t.max = Math.max(t.max, g.tenths);
    totals.set(g.station, t);
  }
}

/** The expected summary; its mean is exact: a correct answer rounds it to 2 decimals either way at a tie. */
function summaryCsv(totals: Map<string, StationTotal>): string {
  return (
    [
      'station,readings,mean,max',
      ...[...totals.entries()]
        .sort((a, b) => byCodePoint(a[0], b[0]))
        .map(([s, t]) => `${s},${t.n},${t.sumTenths / t.n / 10},${(t.max / 10).toFixed(1)}`),
    ].join('\n') + '\n'
  );
}

/** The oracle: a look at the first export, a cleaner run on each day, then the summary. */
function solveScript(dates: string[], unitField: UnitField): string {
  const conv =
    unitField === 'temp' ? `v = (v - 32) * 5 / 9 if unit == "F" else v` : `v = v * 3.6 if unit == "ms" else v`;
  return [
    'ls raw',
    `head -5 raw/${dates[0]}.csv`,
    'mkdir -p clean',
    `cat > /tmp/clean.py <<'PY'
import csv, math, sys
src, dst = sys.argv[1], sys.argv[2]
rows = {}
for r in csv.DictReader(open(src)):
    r = {k.strip(): (v or "").strip() for k, v in r.items()}
    try:
        v = float(r["value"])
    except ValueError:
        continue
    if math.isnan(v):
        continue
    unit = r["unit"]
    ${conv}
    rows[(r["station"].lower(), r["time"])] = v
with open(dst, "w") as f:
    f.write("station,time,value\\n")
    for (s, t), v in sorted(rows.items()):
        f.write(f"{s},{t},{round(v, 1):.1f}\\n")
PY`,
    ...dates.map((d) => `python3 /tmp/clean.py raw/${d}.csv clean/${d}.csv`),
    `python3 - <<'PY'
import csv, glob
agg = {}
for p in sorted(glob.glob("clean/*.csv")):
    for r in csv.DictReader(open(p)):
        a = agg.setdefault(r["station"], [])
        a.append(float(r["value"]))
with open("summary.csv", "w") as f:
    f.write("station,readings,mean,max\\n")
    for s in sorted(agg):
        f.write(f"{s},{len(agg[s])},{sum(agg[s]) / len(agg[s]):.2f},{max(agg[s]):.1f}\\n")
PY`,
    'cat summary.csv',
  ].join('\n');
}

/** One clean file per raw one, the clean files in two halves, and the summary (its mean within rounding). */
function assertionsFor(dates: string[]) {
  const half = Math.floor(dates.length / 2);
  const cmpDays = (ds: string[]) => ds.map((d) => `cmp -s clean/${d}.csv /tests/expected/clean/${d}.csv`).join(' && ');
  return [
    { name: 'one clean file per raw file', run: `test "$(ls clean | paste -sd,)" = "$(ls raw | paste -sd,)"` },
    { name: `clean files of the first ${half} days`, run: cmpDays(dates.slice(0, half)) },
    { name: `clean files of the remaining ${dates.length - half} days`, run: cmpDays(dates.slice(half)) },
    pyCheck(
      'summary (mean within rounding)',
      'import csv\ng = list(csv.reader(open("summary.csv")))\nw = list(csv.reader(open("/tests/expected/summary.csv")))\nassert g[0] == w[0] and len(g) == len(w), "header or row count"\nfor a, b in zip(g[1:], w[1:]):\n    assert a[:2] == b[:2] and a[3] == b[3] and abs(float(a[2]) - float(b[2])) <= 0.00501 and len(a[2].split(".")[-1]) == 2, (a, b)',
    ),
  ];
}
