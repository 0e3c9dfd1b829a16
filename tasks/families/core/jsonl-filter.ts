/** One or two commands: select records of a JSON Lines file by a condition and extract a field. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CITIES, CORE, fileEquals, PEOPLE } from './kit';

export const jsonlFilter: TaskFamily = {
  name: 'jsonl-filter',
  category: 'data-processing',
  summary: 'extract one field of the JSON Lines records that match a condition',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { seed, split }) {
    const n = rng.int(12, 40);
    const records = Array.from({ length: n }, (_, i) => ({
      id: i + 1,
      user: `${rng.pick(PEOPLE)}${rng.int(1, 99)}`,
      city: rng.pick(CITIES),
      age: rng.int(18, 80),
      active: rng.bool(0.6),
    }));
    const city = records[rng.int(0, n - 1)]!.city;
    const minAge = rng.int(20, 50);
    const cond = rng.int(0, 2);
    const match = (r: (typeof records)[number]) =>
      cond === 0 ? r.city === city : cond === 1 ? r.age >= minAge && r.active : r.city === city && r.active;
    if (!records.some(match)) records[0] = { ...records[0]!, city, age: 60, active: true };
    const what =
      cond === 0
        ? `whose \`city\` is \`${city}\``
        : cond === 1
          ? `that are \`active\` and whose \`age\` is at least ${minAge}`
          : `that are \`active\` and live in \`${city}\``;
    const pyCond =
      cond === 0
        ? `r["city"] == ${JSON.stringify(city)}`
        : cond === 1
          ? `r["age"] >= ${minAge} and r["active"]`
          : `r["city"] == ${JSON.stringify(city)} and r["active"]`;
    const users = records.filter(match).map((r) => r.user);
    const file = `${rng.pick(['users', 'people', 'accounts'])}-${rng.word(3)}.jsonl`;
    const out = rng.pick(['selected.txt', 'names.txt', 'matches.txt']);
    const instruction = phrase(rng, split, [
      `\`/app/${file}\` holds one JSON object per line. Write to \`/app/${out}\` the \`user\` of every record ${what}, one per line, in file order.`,
      `From the JSON Lines file /app/${file}, pick the records ${what} and list their user fields (one per line, same order as the input) in /app/${out}.`,
      `List in /app/${out} the users (field \`user\`) of /app/${file} ${what}. Keep input order, one name per line, nothing else.`,
    ]);
    return buildTask(CORE, {
      family: jsonlFilter,
      seed,
      split,
      difficulty: 'easy',
      instruction,
      tags: ['json', 'jsonl', 'filter'],
      files: { [file]: `${records.map((r) => JSON.stringify(r)).join('\n')}\n` },
      solve: `python3 -c ${shq(`import json\nfor line in open(${JSON.stringify(file)}):\n    r = json.loads(line)\n    if ${pyCond}:\n        print(r["user"])`)} > ${shq(out)}`,
      assertions: [
        { name: 'the output exists', run: `test -s ${shq(out)}` },
        { name: `it has ${users.length} line(s)`, run: `test "$(grep -c . ${shq(out)})" -eq ${users.length}` },
        { name: 'the first match is first', run: `test "$(head -n1 ${shq(out)})" = ${shq(users[0]!)}` },
        { name: 'the list is exact', run: fileEquals(out, users.join('\n')) },
      ],
    });
  },
};
