/** One command: count the lines of a log that match a condition and write the number. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, LEVELS, SERVICES } from './kit';

export const countMatches: TaskFamily = {
  name: 'count-matches',
  category: 'text-processing',
  summary: 'count log lines of one level (and one service) and write the number',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { seed, split }) {
    const services = rng.sample(SERVICES, rng.int(3, 6));
    const n = rng.int(30, 120);
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const level = rng.pick(LEVELS);
      const svc = rng.pick(services);
      lines.push(
        `2024-0${rng.int(1, 9)}-1${rng.int(0, 9)}T0${rng.int(0, 9)}:${rng.int(10, 59)}:${rng.int(10, 59)}Z ${level} ${svc}: ${rng.pick(['request done', 'retrying', 'cache miss', 'slow query', 'user login', 'job queued'])} id=${rng.word(6)}`,
      );
    }
    const level = rng.pick(LEVELS);
    const svc = rng.pick(services);
    const byService = rng.bool();
    const match = (l: string) => l.split(' ')[1] === level && (!byService || l.split(' ')[2] === `${svc}:`);
    // At least one match, so that an empty answer is wrong.
    if (!lines.some(match))
      lines[rng.int(0, n - 1)] = `2024-01-10T00:00:00Z ${level} ${svc}: forced entry id=${rng.word(6)}`;
    const count = lines.filter(match).length;
    const log = `${rng.pick(['app', 'server', 'daemon', 'events'])}-${rng.word(3)}.log`;
    const out = `${rng.pick(['count', 'total', 'answer'])}.txt`;
    const what = byService ? `${level} lines from the \`${svc}\` service` : `${level} lines`;
    const instruction = phrase(rng, split, [
      `How many ${what} are in \`/app/${log}\`? Each line is \`TIMESTAMP LEVEL SERVICE: message\`. Write just the number to \`/app/${out}\`.`,
      `Count the ${what} of /app/${log} (the level is the second field, the service the third, followed by a colon) and save the count, alone on one line, in /app/${out}.`,
      `Write to /app/${out} the number of log entries in /app/${log} whose level is ${level}${byService ? ` and whose service is ${svc}` : ''}. Only the number.`,
      `/app/${log} is a service log. Put the count of ${what} in /app/${out} (digits only).`,
    ]);
    const filter = byService
      ? `awk '$2 == "${level}" && $3 == "${svc}:"' ${shq(log)} | wc -l`
      : `awk '$2 == "${level}"' ${shq(log)} | wc -l`;
    return buildTask(CORE, {
      family: countMatches,
      seed,
      split,
      difficulty: 'easy',
      instruction,
      tags: ['logs', 'grep', 'awk'],
      files: { [log]: `${lines.join('\n')}\n` },
      solve: `${filter} > ${shq(out)}`,
      assertions: [
        { name: 'the answer file exists', run: `test -s ${shq(out)}` },
        {
          name: 'it holds one integer',
          run: `grep -qxE ' *[0-9]+ *' ${shq(out)} && test "$(wc -l < ${shq(out)})" -le 1`,
        },
        { name: 'the count is right', run: `test "$(tr -d ' \\n' < ${shq(out)})" = ${count}` },
      ],
    });
  },
};
