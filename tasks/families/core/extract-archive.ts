/** A few commands: list a tarball and extract some of its members elsewhere. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, fileNames, py } from './kit';

export const extractArchive: TaskFamily = {
  name: 'extract-archive',
  category: 'file-operations',
  summary: 'list a .tar.gz and extract only the files of one type into a folder',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { seed, split }) {
    const archive = `${rng.pick(['backup', 'bundle', 'export', 'snapshot'])}-${rng.word(4)}.tar.gz`;
    const want = rng.pick(['json', 'csv', 'py', 'sql']);
    const wanted = fileNames(rng, rng.int(2, 4), want).map((n, i) => (i % 2 ? `sub/${n}` : n));
    const rest = fileNames(rng, rng.int(2, 4), rng.pick(['txt', 'log', 'md']));
    const files: Record<string, string> = {};
    for (const p of [...wanted, ...rest]) files[`staging/${p}`] = `${p} ${rng.word(10)}\n`;
    const out = rng.pick(['extracted', 'restored', 'out']);
    const listFile = rng.pick(['contents.txt', 'members.txt', 'listing.txt']);
    const members = [...wanted, ...rest].sort();
    const instruction = phrase(rng, split, [
      `\`/app/${archive}\` is a gzipped tarball. (1) Write the paths of the regular files it contains, one per line, sorted, without a leading \`./\`, to \`/app/${listFile}\`. (2) Extract only its \`.${want}\` files into \`/app/${out}/\`, keeping their relative paths.`,
      `Look inside /app/${archive}: save its sorted list of files (relative paths like \`a/b.txt\`, no folders, no \`./\` prefix) as /app/${listFile}, then unpack just the *.${want} members under /app/${out}, with their folder structure.`,
      `From /app/${archive}, restore the .${want} files (and only those) to /app/${out}/ preserving paths, and record every file in the archive (sorted, one per line, no leading ./) in /app/${listFile}.`,
    ]);
    return buildTask(CORE, {
      family: extractArchive,
      seed,
      split,
      difficulty: 'easy',
      instruction,
      tags: ['tar', 'archives'],
      files,
      setup: `tar czf ${shq(archive)} -C staging .\nrm -rf staging`,
      solve: `tar tzf ${shq(archive)} | grep -v '/$' | sed 's|^\\./||' | sort > ${shq(listFile)}\nmkdir -p ${shq(out)}\ntar xzf ${shq(archive)} -C ${shq(out)} --wildcards '*.${want}'`,
      assertions: [
        {
          name: 'the listing has every file, sorted',
          run: py(
            `import sys; sys.exit(0 if open(${JSON.stringify(listFile)}).read().split() == ${JSON.stringify(members)} else 1)`,
          ),
        },
        {
          name: `the .${want} files are extracted with their content`,
          run: py(
            `import sys; sys.exit(0 if all(open(${JSON.stringify(out)} + "/" + p).read().startswith(p + " ") for p in ${JSON.stringify(wanted)}) else 1)`,
          ),
        },
        {
          name: 'nothing else is extracted',
          run: `test -d ${shq(out)} && test -z "$(find ${shq(out)} -type f ! -name '*.${want}')"`,
        },
        { name: 'the archive is still there', run: `test -d ${shq(out)} && tar tzf ${shq(archive)} >/dev/null` },
      ],
    });
  },
};
