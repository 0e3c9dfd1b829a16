/**
 * Long-horizon release of a git monorepo: every package changed since the last release tag gets a semver
 * bump (minor for feat:, else patch), a changelog section, its own release commit and a tag.
 */
import { buildTask, phrase, shq, type Assertion } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { commitLines, GIT_ENV } from './kit/git';
import { byCodePoint, NOUNS } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

type Version = [number, number, number];

interface Monorepo {
  /** Package names, sorted. */
  pkgs: string[];
  version: Map<string, Version>;
  /** Packages with commits since the tag, in the order of their first commit. */
  changed: string[];
  /** The files of the first commit (each package's VERSION, CHANGELOG.md and src/main.py). */
  initial: Record<string, string>;
  /** The setup script: the import commit, the tag, then one commit per subject. */
  lines: string[];
  /** Each package's commit subjects since the tag, oldest first. */
  subjects: Map<string, string[]>;
  /** How many commits follow the tag. */
  m: number;
}

interface Release {
  p: string;
  /** The new version. */
  v: string;
  /** The new CHANGELOG.md. */
  cl: string;
}

export const monorepoRelease: TaskFamily = {
  name: 'monorepo-release',
  category: 'version-control',
  summary: 'Bump, changelog, commit and tag every package of a git monorepo changed since the last release',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const repo = drawMonorepo(rng);
    const releases = releasesOf(repo);
    const instruction = phrase(rng, split, [
      `Cut a release of the monorepo in /app (git).\n\n${RULES}`,
      `Release time for /app's monorepo. Follow the release procedure:\n\n${RULES}`,
      `Prepare per-package releases in the git repository /app.\n\n${RULES}`,
    ]);
    const expected: Record<string, string> = {};
    for (const r of releases) expected[`${r.p}.CHANGELOG.md`] = r.cl;
    return buildTask(SCENARIO, {
      family: monorepoRelease,
      difficulty: 'hard',
      split,
      instruction,
      files: {},
      setup: repo.lines.join('\n'),
      env: GIT_ENV,
      requires: ['git'],
      solve: releaseScript(releases),
      expected,
      assertions: releaseAssertions(repo, releases),
      tags: ['git', 'semver', 'release', 'monorepo', 'long-horizon'],
    });
  },
};

/** The packages and their versions, which of them changed, and the history since the tag (one commit per drawn subject). */
function drawMonorepo(rng: FamilyRng): Monorepo {
  const pkgs = rng.sample(NOUNS, rng.int(6, 10)).sort(byCodePoint);
  const version = new Map(pkgs.map((p) => [p, [rng.int(0, 3), rng.int(0, 12), rng.int(0, 9)] as Version]));
  const changed = rng.sample(pkgs, rng.int(4, Math.min(7, pkgs.length - 1)));
  const log = (p: string, v: number[], body: string) => `# Changelog of ${p}\n\n## ${v.join('.')}\n\n${body}`;
  const initial: Record<string, string> = {};
  for (const p of pkgs) {
    const v = version.get(p)!;
    initial[`packages/${p}/VERSION`] = `${v.join('.')}\n`;
    initial[`packages/${p}/CHANGELOG.md`] = log(p, v, '- Initial release.\n');
    initial[`packages/${p}/src/main.py`] = `print("${p}")\n`;
  }
  const lines = ['git init -q -b main .'];
  let t = 1700000000;
  lines.push(...commitLines({ message: 'Import packages', files: initial }, (t += 3600)));
  lines.push('git tag last-release');
  const subjects = new Map<string, string[]>(pkgs.map((p) => [p, []]));
  const src = new Map(pkgs.map((p) => [p, `print("${p}")\n`]));
  const m = rng.int(changed.length + 3, changed.length + 14);
  for (let i = 0; i < m; i++) {
    const p = i < changed.length ? changed[i]! : rng.pick(changed);
    const subject = `${rng.pick(['feat', 'fix', 'fix', 'chore'])}: ${rng.pick(['handle', 'support', 'tidy', 'speed up', 'validate'])} ${rng.word(5)} in ${p}`;
    src.set(p, `${src.get(p)}# ${subject}\n`);
    subjects.get(p)!.push(subject);
    lines.push(
      ...commitLines({ message: subject, files: { [`packages/${p}/src/main.py`]: src.get(p)! } }, (t += 3600)),
    );
  }
  return { pkgs, version, changed, initial, lines, subjects, m };
}

/** Each changed package's release, alphabetically: minor after a feat: commit, else patch, and its new changelog. */
function releasesOf({ version, changed, initial, subjects }: Monorepo): Release[] {
  return [...changed].sort(byCodePoint).map((p) => {
    const [a, b, c] = version.get(p)!;
    const feat = subjects.get(p)!.some((s) => s.startsWith('feat:'));
    const nv = feat ? [a, b + 1, 0] : [a, b, c + 1];
    const old = initial[`packages/${p}/CHANGELOG.md`]!;
    const cl = old.replace(
      '\n\n',
      `\n\n## ${nv.join('.')}\n\n${subjects
        .get(p)!
        .map((s) => `- ${s}`)
        .join('\n')}\n\n`,
    );
    return { p, v: nv.join('.'), cl };
  });
}

const RULES = `For every package under packages/ that has commits since the tag \`last-release\`:
1. bump packages/<name>/VERSION: minor (x.Y+1.0) if any of those commits' subjects starts with \`feat:\`, otherwise patch (x.y.Z+1);
2. insert a section right after the title line of packages/<name>/CHANGELOG.md: a blank line, \`## <new version>\`, a blank line, then one \`- <commit subject>\` line per commit (oldest first); the older sections follow after a blank line;
3. commit only that package's two files with the message \`release: <name> <new version>\`;
4. tag that commit \`<name>-v<new version>\` (lightweight tag).
Packages without changes are left alone. Do the packages in alphabetical order; the working tree must end clean.`;

/** The oracle: per package, the subjects since the tag, then VERSION, CHANGELOG.md, the release commit and its tag. */
function releaseScript(releases: Release[]): string {
  return [
    'git log --oneline last-release..HEAD',
    'git diff --stat last-release HEAD',
    ...releases.flatMap(({ p, v }) => [
      `git log --reverse --format=%s last-release..HEAD -- packages/${p} > /tmp/${p}.subjects`,
      `echo ${v} > packages/${p}/VERSION`,
      `python3 - <<'PY'\nfrom pathlib import Path\np = Path("packages/${p}/CHANGELOG.md")\nsubjects = Path("/tmp/${p}.subjects").read_text().splitlines()\ntitle, rest = p.read_text().split("\\n\\n", 1)\np.write_text(title + "\\n\\n## ${v}\\n\\n" + "".join(f"- {s}\\n" for s in subjects) + "\\n" + rest)\nPY`,
      `git add packages/${p}/VERSION packages/${p}/CHANGELOG.md && git commit -q -m ${shq(`release: ${p} ${v}`)}`,
      `git tag ${p}-v${v}`,
    ]),
    'git log --oneline -n 12',
    'git tag',
  ].join('\n');
}

/** The checks: tags at the right VERSION, release commits touching only their package, changelogs, nothing else. */
function releaseAssertions({ pkgs, changed, m }: Monorepo, releases: Release[]): Assertion[] {
  const unchanged = pkgs.filter((p) => !changed.includes(p));
  return [
    {
      name: 'each changed package tagged at a commit with its new VERSION',
      run: releases.map(({ p, v }) => `test "$(git show ${p}-v${v}:packages/${p}/VERSION)" = ${v}`).join(' && '),
    },
    {
      name: 'release commits: message and only that package',
      run: releases
        .map(
          ({ p, v }) =>
            `test "$(git log -1 --format=%s ${p}-v${v})" = ${shq(`release: ${p} ${v}`)} && test "$(git show --name-only --format= ${p}-v${v} | sort | paste -sd,)" = packages/${p}/CHANGELOG.md,packages/${p}/VERSION`,
        )
        .join(' && '),
    },
    {
      name: 'changelogs',
      run: releases.map(({ p }) => `cmp -s packages/${p}/CHANGELOG.md /tests/expected/${p}.CHANGELOG.md`).join(' && '),
    },
    {
      name: 'unchanged packages untouched, one commit per release, clean tree',
      run: `test "$(git rev-list --count last-release..HEAD)" = ${m + releases.length} && test -z "$(git diff last-release -- ${unchanged.map((p) => `packages/${p}`).join(' ')})" && test "$(git tag | grep -vc '^last-release$')" = ${releases.length} && test -z "$(git status --porcelain)"`,
    },
  ];
}
