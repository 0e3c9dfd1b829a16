/** Flatten nested JSON records into CSV columns given as dotted paths. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { CITIES, FIRST_NAMES, LAST_NAMES, PRODUCTS } from './kit/pools';
import type { TaskFamily } from '../types';

export const jsonFlatten: TaskFamily = {
  name: 'json-flatten',
  category: 'data-processing',
  summary: 'Flatten nested JSON records to CSV using dotted column paths, lists joined, missing values empty',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { split }) {
    const n = rng.int(5, 14);
    const records = Array.from({ length: n }, (_, i) => {
      const r: Record<string, unknown> = {
        id: i + 1,
        user: {
          name: `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`,
          ...(rng.bool(0.8) ? { email: `${rng.word(6)}@example.com` } : {}),
        },
        order: {
          product: rng.pick(PRODUCTS),
          qty: rng.int(1, 9),
          ...(rng.bool(0.7) ? { shipping: { city: rng.pick(CITIES), express: rng.bool() } } : {}),
        },
        tags: rng.sample(['gift', 'priority', 'fragile', 'repeat', 'promo'], rng.int(0, 3)),
      };
      return r;
    });
    const cols = [
      'id',
      'user.name',
      ...rng.sample(
        ['user.email', 'order.product', 'order.qty', 'order.shipping.city', 'order.shipping.express', 'tags'],
        rng.int(3, 6),
      ),
    ];
    const get = (r: Record<string, unknown>, path: string): string => {
      let v: unknown = r;
      for (const k of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
      if (v === undefined || v === null) return '';
      if (Array.isArray(v)) return v.join(';');
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      return String(v);
    };
    const csv = [cols.join(','), ...records.map((r) => cols.map((c) => get(r, c)).join(','))].join('\n') + '\n';
    const src = rng.pick(['orders.json', 'export.json', 'records.json']);
    const out = rng.pick(['flat.csv', 'orders.csv', 'table.csv']);
    const instruction = phrase(rng, split, [
      `/app/${src} is a JSON array of nested records. Write /app/${out} with the columns ${cols.join(', ')} (header row exactly \`${cols.join(',')}\`), one row per record in file order. A dotted column names a nested field; lists are joined with \`;\`; booleans are written true/false; missing fields are empty.`,
      `Flatten /app/${src} into a CSV at /app/${out}. Header: ${cols.join(',')}. Each dotted name is a path into the record (a.b.c). Missing -> empty cell, list -> items joined by ";", true/false in lower case. Keep the records' order.`,
      `Convert the nested JSON in /app/${src} to the CSV /app/${out}, columns (in this order): ${cols.join(', ')}. Use empty cells for absent values, semicolon-joined lists, lowercase booleans. No quoting is needed (values contain no commas).`,
    ]);
    return buildTask(SCENARIO, {
      family: jsonFlatten,
      difficulty: 'easy',
      split,
      instruction,
      files: { [src]: JSON.stringify(records, null, 2) + '\n' },
      solve: `python3 -m json.tool ${src} > /dev/null
python3 - <<'PY'
import json
cols = ${JSON.stringify(cols)}
def get(r, path):
    for k in path.split("."):
        r = r.get(k) if isinstance(r, dict) else None
    if r is None:
        return ""
    if isinstance(r, list):
        return ";".join(map(str, r))
    if isinstance(r, bool):
        return "true" if r else "false"
    return str(r)
with open("${out}", "w") as f:
    f.write(",".join(cols) + "\\n")
    for rec in json.load(open("${src}")):
        f.write(",".join(get(rec, c) for c in cols) + "\\n")
PY
cat ${out}`,
      expected: { [out]: csv },
      assertions: [
        { name: 'header', run: `test "$(head -1 ${out})" = '${cols.join(',')}'` },
        {
          name: 'one row per record, ids in order',
          run: `test "$(tail -n +2 ${out} | cut -d, -f1 | paste -sd,)" = '${records.map((r) => r.id).join(',')}'`,
        },
        check('every cell', 'same', out, `/tests/expected/${out}`),
      ],
      tags: ['json', 'csv', 'flatten'],
    });
  },
};
