/** Fill a template once per active recipient of a CSV (mail merge). */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { byCodePoint, cents, CITIES, FIRST_NAMES, LAST_NAMES, PRODUCTS } from './kit/pools';
import type { TaskFamily } from '../types';

const NAMES = ['billing', 'support', 'accounts', 'customer care'];

export const mailMerge: TaskFamily = {
  name: 'mail-merge',
  category: 'text-processing',
  summary: 'Render a {{placeholder}} template for every active row of a CSV into one file per recipient',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { split }) {
    const fields = ['id', 'first', 'last', 'city', 'product', 'amount', 'status'];
    const n = rng.int(4, 10);
    const recs = Array.from({ length: n }, (_, i) => ({
      id: `c${String(i + 1).padStart(3, '0')}${rng.word(2)}`,
      first: rng.pick(FIRST_NAMES),
      last: rng.pick(LAST_NAMES),
      city: rng.pick(CITIES),
      product: rng.pick(PRODUCTS),
      amount: cents(rng.int(500, 99999)),
      status: i === 0 ? 'active' : i === 1 ? 'inactive' : rng.pick(['active', 'active', 'inactive']),
    }));
    const used = rng.sample(['first', 'last', 'city', 'product', 'amount'], rng.int(3, 5));
    const greeting = rng.pick(['Dear', 'Hello', 'Hi']);
    const lines = [
      `${greeting} {{first}},`,
      '',
      ...used.map((f) => `${rng.pick(['Your', 'The', 'Our record of your'])} ${f}: {{${f}}}`),
      '',
      rng.pick(['Regards,', 'Thanks,', 'Best,']),
      `The ${rng.pick(NAMES)} team`,
    ];
    const template = lines.join('\n') + '\n';
    const render = (r: Record<string, string>) => template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => r[k]!);
    const active = recs.filter((r) => r.status === 'active');
    const expected: Record<string, string> = {};
    for (const r of active) expected[`out/${r.id}.txt`] = render(r);
    const outDir = 'out';
    const instruction = phrase(rng, split, [
      `Do a mail merge: for every row of /app/recipients.csv whose status is \`active\`, fill /app/template.txt (replace each \`{{column}}\` with that row's value) and save it as /app/${outDir}/<id>.txt. Inactive rows get no file.`,
      `Generate personalised letters. Template: /app/template.txt with {{placeholders}} named after the columns of /app/recipients.csv. One output per active recipient at /app/${outDir}/<id>.txt (id column); skip status=inactive.`,
      `Render /app/template.txt for each active recipient listed in /app/recipients.csv, substituting {{field}} markers with the row's fields; write the results to /app/${outDir}/ named <id>.txt. Nothing for inactive recipients.`,
    ]);
    const ids = active.map((r) => r.id).sort(byCodePoint);
    const half = Math.ceil(ids.length / 2);
    const cmpIds = (xs: string[]) =>
      xs.map((id) => `cmp -s ${outDir}/${id}.txt /tests/expected/out/${id}.txt`).join(' && ');
    return buildTask(SCENARIO, {
      family: mailMerge,
      difficulty: 'easy',
      split,
      instruction,
      files: {
        'template.txt': template,
        'recipients.csv':
          [fields.join(','), ...recs.map((r) => fields.map((f) => (r as Record<string, string>)[f]).join(','))].join(
            '\n',
          ) + '\n',
      },
      solve: `cat template.txt
head -3 recipients.csv
mkdir -p ${outDir}
python3 - <<'PY'
import csv, re
tpl = open("template.txt").read()
for row in csv.DictReader(open("recipients.csv")):
    if row["status"] == "active":
        open(f"${outDir}/{row['id']}.txt", "w").write(re.sub(r"\\{\\{(\\w+)\\}\\}", lambda m: row[m.group(1)], tpl))
PY
ls ${outDir}`,
      expected,
      assertions: [
        {
          name: 'one file per active recipient, none for inactive',
          run: `test "$(ls ${outDir} | sort | paste -sd,)" = ${shq(ids.map((i) => `${i}.txt`).join(','))}`,
        },
        { name: 'first letters rendered exactly', run: cmpIds(ids.slice(0, half)) },
        {
          name: 'remaining letters rendered, no placeholder left',
          run: `${cmpIds(ids.slice(half)) || 'true'} && test -d ${outDir} && ! grep -rq '{{' ${outDir}`,
        },
      ],
      tags: ['templates', 'csv', 'text'],
    });
  },
};
