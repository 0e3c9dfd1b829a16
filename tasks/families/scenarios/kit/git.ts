/** Git plumbing shared by the version-control families: a fixed identity and clock, so set-up is reproducible. */
import { shq } from '../../kit/task';

/** [environment].env for git tasks: an identity (HOME is a fresh tmpfs without ~/.gitconfig). */
export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Dev Bot',
  GIT_AUTHOR_EMAIL: 'dev@example.com',
  GIT_COMMITTER_NAME: 'Dev Bot',
  GIT_COMMITTER_EMAIL: 'dev@example.com',
};

export interface Commit {
  message: string;
  /** Files written (full content) before committing; null deletes the file. */
  files: Record<string, string | null>;
}

/** A set-up script that creates a repository in the workdir from a list of commits (dates one hour apart). */
export function gitSetup(commits: Commit[], opts: { branch?: string; start?: number } = {}): string {
  const lines = [`git init -q -b ${opts.branch ?? 'main'} .`];
  commits.forEach((c, i) => lines.push(...commitLines(c, (opts.start ?? 1700000000) + i * 3600)));
  return lines.join('\n');
}

export function commitLines(c: Commit, epoch: number): string[] {
  const lines: string[] = [];
  for (const [path, text] of Object.entries(c.files)) {
    if (text === null) lines.push(`git rm -q ${shq(path)}`);
    else {
      if (path.includes('/')) lines.push(`mkdir -p ${shq(path.slice(0, path.lastIndexOf('/')))}`);
      lines.push(`printf '%s' ${shq(text)} > ${shq(path)}`);
    }
  }
  lines.push(
    `git add -A && GIT_AUTHOR_DATE='${epoch} +0000' GIT_COMMITTER_DATE='${epoch} +0000' git commit -q -m ${shq(c.message)}`,
  );
  return lines;
}
