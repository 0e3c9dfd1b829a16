/** Find and fix dangerous permissions (world-writable, setuid, readable keys) and report them. */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { byCodePoint, NOUNS, SERVICES } from './kit/pools';
import type { TaskFamily } from '../types';

export const permissionAudit: TaskFamily = {
  name: 'permission-audit',
  category: 'security',
  summary: 'Report world-writable files, setuid/setgid files and exposed private keys, then fix them',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const root = rng.pick(['srv', 'opt/app', 'deploy']);
    const files: Record<string, string> = {};
    const modes = new Map<string, string>();
    const findings: string[] = [];
    const fixed = new Map<string, string>();
    const dirs = rng.sample([...SERVICES], rng.int(2, 4));
    for (const d of dirs) {
      for (let i = rng.int(2, 4); i > 0; i--) {
        const kind = rng.pick(['ok', 'ok', 'ok', 'ww', 'suid', 'sgid', 'key']);
        const p =
          kind === 'key'
            ? `${root}/${d}/${rng.pick(['server', 'client', 'deploy'])}-${rng.word(3)}.key`
            : `${root}/${d}/${rng.pick(NOUNS)}-${rng.word(3)}${rng.pick(['.sh', '.conf', ''])}`;
        if (modes.has(p)) continue;
        files[p] =
          kind === 'key'
            ? '-----BEGIN PRIVATE KEY-----\nnot a real key\n-----END PRIVATE KEY-----\n'
            : `${rng.word(10)}\n`;
        const base = rng.pick(['644', '755', '640', '600']);
        const mode =
          kind === 'ww'
            ? base === '755'
              ? '777'
              : '666'
            : kind === 'suid'
              ? '4755'
              : kind === 'sgid'
                ? '2755'
                : kind === 'key'
                  ? rng.pick(['644', '640', '604'])
                  : base;
        modes.set(p, mode);
        if (kind === 'ww') {
          findings.push(`${p} world-writable`);
          fixed.set(p, mode === '777' ? '775' : '664');
        } else if (kind === 'suid' || kind === 'sgid') {
          findings.push(`${p} ${kind === 'suid' ? 'setuid' : 'setgid'}`);
          fixed.set(p, '755');
        } else if (kind === 'key') {
          if (mode !== '600') findings.push(`${p} exposed-key`);
          fixed.set(p, '600');
        } else fixed.set(p, mode);
      }
    }
    // Always at least two findings.
    const extra1 = `${root}/${dirs[0]}/upload-${rng.word(4)}.tmp`;
    files[extra1] = 'x\n';
    modes.set(extra1, '666');
    fixed.set(extra1, '664');
    findings.push(`${extra1} world-writable`);
    const extra2 = `${root}/${dirs[dirs.length - 1]}/helper-${rng.word(4)}`;
    files[extra2] = '#!/bin/sh\necho hi\n';
    modes.set(extra2, '4755');
    fixed.set(extra2, '755');
    findings.push(`${extra2} setuid`);
    findings.sort(byCodePoint);
    const setup = [...modes.entries()].map(([p, m]) => `chmod ${m} ${shq(p)}`).join('\n');
    const rules =
      'world-writable files (kind `world-writable`; fix: remove the write bit for others), setuid or setgid files (kinds `setuid` / `setgid`; fix: clear the bit, leaving 755), private keys `*.key` readable by anyone but the owner (kind `exposed-key`; fix: mode 600)';
    const instruction = phrase(rng, split, [
      `Audit permissions under /app/${root}. Find ${rules}. Write /app/findings.txt with one \`path kind\` line per finding (path relative to /app), sorted, then apply the fixes. Do not change any other file's mode or any content.`,
      `Security sweep of /app/${root}: look for ${rules}. List them in /app/findings.txt as "<path relative to /app> <kind>" lines in sorted order and fix each one as described; everything else stays as it is.`,
      `Harden /app/${root}. Report (to /app/findings.txt, sorted "path kind" lines, paths like ${root}/...) and then fix: ${rules}. Leave other files alone.`,
    ]);
    const all = [...fixed.entries()];
    return buildTask(SCENARIO, {
      family: permissionAudit,
      difficulty: 'medium',
      split,
      instruction,
      files,
      setup,
      solve: `find ${root} -type f -printf '%m %p\\n' | sort -k2
{
  find ${root} -type f -perm -o+w -printf '%p world-writable\\n'
  find ${root} -type f -perm -4000 -printf '%p setuid\\n'
  find ${root} -type f -perm -2000 -printf '%p setgid\\n'
  find ${root} -type f -name '*.key' -perm /044 -printf '%p exposed-key\\n'
} | LC_ALL=C sort > findings.txt
cat findings.txt
find ${root} -type f -perm -o+w -exec chmod o-w {} +
find ${root} -type f -perm /6000 -exec chmod 755 {} +
find ${root} -type f -name '*.key' -exec chmod 600 {} +
find ${root} -type f -printf '%m %p\\n' | sort -k2`,
      expected: { 'findings.txt': findings.join('\n') + '\n' },
      assertions: [
        { name: 'findings report', run: `python3 /tests/check.py same findings.txt /tests/expected/findings.txt` },
        {
          name: 'no world-writable, setuid or setgid file left',
          run: `test -s findings.txt && test -z "$(find ${root} -type f \\( -perm -o+w -o -perm /6000 \\))"`,
        },
        {
          name: 'keys 600, every other mode as required, contents intact',
          run: `${all.map(([p, m]) => `test "$(stat -c %a ${shq(p)})" = ${m}`).join(' && ')} && test "$(find ${root} -type f | wc -l)" = ${all.length} && test "$(grep -rl 'not a real key' ${root} | wc -l)" = ${[...modes.keys()].filter((p) => p.endsWith('.key')).length}`,
        },
      ],
      tags: ['permissions', 'find', 'chmod', 'setuid'],
    });
  },
};
