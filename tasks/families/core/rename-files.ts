/** One command (a loop): rename every file with one extension to another, keeping contents. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, fileNames, py } from './kit';

const PAIRS = [
  ['txt', 'md'],
  ['jpeg', 'jpg'],
  ['htm', 'html'],
  ['yml', 'yaml'],
  ['log', 'log.old'],
  ['csv', 'tsv'],
  ['conf', 'cfg'],
  ['text', 'txt'],
] as const;

export const renameFiles: TaskFamily = {
  name: 'rename-files',
  category: 'file-operations',
  summary: 'rename every *.A file of a folder to *.B, contents unchanged, other files left alone',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { seed, split }) {
    const [from, to] = rng.pick(PAIRS);
    const dir = `${rng.pick(['docs', 'assets', 'inbox', 'export', 'data'])}-${rng.word(3)}`;
    const names = fileNames(rng, rng.int(3, 7), from).map((n) => n.slice(0, -from.length - 1));
    const others = fileNames(rng, rng.int(1, 3), rng.pick(['bin', 'dat', 'json']));
    const files: Record<string, string> = {};
    for (const n of names) files[`${dir}/${n}.${from}`] = `${n} ${rng.word(8)}\n`;
    for (const o of others) files[`${dir}/${o}`] = `keep ${rng.word(8)}\n`;
    const instruction = phrase(rng, split, [
      `In \`/app/${dir}\`, rename every \`.${from}\` file so that it ends in \`.${to}\` instead (\`x.${from}\` becomes \`x.${to}\`). Do not change their contents or touch the other files.`,
      `Change the extension of all *.${from} files in /app/${dir} to .${to}. Contents stay the same; files with other extensions stay as they are.`,
      `The files in /app/${dir} with the extension .${from} should have the extension .${to}. Rename them (same base name).`,
      `Rename /app/${dir}/*.${from} to *.${to}, keeping each file's base name and bytes.`,
    ]);
    const first = names[0]!;
    const expected = Object.fromEntries(names.map((n) => [`${dir}/${n}.${to}`, files[`${dir}/${n}.${from}`]]));
    return buildTask(CORE, {
      family: renameFiles,
      seed,
      split,
      difficulty: 'easy',
      instruction,
      tags: ['files', 'rename'],
      files,
      solve: `cd ${shq(dir)}\nfor f in *.${from}; do mv -- "$f" "\${f%.${from}}.${to}"; done`,
      assertions: [
        { name: `no .${from} file is left`, run: `test -z "$(find ${shq(dir)} -name '*.${from}' -print)"` },
        {
          name: `${first}.${to} exists with its content`,
          run: `test "$(cat ${shq(`${dir}/${first}.${to}`)})" = ${shq(files[`${dir}/${first}.${from}`]!.trim())}`,
        },
        {
          name: `all ${names.length} renamed files have their contents`,
          run: py(
            `import json, sys; e = json.loads(${JSON.stringify(JSON.stringify(expected))}); sys.exit(0 if all(open(p).read() == t for p, t in e.items()) else 1)`,
          ),
        },
        {
          name: 'the other files are untouched and nothing else appeared',
          run: `test "$(ls ${shq(dir)} | sort | tr '\\n' ' ')" = ${shq([...names.map((n) => `${n}.${to}`), ...others].sort().join(' ') + ' ')}`,
        },
      ],
    });
  },
};
