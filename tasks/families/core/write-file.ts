/** One command: write given lines to a file in a folder that does not exist yet. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, fileEquals, NOUNS, py } from './kit';

export const writeFile: TaskFamily = {
  name: 'write-file',
  category: 'file-operations',
  summary: 'create a file with given lines in a new folder',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { seed, split }) {
    const dir = `${rng.pick(NOUNS)}/${rng.word(5)}`;
    const file = `${rng.pick(['notes', 'config', 'hosts', 'todo', 'motd', 'readme'])}_${rng.word(3)}.${rng.pick(['txt', 'cfg', 'list'])}`;
    const path = `${dir}/${file}`;
    const lines = Array.from(
      { length: rng.int(2, 5) },
      () => `${rng.pick(NOUNS)}=${rng.int(1, 9999)} ${rng.word(rng.int(3, 7))}`,
    );
    const listing = lines.map((l) => `    ${l}`).join('\n');
    const instruction = phrase(rng, split, [
      `Create the file \`/app/${path}\` (make the folders it needs) containing exactly these ${lines.length} lines, in this order:\n\n${listing}\n`,
      `Write ${lines.length} lines into a new file /app/${path}; its parent folders do not exist yet. The lines are:\n\n${listing}\n\nNothing else goes in the file.`,
      `We need \`${path}\` under /app with the following content (one entry per line, no extra lines):\n\n${listing}\n`,
      `Make a text file at /app/${path} whose lines are, exactly:\n\n${listing}\n`,
    ]);
    return buildTask(CORE, {
      family: writeFile,
      seed,
      split,
      difficulty: 'easy',
      instruction,
      tags: ['files', 'mkdir'],
      solve: `mkdir -p ${shq(dir)}\nprintf '%s\\n' ${lines.map(shq).join(' ')} > ${shq(path)}`,
      assertions: [
        { name: 'the folder exists', run: `test -d ${shq(dir)}` },
        { name: 'the file exists', run: `test -f ${shq(path)}` },
        { name: `it has ${lines.length} lines`, run: `test "$(wc -l < ${shq(path)})" -eq ${lines.length}` },
        { name: 'the first line is right', run: `test "$(head -n1 ${shq(path)})" = ${shq(lines[0]!)}` },
        { name: 'the content is exact', run: fileEquals(path, lines.join('\n')) },
        {
          name: 'no stray files beside it',
          run: py(
            `import os, sys; sys.exit(0 if os.listdir(${JSON.stringify(dir)}) == [${JSON.stringify(file)}] else 1)`,
          ),
        },
      ],
    });
  },
};
