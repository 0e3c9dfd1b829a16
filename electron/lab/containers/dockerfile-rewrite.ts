/**
 * The Dockerfile the lab builds: the task's own, with `FROM` images that cannot be had here replaced
 * through the base-image map, and one layer appended that makes sure the verifier's pytest mode can run
 * (pytest for the image's python3), as root, restoring the task's USER afterwards.
 */
import { parseDockerfile } from '../tasks/import/dockerfile';

export interface FromLine {
  line: number;
  image: string;
  /** `AS name` of a stage, or null. */
  stage: string | null;
}

export function fromLines(dockerfile: string): FromLine[] {
  const stages = new Set<string>();
  const out: FromLine[] = [];
  for (const ins of parseDockerfile(dockerfile)) {
    if (ins.op !== 'FROM') continue;
    const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
    const image = words[0] ?? '';
    const stage = words[1]?.toLowerCase() === 'as' ? (words[2] ?? null) : null;
    if (!stages.has(image)) out.push({ line: ins.line, image, stage });
    if (stage) stages.add(stage);
  }
  return out;
}

/** The last USER of the final stage ('' when none). */
export function finalUser(dockerfile: string): string {
  let user = '';
  for (const ins of parseDockerfile(dockerfile)) {
    if (ins.op === 'FROM') user = '';
    if (ins.op === 'USER') user = ins.args.trim();
  }
  return user;
}

export const VERIFIER_SUPPORT_LAYER = [
  '# Added by T1 Lab: pytest for the image python3, so the verifier can run the tests without the network.',
  'USER root',
  `RUN (command -v python3 >/dev/null 2>&1 && python3 -c 'import pytest' >/dev/null 2>&1) || ` +
    `(command -v apt-get >/dev/null 2>&1 && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-pytest >/dev/null && rm -rf /var/lib/apt/lists/*) || ` +
    `(python3 -m pip install -q pytest) || echo 't1lab: pytest could not be installed; the verifier will use tests/test.sh' >&2`,
].join('\n');

/** Replace the FROM images named in `substitute` (image -> local image); line numbers are 1-based. */
export function rewriteDockerfile(
  dockerfile: string,
  substitute: Map<string, string>,
  options: { verifierLayer: boolean },
): string {
  const lines = dockerfile.split('\n');
  for (const f of fromLines(dockerfile)) {
    const to = substitute.get(f.image);
    if (!to) continue;
    const i = f.line - 1;
    lines[i] = (lines[i] as string).replace(f.image, to);
  }
  let text = lines.join('\n');
  if (options.verifierLayer) {
    const user = finalUser(dockerfile);
    text = `${text.replace(/\s*$/, '')}\n\n${VERIFIER_SUPPORT_LAYER}\n${user ? `USER ${user}\n` : ''}`;
  }
  return text;
}
