/** A few commands: set the modes a deployment needs (scripts executable, secrets private). */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, fileNames } from './kit';

export const fixPermissions: TaskFamily = {
  name: 'fix-permissions',
  category: 'system-administration',
  summary: 'make scripts executable, secrets 600 and a private folder 700',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { seed, split }) {
    const root = `${rng.pick(['deploy', 'site', 'service', 'release'])}-${rng.word(3)}`;
    const scripts = fileNames(rng, rng.int(1, 3), 'sh').map((n) => `${root}/bin/${n}`);
    const secrets = fileNames(rng, rng.int(1, 3), rng.pick(['key', 'pem', 'env'])).map((n) => `${root}/private/${n}`);
    const scriptMode = rng.pick(['755', '750', '700']);
    const secretMode = rng.pick(['600', '400', '640']);
    const dirMode = secretMode === '640' ? '750' : '700';
    const files: Record<string, string> = {};
    for (const s of scripts) files[s] = `#!/bin/sh\necho ${rng.word(6)}\n`;
    for (const s of secrets) files[s] = `SECRET=${rng.word(24)}\n`;
    const setup = [
      `chmod 644 ${scripts.map(shq).join(' ')}`,
      `chmod 666 ${secrets.map(shq).join(' ')}`,
      `chmod 777 ${shq(`${root}/private`)}`,
    ].join('\n');
    const instruction = phrase(rng, split, [
      `Fix the permissions under \`/app/${root}\`: every script in \`bin/\` must be mode ${scriptMode}, every file in \`private/\` mode ${secretMode}, and the \`private/\` folder itself mode ${dirMode}.`,
      `A deploy left /app/${root} with bad modes. Set ${scriptMode} on the scripts in ${root}/bin, ${secretMode} on the files in ${root}/private and ${dirMode} on ${root}/private.`,
      `Secure /app/${root}: scripts in bin/ -> ${scriptMode}; files in private/ -> ${secretMode}; the private/ directory -> ${dirMode}. Use octal modes exactly as given.`,
      `Use chmod so that /app/${root}/bin/* are ${scriptMode}, /app/${root}/private/* are ${secretMode} and /app/${root}/private is ${dirMode}.`,
    ]);
    const modes = (paths: string[]) => `stat -c %a ${paths.map(shq).join(' ')} | sort -u | tr -d '\\n'`;
    return buildTask(CORE, {
      family: fixPermissions,
      seed,
      split,
      difficulty: 'easy',
      instruction,
      tags: ['permissions', 'chmod'],
      files,
      setup,
      solve: `chmod ${scriptMode} ${root}/bin/*\nchmod ${secretMode} ${root}/private/*\nchmod ${dirMode} ${root}/private`,
      assertions: [
        { name: `scripts are ${scriptMode}`, run: `test "$(${modes(scripts)})" = ${scriptMode}` },
        { name: `secrets are ${secretMode}`, run: `test "$(${modes(secrets)})" = ${secretMode}` },
        { name: `private/ is ${dirMode}`, run: `test "$(stat -c %a ${shq(`${root}/private`)})" = ${dirMode}` },
        {
          name: 'contents are intact and the first script runs',
          run: `test "$(stat -c %a ${shq(scripts[0]!)})" = ${scriptMode} && grep -q SECRET= ${shq(secrets[0]!)} && sh ${shq(scripts[0]!)} >/dev/null`,
        },
      ],
    });
  },
};
