/** Verify a release against SHA256SUMS, restore damaged files from a mirror when the mirror copy is good. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO, sha256Hex } from './kit/conventions';
import { byCodePoint, NOUNS } from './kit/pools';
import type { TaskFamily } from '../types';

export const checksumRestore: TaskFamily = {
  name: 'checksum-restore',
  category: 'security',
  summary: 'Verify files against SHA256SUMS, report status, restore corrupt or missing files from a mirror',
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { split }) {
    const names = rng
      .sample(NOUNS, rng.int(6, 12))
      .map((n) => `${n}-${rng.int(1, 9)}.${rng.pick(['tar', 'bin', 'txt', 'img'])}`)
      .sort(byCodePoint);
    const good = new Map(names.map((n) => [n, `${n}\n${rng.word(30)}\n`]));
    const sums = names.map((n) => `${sha256Hex(good.get(n)!)}  ${n}`).join('\n') + '\n';
    const status = new Map<string, string>(names.map((n) => [n, 'OK']));
    const damaged = rng.sample(names, rng.int(2, Math.min(5, names.length - 1)));
    damaged.forEach((n, i) => status.set(n, i === 0 || rng.bool(0.6) ? 'CORRUPT' : 'MISSING'));
    const files: Record<string, string> = { 'release/SHA256SUMS': sums };
    const unrecoverable: string[] = [];
    const finalContent = new Map<string, string>();
    for (const n of names) {
      const st = status.get(n)!;
      if (st === 'OK') files[`release/${n}`] = good.get(n)!;
      else if (st === 'CORRUPT') files[`release/${n}`] = good.get(n)!.replace(/.$/s, 'X\n');
      const mirror =
        st === 'OK' ? rng.bool(0.5) : rng.bool(0.7) || damaged[0] === n ? 'good' : rng.bool(0.5) ? 'bad' : 'none';
      if (mirror === 'good' || (st === 'OK' && mirror)) files[`mirror/${n}`] = good.get(n)!;
      else if (mirror === 'bad') files[`mirror/${n}`] = `${n}\ntampered ${rng.word(8)}\n`;
      if (st !== 'OK') {
        if (mirror === 'good') finalContent.set(n, good.get(n)!);
        else unrecoverable.push(n);
      }
    }
    const report = names.map((n) => `${n} ${status.get(n)}`).join('\n') + '\n';
    const instruction = phrase(rng, split, [
      `/app/release/SHA256SUMS lists the expected checksums of the release files in /app/release. Write /app/verify.txt with one line \`<file> OK|CORRUPT|MISSING\` per listed file (in SHA256SUMS order), describing the state before any repair. Then restore every CORRUPT or MISSING file from /app/mirror/, but only when the mirror copy has the right checksum. List the files you could not restore (sorted, one per line) in /app/unrecoverable.txt (empty file if none).`,
      `Integrity check: compare /app/release against its SHA256SUMS. Report each file's status as OK, CORRUPT or MISSING in /app/verify.txt ("name STATUS" lines, SHA256SUMS order). Repair damaged/missing files by copying from /app/mirror when that copy matches the expected hash (the mirror may be tampered with too). Names that stay broken go to /app/unrecoverable.txt, sorted.`,
      `Some release artifacts in /app/release are damaged. Using /app/release/SHA256SUMS: (1) write /app/verify.txt (one "file STATUS" line per entry, STATUS one of OK/CORRUPT/MISSING, original order, state before fixing); (2) restore from /app/mirror/ each bad file whose mirror copy verifies; (3) write the still-broken ones to /app/unrecoverable.txt (sorted; create it even if empty).`,
    ]);
    const restored = [...finalContent.keys()];
    return buildTask(SCENARIO, {
      family: checksumRestore,
      difficulty: 'medium',
      split,
      instruction,
      files,
      solve: `cd release && (sha256sum -c SHA256SUMS || true) && cd ..
ls mirror
while read -r sum name; do if [ ! -e "release/$name" ]; then echo "$name MISSING"; elif [ "$(sha256sum < "release/$name" | cut -d' ' -f1)" = "$sum" ]; then echo "$name OK"; else echo "$name CORRUPT"; fi; done < release/SHA256SUMS > verify.txt
: > unrecoverable.txt
while read -r name st; do if [ "$st" != OK ]; then if [ -f "mirror/$name" ] && [ "$(sha256sum < "mirror/$name" | cut -d' ' -f1)" = "$(grep -F "  $name" release/SHA256SUMS | cut -d' ' -f1)" ]; then cp "mirror/$name" "release/$name"; else echo "$name" >> unrecoverable.txt; fi; fi; done < verify.txt
LC_ALL=C sort -o unrecoverable.txt unrecoverable.txt
cat verify.txt unrecoverable.txt`,
      expected: {
        'verify.txt': report,
        'unrecoverable.txt': unrecoverable.sort(byCodePoint).join('\n') + (unrecoverable.length ? '\n' : ''),
      },
      assertions: [
        check('status report before repair', 'same', 'verify.txt', '/tests/expected/verify.txt'),
        {
          name: 'recoverable files restored from good mirror copies',
          run: `cd release && grep -E '  (${restored.map((n) => n.replace(/\./g, '\\.')).join('|')})$' SHA256SUMS | sha256sum --quiet -c -`,
        },
        {
          name: 'unrecoverable list',
          run: `test -f unrecoverable.txt && test -f verify.txt && python3 /tests/check.py same unrecoverable.txt /tests/expected/unrecoverable.txt && ${
            unrecoverable
              .filter((n) => status.get(n) === 'CORRUPT')
              .map((n) => `! cmp -s release/${n} mirror/${n}`)
              .join(' && ') || 'true'
          }`,
        },
      ],
      tags: ['sha256sum', 'integrity', 'restore'],
    });
  },
};
