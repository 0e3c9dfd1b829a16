/** One command (sed): replace a setting's value across several config files. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, fileNames, NOUNS, py } from './kit';

export const replaceText: TaskFamily = {
  name: 'replace-text',
  category: 'text-processing',
  summary: 'replace every occurrence of one host name by another across config files',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { seed, split }) {
    const oldHost = `${rng.pick(NOUNS)}-${rng.word(3)}.internal`;
    const newHost = `${rng.pick(NOUNS)}-${rng.word(3)}.example.org`;
    const dir = rng.pick(['conf', 'etc', 'config', 'settings']);
    const names = fileNames(rng, rng.int(2, 4), rng.pick(['conf', 'ini', 'cfg']));
    const files: Record<string, string> = {};
    const counts: Record<string, number> = {};
    for (const name of names) {
      const lines: string[] = [`# ${name}`];
      let n = 0;
      for (let i = 0; i < rng.int(4, 9); i++) {
        if (rng.bool(0.4) || (i === 0 && n === 0)) {
          lines.push(
            `${rng.pick(['upstream', 'backend', 'db_host', 'mirror', 'peer'])} = ${oldHost}:${rng.int(1000, 9999)}`,
          );
          n++;
        } else lines.push(`${rng.word(5)} = ${rng.int(0, 500)}`);
      }
      // A near-miss that must survive: the old name as a prefix of a longer one.
      lines.push(`legacy = ${oldHost}x.local`);
      files[`${dir}/${name}`] = `${lines.join('\n')}\n`;
      counts[`${dir}/${name}`] = n;
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const instruction = phrase(rng, split, [
      `The server \`${oldHost}\` was renamed \`${newHost}\`. Update every file in \`/app/${dir}\`: replace each occurrence of the host name \`${oldHost}\` (followed by a port) with \`${newHost}\`. Leave longer names that merely start with it (like \`${oldHost}x.local\`) alone.`,
      `In the config files under /app/${dir}, point everything that uses ${oldHost}:PORT at ${newHost}:PORT instead. Keep the ports. Do not modify other host names, even similar ones.`,
      `Migrate /app/${dir}/*: the host ${oldHost} is now ${newHost}. Replace it wherever it appears as \`${oldHost}:<port>\`; nothing else changes.`,
      `Search-and-replace in /app/${dir}: \`${oldHost}:\` -> \`${newHost}:\` in all files (only exact host matches before a colon).`,
    ]);
    const esc = oldHost.replace(/\./g, '\\.');
    return buildTask(CORE, {
      family: replaceText,
      seed,
      split,
      difficulty: 'easy',
      instruction,
      tags: ['sed', 'config'],
      files,
      solve: `sed -i 's/\\b${esc}:/${newHost}:/g' ${dir}/*`,
      assertions: [
        { name: 'the old host is gone (as host:port)', run: `! grep -rqF ${shq(`${oldHost}:`)} ${shq(dir)}` },
        {
          name: `the new host appears ${total} times`,
          run: `test "$(grep -roF ${shq(`${newHost}:`)} ${shq(dir)} | wc -l)" -eq ${total}`,
        },
        {
          name: 'each file got its own replacements',
          run: py(
            `import json, sys; c = json.loads(${JSON.stringify(JSON.stringify(counts))}); sys.exit(0 if all(open(p).read().count(${JSON.stringify(`${newHost}:`)}) == n for p, n in c.items()) else 1)`,
          ),
        },
        {
          name: 'ports kept and the near-miss untouched',
          run: `grep -rqE ${shq(`${newHost.replace(/\./g, '\\.')}:[0-9]{4}$`)} ${shq(dir)} && test "$(grep -rcF ${shq(`${oldHost}x.local`)} ${shq(dir)} | awk -F: '{s+=$2} END {print s}')" -eq ${names.length}`,
        },
      ],
    });
  },
};
