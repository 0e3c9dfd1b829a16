/** Flag z-score outliers per sensor in a time series and compute daily means. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, pad2 } from './kit/pools';
import type { TaskFamily } from '../types';

export const sensorAnomalies: TaskFamily = {
  name: 'sensor-anomalies',
  category: 'data-science',
  summary: 'Find per-sensor z-score anomalies in hourly readings and write daily means per sensor',
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { split }) {
    const sensors = rng.sample(
      ['s01', 's02', 's03', 's04', 's05', 's06', 'north', 'south', 'roof', 'lab'],
      rng.int(2, 4),
    );
    const days = rng.int(2, 4);
    const month = pad2(rng.int(1, 12));
    const rows: { ts: string; sensor: string; v: number }[] = [];
    const spikes = new Set<string>();
    for (const s of sensors) {
      const base = rng.int(10, 40);
      const hours = days * 24;
      const spikeAt = new Set(
        rng.sample(
          Array.from({ length: hours }, (_, i) => i),
          rng.int(1, 3),
        ),
      );
      for (let h = 0; h < hours; h++) {
        const ts = `2024-${month}-${pad2(1 + Math.floor(h / 24))}T${pad2(h % 24)}:00`;
        let v = Math.round((base + (rng.next() * 2 - 1)) * 100) / 100;
        if (spikeAt.has(h)) {
          v = Math.round((base + (rng.bool() ? 1 : -1) * (25 + rng.next() * 15)) * 100) / 100;
          spikes.add(`${s}@${ts}`);
        }
        rows.push({ ts, sensor: s, v });
      }
    }
    const anomalies: string[] = [];
    const daily: Record<string, Record<string, number>> = {};
    for (const s of sensors) {
      const xs = rows.filter((r) => r.sensor === s);
      const mean = xs.reduce((a, r) => a + r.v, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, r) => a + (r.v - mean) ** 2, 0) / xs.length);
      for (const r of xs) if (Math.abs(r.v - mean) / sd > 3) anomalies.push(`${r.ts},${s},${r.v.toFixed(2)}`);
      daily[s] = {};
      for (let d = 1; d <= days; d++) {
        const day = `2024-${month}-${pad2(d)}`;
        const ys = xs.filter((r) => r.ts.startsWith(day));
        daily[s]![day] = ys.reduce((a, r) => a + r.v, 0) / ys.length;
      }
    }
    anomalies.sort(byCodePoint);
    const shuffled = rng.bool(0.5) ? rng.shuffle(rows) : rows;
    const csv =
      ['timestamp,sensor,value', ...shuffled.map((r) => `${r.ts},${r.sensor},${r.v.toFixed(2)}`)].join('\n') + '\n';
    const instruction = phrase(rng, split, [
      `/app/readings.csv has hourly readings (timestamp,sensor,value). For each sensor, compute the mean and the population standard deviation of its values; a reading is an anomaly when |value - mean| / std > 3. Write /app/anomalies.csv (header \`timestamp,sensor,value\`, value with 2 decimals as in the input, sorted by timestamp then sensor) and /app/daily_means.json: {sensor: {"YYYY-MM-DD": mean of that day's readings}}.`,
      `Detect outliers in /app/readings.csv per sensor using a z-score above 3 (mean and population std over all of that sensor's readings). Output /app/anomalies.csv with header timestamp,sensor,value and rows ordered by timestamp, then sensor (values copied as written). Also /app/daily_means.json mapping sensor -> date -> average value for that date.`,
      `Sensor QA: with /app/readings.csv, (1) list every reading whose z-score within its sensor (population std, ddof=0) exceeds 3 in absolute value to /app/anomalies.csv (columns timestamp,sensor,value; sorted by timestamp then sensor); (2) write per-sensor, per-day averages to /app/daily_means.json as {"sensor": {"date": mean}}.`,
    ]);
    return buildTask(SCENARIO, {
      family: sensorAnomalies,
      difficulty: 'medium',
      split,
      instruction,
      files: { 'readings.csv': csv },
      solve: `head -5 readings.csv
python3 - <<'PY'
import csv, json, statistics
from collections import defaultdict
rows = list(csv.DictReader(open("readings.csv")))
by = defaultdict(list)
for r in rows:
    by[r["sensor"]].append(r)
out, daily = [], {}
for s, rs in by.items():
    vals = [float(r["value"]) for r in rs]
    m, sd = statistics.fmean(vals), statistics.pstdev(vals)
    out += [(r["timestamp"], s, r["value"]) for r in rs if abs(float(r["value"]) - m) / sd > 3]
    days = defaultdict(list)
    for r in rs:
        days[r["timestamp"][:10]].append(float(r["value"]))
    daily[s] = {d: statistics.fmean(v) for d, v in sorted(days.items())}
with open("anomalies.csv", "w") as f:
    f.write("timestamp,sensor,value\\n")
    for t in sorted(out):
        f.write(",".join(t) + "\\n")
json.dump(daily, open("daily_means.json", "w"), indent=2)
PY
cat anomalies.csv`,
      expected: {
        'anomalies.csv': ['timestamp,sensor,value', ...anomalies].join('\n') + '\n',
        'daily_means.json': JSON.stringify(daily),
      },
      assertions: [
        {
          name: 'anomalies found (planted spikes)',
          run: `test "$(tail -n +2 anomalies.csv | wc -l)" = ${anomalies.length} && test "$(tail -n +2 anomalies.csv | cut -d, -f2 | sort -u | paste -sd,)" = "$(tail -n +2 /tests/expected/anomalies.csv | cut -d, -f2 | sort -u | paste -sd,)"`,
        },
        check('anomalies exactly, sorted', 'same', 'anomalies.csv', '/tests/expected/anomalies.csv'),
        check('daily means', 'json', 'daily_means.json', '/tests/expected/daily_means.json', '-', '1e-6'),
      ],
      tags: ['time-series', 'z-score', 'anomaly-detection'],
    });
  },
};
