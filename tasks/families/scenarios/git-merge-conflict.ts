/** Merge a feature branch whose changes conflict with main, resolving by stated rules. */
import { buildTask, phrase } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { commitLines, GIT_ENV } from './kit/git';
import { byCodePoint, CITIES, NOUNS } from './kit/pools';
import type { TaskFamily } from '../types';

export const gitMergeConflict: TaskFamily = {
  name: 'git-merge-conflict',
  category: 'version-control',
  summary:
    'Merge a conflicting feature branch into main: union of allow-lists, the higher version, a real merge commit',
  heldOut: true,
  difficulty: 'hard',
  generate(rng, { split }) {
    const feature = `feature/${rng.pick(NOUNS)}-${rng.word(3)}`;
    const domain = rng.pick(['example.com', 'corp.internal', 'svc.local']);
    const hosts = rng.sample(CITIES, 14).map((c) => `${c}.${domain}`);
    const base = hosts.slice(0, rng.int(3, 6));
    const onMain = hosts.slice(6, 6 + rng.int(1, 3));
    const onFeature = hosts.slice(10, 10 + rng.int(1, 3));
    const shared = rng.bool(0.5) ? [hosts[5]!] : [];
    const list = (xs: string[]) => [...new Set(xs)].sort(byCodePoint).join('\n') + '\n';
    const [maj, min, pat] = [rng.int(0, 4), rng.int(0, 20), rng.int(0, 9)];
    const vMain = `${maj}.${min}.${pat + 1}`;
    const vFeature = `${maj}.${min + 1}.0`;
    const note = `notes/${feature.split('/')[1]}.md`;
    const lines = ['git init -q -b main .'];
    let t = 1700000000;
    lines.push(
      ...commitLines(
        {
          message: 'Initial allow-list',
          files: {
            'allowlist.txt': list(base),
            VERSION: `${maj}.${min}.${pat}\n`,
            'README.md': `# ${domain} gateway\n`,
          },
        },
        (t += 3600),
      ),
    );
    lines.push(`git checkout -q -b ${feature}`);
    lines.push(
      ...commitLines(
        {
          message: `Allow ${onFeature.length} new hosts`,
          files: {
            'allowlist.txt': list([...base, ...onFeature, ...shared]),
            VERSION: `${vFeature}\n`,
            [note]: `Adds ${onFeature.join(', ')}\n`,
          },
        },
        (t += 3600),
      ),
    );
    lines.push('git checkout -q main');
    const mainSubject = `Hotfix: allow ${onMain.join(', ')}`;
    lines.push(
      ...commitLines(
        {
          message: mainSubject,
          files: { 'allowlist.txt': list([...base, ...onMain, ...shared]), VERSION: `${vMain}\n` },
        },
        t + 3600,
      ),
    );
    const merged = list([...base, ...onMain, ...onFeature, ...shared]);
    const instruction = phrase(rng, split, [
      `In the git repository /app, merge the branch \`${feature}\` into \`main\` with a merge commit. Resolve conflicts like this: allowlist.txt must contain every host from both sides, sorted, once each; VERSION takes the higher of the two versions. Commit the merge so the working tree is clean.`,
      `Bring \`${feature}\` into main (/app is the repo). Expect conflicts. Rules: the allow-list is the sorted, de-duplicated union of both branches; VERSION is whichever version is greater (semver). The result must be a real merge commit (two parents) and nothing left uncommitted.`,
      `Finish the merge of ${feature} into main in /app. When branches disagree, keep all hosts from both versions of allowlist.txt (sorted, unique) and the larger semantic version in VERSION. Do not rebase or squash: create a merge commit, and leave a clean tree.`,
    ]);
    return buildTask(SCENARIO, {
      family: gitMergeConflict,
      difficulty: 'hard',
      split,
      instruction,
      files: {},
      setup: lines.join('\n'),
      env: GIT_ENV,
      requires: ['git'],
      solve: `git status
git log --oneline --all --graph -n 10
git merge --no-edit ${feature} || true
git diff --name-only --diff-filter=U
{ git show main:allowlist.txt; git show ${feature}:allowlist.txt; } | sort -u > allowlist.txt
printf '%s\\n' "$(printf '%s\\n%s\\n' "$(git show main:VERSION)" "$(git show ${feature}:VERSION)" | sort -V | tail -1)" > VERSION
git add allowlist.txt VERSION
git commit --no-edit
git log --oneline -3`,
      expected: { 'allowlist.txt': merged, VERSION: `${vFeature}\n` },
      assertions: [
        {
          name: 'HEAD is a merge of main and the feature branch',
          run: `test "$(git rev-parse HEAD^2)" = "$(git rev-parse ${feature})" && test "$(git log -1 --format=%s HEAD^1)" = '${mainSubject}'`,
        },
        {
          name: 'allow-list is the sorted union, no conflict markers',
          run: `cmp -s allowlist.txt /tests/expected/allowlist.txt && ! git grep -qE '^(<<<<<<<|>>>>>>>|=======)' HEAD`,
        },
        {
          name: 'VERSION is the higher one, feature notes kept, tree clean',
          run: `cmp -s VERSION /tests/expected/VERSION && git cat-file -e HEAD:${note} && test -z "$(git status --porcelain)"`,
        },
      ],
      tags: ['git', 'merge', 'conflicts'],
    });
  },
};
