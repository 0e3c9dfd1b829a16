/** Archive a project without its junk (logs, caches, dependencies) and write a checksum manifest. */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { byCodePoint, NOUNS } from './kit/pools';
import type { TaskFamily } from '../types';

export const backupManifest: TaskFamily = {
  name: 'backup-manifest',
  category: 'file-operations',
  summary: 'Make a tar.gz of a project excluding logs, caches and dependencies, with a sha256 manifest',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const proj = rng.pick(NOUNS) + '-' + rng.word(3);
    const junkDir = rng.pick(['node_modules', '.cache', 'venv', '__pycache__']);
    const junkExt = rng.pick(['log', 'tmp', 'bak']);
    const files: Record<string, string> = {};
    const keep: string[] = [];
    const dirs = ['', 'src/', 'docs/', 'src/lib/', 'config/'];
    const n = rng.int(6, 14);
    for (let i = 0; i < n; i++) {
      const p = `${rng.pick(dirs)}${rng.pick(NOUNS)}${rng.int(1, 9)}.${rng.pick(['py', 'md', 'json', 'txt', 'sh'])}`;
      if (files[`${proj}/${p}`] !== undefined) continue;
      files[`${proj}/${p}`] = `${p}\n${rng.word(20)}\n`;
      keep.push(p);
    }
    for (let i = rng.int(2, 4); i > 0; i--)
      files[`${proj}/${rng.pick(dirs)}${rng.word(5)}.${junkExt}`] = `junk ${rng.word(8)}\n`;
    for (let i = rng.int(2, 4); i > 0; i--)
      files[`${proj}/${rng.bool(0.5) ? '' : 'src/'}${junkDir}/${rng.word(6)}.${rng.pick(['js', 'py', 'bin'])}`] =
        `dep ${rng.word(8)}\n`;
    keep.sort(byCodePoint);
    const archive = rng.pick([`${proj}-backup.tar.gz`, 'backup.tar.gz', `snapshot-${proj}.tar.gz`]);
    const instruction = phrase(rng, split, [
      `Back up /app/${proj} into /app/${archive} (gzip'd tar whose members are paths relative to the project, like \`src/x.py\`, regular files only) leaving out every \`*.${junkExt}\` file and every \`${junkDir}/\` folder wherever they are. Next to it, write /app/MANIFEST.sha256 in \`sha256sum\` format covering exactly the archived files (paths relative to the project, sorted), so that \`cd ${proj} && sha256sum -c ../MANIFEST.sha256\` passes.`,
      `Create /app/${archive}: a tar.gz of the project /app/${proj} (member names relative to the project root, e.g. docs/a.md; files only, no directory entries needed) without the junk: no *.${junkExt} files and nothing under any ${junkDir} directory. Also produce /app/MANIFEST.sha256 (sha256sum output for the same files, relative paths, sorted by path).`,
      `Package a clean backup of /app/${proj}: exclude ${junkDir}/ directories and *.${junkExt} files at any depth. Output /app/${archive} (tar + gzip, paths relative to the project directory) and /app/MANIFEST.sha256, the sha256sum lines of exactly those files sorted by path, checkable with sha256sum -c from inside the project.`,
    ]);
    const list = keep.join('\n') + '\n';
    return buildTask(SCENARIO, {
      family: backupManifest,
      difficulty: 'medium',
      split,
      instruction,
      files,
      solve: `find ${proj} -type f | sort
cd ${proj}
find . -type f ! -name '*.${junkExt}' ! -path '*/${junkDir}/*' | sed 's|^\\./||' | LC_ALL=C sort > /tmp/files.txt
tar -czf ../${archive} -T /tmp/files.txt
xargs -d '\\n' sha256sum < /tmp/files.txt > ../MANIFEST.sha256
cd ..
tar -tzf ${archive}
cat MANIFEST.sha256`,
      expected: { 'files.txt': list },
      assertions: [
        {
          name: 'archive holds exactly the project files minus junk',
          run: `tar -tzf ${shq(archive)} | grep -v '/$' | sed 's|^\\./||' | LC_ALL=C sort | cmp -s - /tests/expected/files.txt`,
        },
        {
          name: 'archived content matches the originals',
          run: `rm -rf /tmp/x && mkdir /tmp/x && tar -xzf ${shq(archive)} -C /tmp/x && ${keep.map((p) => `cmp -s ${shq(`/tmp/x/${p}`)} ${shq(`${proj}/${p}`)}`).join(' && ')}`,
        },
        {
          name: 'manifest is sorted, complete and verifies',
          run: `test "$(awk '{print $2}' MANIFEST.sha256 | sed 's|^\\./||')" = "$(cat /tests/expected/files.txt)" && (cd ${shq(proj)} && sha256sum --quiet -c ../MANIFEST.sha256)`,
        },
      ],
      tags: ['tar', 'sha256sum', 'backup'],
    });
  },
};
