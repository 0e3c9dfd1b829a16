/** Group a CSV of orders by one column, total units and revenue, and list the malformed rows it skipped. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, cents, CITIES, isoDate, PRODUCTS, REGIONS } from './kit/pools';
import type { TaskFamily } from '../types';

export const csvGroupReport: TaskFamily = {
  name: 'csv-group-report',
  category: 'data-processing',
  summary: 'Aggregate a CSV of orders by a column into a sorted report and list the malformed rows',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const keyCol = rng.pick(['region', 'product', 'city']);
    const pools: Record<string, readonly string[]> = { region: REGIONS, product: PRODUCTS, city: CITIES };
    const keys = rng.sample(pools[keyCol]!, rng.int(3, 6));
    const cols = rng.shuffle(['date', keyCol, 'units', 'unit_price', 'order_id']);
    const file = `${rng.pick(['orders', 'sales', 'transactions'])}_${rng.int(2019, 2026)}.csv`;
    const n = rng.int(25, 70);
    const rows: string[] = [cols.join(',')];
    const agg = new Map<string, { orders: number; units: number; revenue: number }>();
    const skipped: number[] = [];
    const forced = rng.int(0, n - 1);
    for (let i = 0; i < n; i++) {
      const key = rng.pick(keys);
      const units = rng.int(1, 40);
      const price = rng.int(99, 25000);
      const rec: Record<string, string> = {
        date: isoDate(rng, 2024),
        [keyCol]: key,
        units: String(units),
        unit_price: cents(price),
        order_id: `o${rng.int(10000, 99999)}`,
      };
      if (rng.bool(0.12) || i === forced) {
        rec[rng.pick(['units', 'unit_price'])] = rng.pick(['', 'n/a', 'ten', '?']);
        skipped.push(i + 2);
      } else {
        const a = agg.get(key) ?? { orders: 0, units: 0, revenue: 0 };
        a.orders++;
        a.units += units;
        a.revenue += units * price;
        agg.set(key, a);
      }
      rows.push(cols.map((c) => rec[c]).join(','));
    }
    const sorted = [...agg.entries()].sort((x, y) => y[1].revenue - x[1].revenue || byCodePoint(x[0], y[0]));
    const report =
      [
        `${keyCol},orders,units,revenue`,
        ...sorted.map(([k, a]) => `${k},${a.orders},${a.units},${cents(a.revenue)}`),
      ].join('\n') + '\n';
    const out = rng.pick(['report.csv', `by_${keyCol}.csv`, 'summary.csv']);
    const instruction = phrase(rng, split, [
      `\`${file}\` in /app holds orders (columns: ${cols.join(', ')}). Write \`${out}\` with one row per ${keyCol}: header \`${keyCol},orders,units,revenue\`, where orders counts valid rows, units sums units, revenue sums units × unit_price with two decimals. Sort by revenue, highest first (ties by ${keyCol} name). Rows whose units or unit_price is not a number are malformed: leave them out and write their line numbers in the CSV file (header = line 1), one per line, to \`skipped.txt\`.`,
      `Produce a per-${keyCol} revenue report from /app/${file}. Output file: /app/${out}, CSV, header exactly \`${keyCol},orders,units,revenue\`; revenue = Σ units*unit_price, formatted like 1234.50; rows ordered by revenue descending, then ${keyCol} ascending. Some lines are malformed (non-numeric units or unit_price): skip them and record their 1-based line numbers (counting the header) in /app/skipped.txt, one per line.`,
      `Finance needs totals by ${keyCol}. Read ${file} (in /app), ignore the malformed rows (units or unit_price not numeric) but list their file line numbers (the header is line 1) in skipped.txt, and write ${out} as CSV: ${keyCol},orders,units,revenue (revenue with 2 decimals), biggest revenue first, ties broken alphabetically.`,
    ]);
    const solve = `head -5 ${file}
python3 - <<'PY'
import csv
from decimal import Decimal, InvalidOperation
agg, skipped = {}, []
with open("${file}", newline="") as f:
    for line, row in enumerate(csv.DictReader(f), 2):
        try:
            units, price = int(row["units"]), Decimal(row["unit_price"])
        except (ValueError, InvalidOperation):
            skipped.append(line)
            continue
        a = agg.setdefault(row["${keyCol}"], [0, 0, Decimal(0)])
        a[0] += 1; a[1] += units; a[2] += units * price
with open("${out}", "w") as f:
    f.write("${keyCol},orders,units,revenue\\n")
    for k, (o, u, r) in sorted(agg.items(), key=lambda kv: (-kv[1][2], kv[0])):
        f.write(f"{k},{o},{u},{r:.2f}\\n")
open("skipped.txt", "w").write("".join(f"{n}\\n" for n in skipped))
PY
cat ${out} skipped.txt`;
    return buildTask(SCENARIO, {
      family: csvGroupReport,
      difficulty: 'medium',
      split,
      instruction,
      files: { [file]: rows.join('\n') + '\n' },
      solve,
      expected: { [out]: report, 'skipped.txt': skipped.map((s) => `${s}\n`).join('') || '\n' },
      assertions: [
        {
          name: 'report header and groups',
          run: `test "$(head -1 ${out})" = "${keyCol},orders,units,revenue" && test "$(tail -n +2 ${out} | cut -d, -f1 | sort | paste -sd,)" = "$(tail -n +2 /tests/expected/${out} | cut -d, -f1 | sort | paste -sd,)"`,
        },
        {
          name: 'orders and units per group',
          run: `diff <(tail -n +2 ${out} | cut -d, -f1-3 | sort) <(tail -n +2 /tests/expected/${out} | cut -d, -f1-3 | sort)`,
        },
        check('report matches exactly (revenue, order)', 'same', out, `/tests/expected/${out}`),
        {
          name: 'skipped line numbers',
          run: `test -f skipped.txt && python3 /tests/check.py same skipped.txt /tests/expected/skipped.txt && grep -q , ${file}`,
        },
      ],
      tags: ['csv', 'aggregation', 'python'],
    });
  },
};
