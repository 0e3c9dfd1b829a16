/** Find duplicate files by content, keep the first of each set and replace the others by relative symlinks. */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { byCodePoint, NOUNS } from './kit/pools';
import type { TaskFamily } from '../types';

export const dedupeFiles: TaskFamily = {
  name: 'dedupe-files',
  category: 'file-operations',
  summary: 'Replace duplicate files (same content) by symlinks to the first copy and write a duplicates report',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const root = rng.pick(['media', 'shared', 'archive', 'downloads']);
    const dirs = [
      '',
      ...rng.sample(['2023', '2024', 'misc', 'old', 'inbox', 'scans'], rng.int(2, 4)).map((d) => `${d}/`),
    ];
    const contents = Array.from({ length: rng.int(4, 8) }, () =>
      `${rng.pick(NOUNS)} ${rng.word(12)}\n`.repeat(rng.int(1, 5)),
    );
    const files: Record<string, string> = {};
    const used = new Set<string>();
    const n = rng.int(8, 16);
    for (let i = 0; i < n; i++) {
      let p: string;
      do p = `${root}/${rng.pick(dirs)}${rng.pick(NOUNS)}-${rng.int(1, 99)}.${rng.pick(['txt', 'dat', 'bin'])}`;
      while (used.has(p));
      used.add(p);
      files[p] = i < contents.length ? contents[i]! : rng.pick(contents);
    }
    // At least one duplicate.
    const extra = `${root}/copy-of-${rng.word(5)}.txt`;
    files[extra] = contents[0]!;
    const groups = new Map<string, string[]>();
    for (const p of Object.keys(files).sort(byCodePoint)) groups.set(files[p]!, [...(groups.get(files[p]!) ?? []), p]);
    const dupSets = [...groups.values()].filter((g) => g.length > 1);
    const report =
      dupSets
        .map((g) => g.join(' '))
        .sort(byCodePoint)
        .join('\n') + '\n';
    const links = dupSets.flatMap((g) => g.slice(1).map((p) => [p, g[0]!] as const));
    const keepers = dupSets.map((g) => g[0]!);
    const relTarget = (from: string, to: string) => {
      const a = from.split('/').slice(0, -1);
      const b = to.split('/');
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
    };
    const instruction = phrase(rng, split, [
      `/app/${root} contains duplicate files (identical content). For each set of duplicates, keep the copy whose path sorts first (byte order) as a regular file and replace every other copy by a relative symbolic link to it. Write /app/duplicates.txt: one line per set, its paths (relative to /app, sorted, the kept one first) separated by single spaces; lines sorted.`,
      `Deduplicate /app/${root}: files with the same bytes should exist once. Keep the lexicographically smallest path of each group as the real file; turn the others into relative symlinks pointing at it. Also list each group on a line of /app/duplicates.txt as space-separated paths relative to /app (sorted; lines sorted).`,
      `Free space in /app/${root} by replacing duplicate files with relative symlinks to the first copy (first = smallest path in C sort order). Record the groups in /app/duplicates.txt, one line per group with the sorted relative paths separated by spaces, groups sorted.`,
    ]);
    const solve = `find ${root} -type f | sort
find ${root} -type f -exec sha256sum {} + | sort
python3 - <<'PY'
import hashlib, os, pathlib
groups = {}
for p in sorted(str(p) for p in pathlib.Path("${root}").rglob("*") if p.is_file() and not p.is_symlink()):
    groups.setdefault(hashlib.sha256(open(p, "rb").read()).hexdigest(), []).append(p)
lines = []
for g in groups.values():
    if len(g) < 2:
        continue
    lines.append(" ".join(g))
    for p in g[1:]:
        os.remove(p)
        os.symlink(os.path.relpath(g[0], os.path.dirname(p)), p)
open("duplicates.txt", "w").write("".join(l + "\\n" for l in sorted(lines)))
PY
cat duplicates.txt
find ${root} -type l -printf '%p -> %l\\n'`;
    return buildTask(SCENARIO, {
      family: dedupeFiles,
      difficulty: 'medium',
      split,
      instruction,
      files,
      solve,
      expected: { 'duplicates.txt': report },
      assertions: [
        {
          name: 'duplicates are relative symlinks to the kept copy',
          run: links
            .map(([p, t]) => `test -L ${shq(p)} && test "$(readlink ${shq(p)})" = ${shq(relTarget(p, t))}`)
            .join(' && '),
        },
        {
          name: 'kept copies and unique files are regular files with their content',
          run: `test "$(find ${root} -type f | wc -l)" = ${Object.keys(files).length - links.length} && ${keepers.map((k) => `test -f ${shq(k)} && ! test -L ${shq(k)}`).join(' && ')} && test "$(cat ${links.map(([p]) => shq(p)).join(' ')} | sha256sum)" = "$(cat ${links.map(([, t]) => shq(t)).join(' ')} | sha256sum)"`,
        },
        {
          name: 'duplicates report',
          run: `python3 /tests/check.py same duplicates.txt /tests/expected/duplicates.txt`,
        },
      ],
      tags: ['dedupe', 'symlinks', 'sha256'],
    });
  },
};
