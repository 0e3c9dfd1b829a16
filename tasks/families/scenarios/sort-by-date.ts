/** File dated files from an inbox into YYYY/MM folders, parsing several date styles in the names. */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO, sha256Hex } from './kit/conventions';
import { NOUNS, pad2 } from './kit/pools';
import type { TaskFamily } from '../types';

export const sortByDate: TaskFamily = {
  name: 'sort-by-date',
  category: 'file-operations',
  summary: 'Move files into sorted/YYYY/MM/ by the date in their names (several formats), undated ones aside',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { split }) {
    const inbox = rng.pick(['inbox', 'camera-roll', 'scans', 'incoming']);
    const files: Record<string, string> = {};
    const dest = new Map<string, string>();
    const n = rng.int(8, 18);
    for (let i = 0; i < n; i++) {
      const y = rng.int(2015, 2025);
      const m = pad2(rng.int(1, 12));
      const d = pad2(rng.int(1, 28));
      const style = rng.int(0, 3);
      const noun = rng.pick(NOUNS);
      const name =
        style === 0
          ? `IMG_${y}${m}${d}_${pad2(rng.int(0, 23))}${pad2(rng.int(0, 59))}${pad2(rng.int(0, 59))}.jpg`
          : style === 1
            ? `${noun}-${y}-${m}-${d}.pdf`
            : style === 2
              ? `${noun}_${d}.${m}.${y}.txt`
              : `${noun}-${rng.word(4)}.md`;
      if (dest.has(name)) continue;
      files[`${inbox}/${name}`] = `${name} ${rng.word(10)}\n`;
      dest.set(name, style === 3 ? `sorted/undated/${name}` : `sorted/${y}/${m}/${name}`);
    }
    if (![...dest.values()].some((d) => d.includes('undated'))) {
      const name = `notes-${rng.word(5)}.md`;
      files[`${inbox}/${name}`] = `${name}\n`;
      dest.set(name, `sorted/undated/${name}`);
    }
    const formats = '`IMG_YYYYMMDD_HHMMSS.jpg`, `name-YYYY-MM-DD.pdf` and `name_DD.MM.YYYY.txt`';
    const instruction = phrase(rng, split, [
      `Organise /app/${inbox}: move every file into /app/sorted/YYYY/MM/ according to the date in its name (formats: ${formats}). Files without a date go to /app/sorted/undated/. Keep the file names and contents; leave ${inbox} empty.`,
      `The folder /app/${inbox} is a mess. File each item under /app/sorted/<year>/<two-digit month>/ using the date embedded in its name (${formats}); anything undated goes to /app/sorted/undated/. Move, don't copy.`,
      `Sort the files of /app/${inbox} by date into /app/sorted/YYYY/MM/ (dates appear in names as ${formats}); undated files into /app/sorted/undated/. Names and bytes unchanged, nothing left in the inbox.`,
    ]);
    const moves = [...dest.entries()];
    return buildTask(SCENARIO, {
      family: sortByDate,
      difficulty: 'easy',
      split,
      instruction,
      files,
      solve: `ls ${inbox}
python3 - <<'PY'
import os, re, shutil
pats = [r"IMG_(\\d{4})(\\d{2})\\d{2}_", r"-(\\d{4})-(\\d{2})-\\d{2}\\.", r"_\\d{2}\\.(\\d{2})\\.(\\d{4})\\."]
for name in sorted(os.listdir("${inbox}")):
    dest = "sorted/undated"
    for i, p in enumerate(pats):
        m = re.search(p, name)
        if m:
            y, mo = (m.group(2), m.group(1)) if i == 2 else (m.group(1), m.group(2))
            dest = f"sorted/{y}/{mo}"
            break
    os.makedirs(dest, exist_ok=True)
    shutil.move(os.path.join("${inbox}", name), os.path.join(dest, name))
PY
find sorted -type f | sort`,
      assertions: [
        {
          name: 'dated files in sorted/YYYY/MM',
          run: moves
            .filter(([, d]) => !d.includes('undated'))
            .map(([, d]) => `test -f ${shq(d)}`)
            .join(' && '),
        },
        {
          name: 'undated files in sorted/undated',
          run: moves
            .filter(([, d]) => d.includes('undated'))
            .map(([, d]) => `test -f ${shq(d)}`)
            .join(' && '),
        },
        {
          name: 'inbox empty, nothing lost or duplicated',
          run: `test -z "$(find ${inbox} -type f)" && test "$(find sorted -type f | wc -l)" = ${moves.length} && test "$(cat ${moves.map(([, d]) => shq(d)).join(' ')} | sha256sum)" = ${shq(sha(moves.map(([name]) => files[`${inbox}/${name}`]!).join('')))}`,
        },
      ],
      tags: ['files', 'regex', 'organize'],
    });
  },
};

function sha(text: string): string {
  return `${sha256Hex(text)}  -`;
}
