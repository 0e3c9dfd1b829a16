/** A bash report script with planted bugs (word splitting, set -e on grep, string arithmetic, overwrite). */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, NOUNS, SERVICES } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

interface ScriptBug {
  good: string;
  bad: string;
}

const BUGS: ScriptBug[] = [
  { good: 'for f in "$SRC"/*.EXT; do', bad: 'for f in $(ls $SRC/*.EXT); do' },
  { good: '  count=$(grep -c -- "$PATTERN" "$f" || true)', bad: '  count=$(grep -c -- "$PATTERN" "$f")' },
  { good: '  total=$((total + count))', bad: '  total=$total+$count' },
  { good: '  echo "$(basename "$f") $count" >> "$OUT"', bad: '  echo "$(basename "$f") $count" > "$OUT"' },
  { good: 'OUT="$2"', bad: 'OUT="$1"' },
];

function script(ext: string, pattern: string, bugs: Set<number>): string {
  const line = (i: number) => (bugs.has(i) ? BUGS[i]!.bad : BUGS[i]!.good).replace('EXT', ext);
  return `#!/bin/bash
# count-matches.sh SRC OUT
# For every *.${ext} file in SRC (in name order) writes "<file name> <lines containing ${pattern}>" to OUT,
# then a last line "TOTAL <sum>".
set -euo pipefail
SRC="$1"
${line(4)}
PATTERN="${pattern}"
total=0
: > "$OUT"
${line(0)}
${line(1)}
${line(3)}
${line(2)}
done
echo "TOTAL $total" >> "$OUT"
`;
}

function dataset(rng: FamilyRng, ext: string, pattern: string): { files: Record<string, string>; report: string } {
  const names = new Set<string>();
  while (names.size < rng.int(4, 7))
    names.add(
      rng.bool(0.5)
        ? `${rng.pick(SERVICES)} ${rng.pick(NOUNS)}.${ext}`
        : `${rng.pick(SERVICES)}-${rng.int(1, 9)}.${ext}`,
    );
  const files: Record<string, string> = {};
  const rows: string[] = [];
  let total = 0;
  [...names].sort(byCodePoint).forEach((name, i) => {
    const n = i === 0 ? 0 : rng.int(0, 6);
    const lines = Array.from(
      { length: rng.int(3, 9) },
      () => `${rng.pick(['ok', 'started', 'done', 'retry'])} ${rng.word(5)}`,
    );
    for (let k = 0; k < n; k++) lines.splice(rng.int(0, lines.length), 0, `${pattern} in ${rng.word(6)}`);
    files[name] = lines.join('\n') + '\n';
    rows.push(`${name} ${n}`);
    total += n;
  });
  // A file with another extension must be ignored.
  files[`notes-${rng.word(4)}.md`] = `${pattern} ${pattern}\n`;
  return { files, report: [...rows, `TOTAL ${total}`].join('\n') + '\n' };
}

export const repairShellScript: TaskFamily = {
  name: 'repair-shell-script',
  category: 'debugging',
  summary: 'Repair a bash report script with planted bugs and run it to produce the report',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const ext = rng.pick(['log', 'txt', 'out']);
    const pattern = rng.pick(['ERROR', 'FAILED', 'timeout', 'denied', 'panic']);
    const nBugs = rng.int(2, 4);
    // Bug 1 (set -e on grep) needs a file without matches: the first file always has none.
    const bugs = new Set(rng.sample([0, 1, 2, 3, 4], nBugs));
    const dir = rng.pick(['input logs', 'run data', 'batch files']);
    const main = dataset(rng, ext, pattern);
    const extra = dataset(rng, ext, pattern);
    const files: Record<string, string> = { 'count-matches.sh': script(ext, pattern, bugs) };
    for (const [name, text] of Object.entries(main.files)) files[`${dir}/${name}`] = text;
    const expected: Record<string, string> = { 'report.txt': main.report, 'extra.txt': extra.report };
    for (const [name, text] of Object.entries(extra.files)) expected[`extra data/${name}`] = text;
    const instruction = phrase(rng, split, [
      `\`/app/count-matches.sh SRC OUT\` should write, for each *.${ext} file in SRC, "<file name> <number of lines containing ${pattern}>" (files in name order) and a final "TOTAL <sum>" line to OUT. It is broken. Fix the script, then run it on "/app/${dir}" with output /app/report.txt.`,
      `Our bash script count-matches.sh (in /app) misbehaves: it crashes or writes wrong reports, especially with file names containing spaces. Repair it so that \`./count-matches.sh SRC OUT\` works for any folder (see the header comment for the contract), and produce /app/report.txt from the folder "/app/${dir}".`,
      `Debug /app/count-matches.sh (usage: count-matches.sh SRC OUT; see its comment for what it must print). Keep it a bash script, make it robust (spaces in names, files without matches), and use it to generate /app/report.txt for "/app/${dir}".`,
    ]);
    const good = script(ext, pattern, new Set());
    return buildTask(SCENARIO, {
      family: repairShellScript,
      difficulty: nBugs >= 3 ? 'hard' : 'medium',
      split,
      instruction,
      files,
      executables: ['count-matches.sh'],
      solve: `cat count-matches.sh\nls -la "${dir}"\ncat > count-matches.sh <<'SH'\n${good}SH\nchmod +x count-matches.sh\n./count-matches.sh "${dir}" report.txt\ncat report.txt`,
      expected,
      assertions: [
        check('report.txt is right', 'same', 'report.txt', '/tests/expected/report.txt'),
        {
          name: 'the script works on another folder with spaces',
          run: `rm -rf "/tmp/extra data" && cp -r "/tests/expected/extra data" /tmp/ && bash count-matches.sh "/tmp/extra data" /tmp/extra.txt && python3 /tests/check.py same /tmp/extra.txt /tests/expected/extra.txt`,
        },
        {
          name: 'the script regenerates the report exactly',
          run: `bash count-matches.sh "${dir}" /tmp/again.txt && cmp -s /tmp/again.txt /tests/expected/report.txt`,
        },
      ],
      tags: ['bash', 'quoting', 'set-e'],
    });
  },
};
