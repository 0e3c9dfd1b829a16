/** Find the commit that introduced a bad setting in a repository's history and revert it. */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { GIT_ENV, gitSetup, type Commit } from './kit/git';
import { byCodePoint, SERVICES } from './kit/pools';
import type { TaskFamily } from '../types';

const KEYS = ['timeout', 'retries', 'workers', 'cache_ttl', 'max_conn', 'batch_size', 'log_level', 'port'];

function render(conf: Record<string, string>): string {
  return (
    Object.keys(conf)
      .sort(byCodePoint)
      .map((k) => `${k} = ${conf[k]}`)
      .join('\n') + '\n'
  );
}

export const gitRevertRegression: TaskFamily = {
  name: 'git-revert-regression',
  category: 'version-control',
  summary: 'Search git history for the commit that introduced a bad line, record it and revert it',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const svcs = rng.sample(SERVICES, rng.int(3, 5));
    const confs: Record<string, Record<string, string>> = {};
    for (const s of svcs) confs[s] = Object.fromEntries(rng.sample(KEYS, 4).map((k) => [k, String(rng.int(1, 500))]));
    const commits: Commit[] = [
      {
        message: 'Initial configuration',
        files: Object.fromEntries(svcs.map((s) => [`config/${s}.conf`, render(confs[s]!)])),
      },
    ];
    const n = rng.int(6, 16);
    const badAt = rng.int(2, n - 2);
    const badSvc = rng.pick(svcs);
    const bad = rng.pick([
      { key: 'debug_dump_secrets', value: 'true', what: 'a `debug_dump_secrets = true` setting' },
      { key: 'tls_verify', value: 'false', what: 'a `tls_verify = false` setting' },
      { key: 'allow_anonymous', value: 'yes', what: 'an `allow_anonymous = yes` setting' },
    ]);
    for (let i = 1; i <= n; i++) {
      if (i === badAt) {
        confs[badSvc]![bad.key] = bad.value;
        commits.push({
          message: `Tune ${badSvc} ${rng.pick(['settings', 'defaults', 'limits'])}`,
          files: { [`config/${badSvc}.conf`]: render(confs[badSvc]!) },
        });
        continue;
      }
      // Later commits leave the bad service's file alone so that the revert applies cleanly.
      const choices = i > badAt ? svcs.filter((s) => s !== badSvc) : svcs;
      const s = rng.pick(choices);
      const k = rng.pick(Object.keys(confs[s]!).filter((x) => x !== bad.key));
      confs[s]![k] = String(rng.int(1, 900));
      commits.push({
        message: `${rng.pick(['Raise', 'Lower', 'Adjust', 'Change'])} ${s} ${k}`,
        files: { [`config/${s}.conf`]: render(confs[s]!) },
      });
    }
    const total = commits.length;
    delete confs[badSvc]![bad.key];
    const expected: Record<string, string> = {};
    for (const s of svcs) expected[`config/${s}.conf`] = render(confs[s]!);
    const instruction = phrase(rng, split, [
      `The repository in /app picked up ${bad.what} in config/${badSvc}.conf at some point. Find the commit that introduced it, write its full hash to /app/bad_commit.txt (do not commit that file), and undo the change with \`git revert\` so that history is kept and a new revert commit sits on top of main.`,
      `Someone committed ${bad.what} to /app's git repository. Use the history to identify the offending commit (save its full SHA in /app/bad_commit.txt, left untracked) and revert it with a new commit; do not rewrite history.`,
      `Audit /app (a git repo): which commit added ${bad.what}? Put that commit's 40-character hash into bad_commit.txt (untracked), then create a revert commit on main that removes the change, keeping all the other history.`,
    ]);
    const checkTree = Object.keys(expected)
      .map((p) => `cmp -s ${shq(p)} ${shq(`/tests/expected/${p}`)}`)
      .join(' && ');
    return buildTask(SCENARIO, {
      family: gitRevertRegression,
      difficulty: 'medium',
      split,
      instruction,
      files: {},
      setup: gitSetup(commits),
      env: GIT_ENV,
      requires: ['git'],
      solve: `git log --oneline -n 20
git log -S '${bad.key}' --format=%H -- config/${badSvc}.conf
h=$(git log -S '${bad.key}' --format=%H -- config/${badSvc}.conf | tail -1)
git show --stat "$h"
echo "$h" > bad_commit.txt
git revert --no-edit "$h"
git log --oneline -n 3`,
      expected,
      assertions: [
        {
          name: 'bad_commit.txt names the commit that added the line',
          run: `h=$(tr -d '[:space:]' < bad_commit.txt) && test "$(git rev-parse "$h^{commit}")" = "$h" && git show --format= "$h" -- config/${badSvc}.conf | grep -qx '+${bad.key} = ${bad.value}'`,
        },
        {
          name: 'the bad setting is gone and every other setting kept',
          run: `${checkTree} && ! grep -rq '${bad.key}' config`,
        },
        {
          name: 'history kept: one new revert commit on top',
          run: `test "$(git rev-list --count HEAD)" = ${total + 1} && git log -1 --format=%s | grep -q '^Revert' && test -z "$(git status --porcelain --untracked-files=no)"`,
        },
      ],
      tags: ['git', 'history', 'revert'],
    });
  },
};
