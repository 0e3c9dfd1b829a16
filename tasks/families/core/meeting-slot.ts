/** Personal assistant: find the first slot where everyone is free, from their calendars. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, PEOPLE, py } from './kit';

const hm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

export const meetingSlot: TaskFamily = {
  name: 'meeting-slot',
  category: 'personal-assistant',
  summary: 'find the earliest common free slot of a given length in several calendars and book it',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const people = rng.sample(PEOPLE, rng.int(2, 4));
    const length = rng.pick([30, 45, 60, 90]);
    const dayStart = 9 * 60;
    const dayEnd = 17 * 60;
    const busy: Record<string, [number, number][]> = {};
    for (const p of people) {
      const slots: [number, number][] = [];
      for (let i = 0; i < rng.int(2, 5); i++) {
        const s = dayStart + 15 * rng.int(0, 28);
        slots.push([s, Math.min(dayEnd, s + 15 * rng.int(2, 8))]);
      }
      busy[p] = slots.sort((a, b) => a[0] - b[0]);
    }
    const all = Object.values(busy)
      .flat()
      .sort((a, b) => a[0] - b[0]);
    let start = dayStart;
    for (const [s, e] of all) {
      if (s - start >= length) break;
      start = Math.max(start, e);
    }
    const found = start + length <= dayEnd;
    const title = `${rng.pick(['sync', 'review', 'planning', 'retro', 'kickoff'])} ${rng.word(4)}`;
    const files: Record<string, string> = {};
    for (const p of people)
      files[`calendars/${p}.txt`] = `${busy[p]!.map(([s, e]) => `${hm(s)}-${hm(e)} busy`).join('\n')}\n`;
    const out = rng.pick(['booking.txt', 'meeting.txt', 'invite.txt']);
    const expect = found ? `${hm(start)}-${hm(start + length)} ${title}` : 'NONE';
    const instruction = phrase(rng, split, [
      `Book "${title}" for ${people.join(', ')}. Their busy times for tomorrow are in \`/app/calendars/<name>.txt\` (\`HH:MM-HH:MM busy\`). Find the earliest ${length}-minute slot between 09:00 and 17:00 when all of them are free (a meeting may start exactly when another ends) and write \`/app/${out}\` as one line \`HH:MM-HH:MM ${title}\`. If there is no such slot write \`NONE\`.`,
      `Schedule a ${length}-minute meeting "${title}" with ${people.join(', ')} at the earliest time within working hours (09:00-17:00). Busy intervals are in /app/calendars/*.txt. Put the booking in /app/${out}: "START-END ${title}" (24-hour HH:MM), or NONE when nothing fits.`,
      `Using the calendars under /app/calendars (one file per person, lines "HH:MM-HH:MM busy"), find the first ${length}-minute window from 09:00 to 17:00 in which ${people.join(', ')} are all free. Write "HH:MM-HH:MM ${title}" to /app/${out}, or NONE.`,
    ]);
    return buildTask(CORE, {
      family: meetingSlot,
      seed,
      split,
      difficulty: 'medium',
      instruction,
      tags: ['calendar', 'scheduling'],
      files,
      solve: `python3 - <<'PY'\nimport glob\ndef m(t):\n    h, mi = t.split(":")\n    return int(h) * 60 + int(mi)\nbusy = []\nfor f in glob.glob("calendars/*.txt"):\n    for line in open(f):\n        if line.strip():\n            s, e = line.split()[0].split("-")\n            busy.append((m(s), m(e)))\nstart = 9 * 60\nfor s, e in sorted(busy):\n    if s - start >= ${length}:\n        break\n    start = max(start, e)\nfmt = lambda x: "%02d:%02d" % divmod(x, 60)\nwith open(${JSON.stringify(out)}, "w") as out:\n    print("%s-%s %s" % (fmt(start), fmt(start + ${length}), ${JSON.stringify(title)}) if start + ${length} <= 17 * 60 else "NONE", file=out)\nPY\ncat ${shq(out)}`,
      assertions: [
        { name: 'the booking file has one line', run: `test -f ${shq(out)} && test "$(grep -c . ${shq(out)})" -eq 1` },
        {
          name: found ? 'it starts at the earliest common free time' : 'it says NONE',
          run: found ? `test "$(cut -c1-5 ${shq(out)})" = ${hm(start)}` : `test "$(cat ${shq(out)})" = NONE`,
        },
        {
          name: 'the booking is exact',
          run: py(
            `import sys; sys.exit(0 if open(${JSON.stringify(out)}).read().strip() == ${JSON.stringify(expect)} else 1)`,
          ),
        },
      ],
    });
  },
};
