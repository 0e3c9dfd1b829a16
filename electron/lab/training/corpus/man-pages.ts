/**
 * Manual pages of the host's own packages, rendered as plain text by `man`, for the LM corpus: how shell
 * tools are described and used. Only packages on this list are read, each because its licence allows
 * copying (GPL / GFDL / BSD-style; the package's /usr/share/doc/PKG/copyright must exist and name one of
 * them). Pages are generated on the user's machine and never shipped with the lab.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Package -> commands whose section-1 pages are read. */
export const MAN_PAGE_PACKAGES: Record<string, readonly string[]> = {
  coreutils: [
    'ls',
    'cat',
    'cp',
    'mv',
    'rm',
    'mkdir',
    'chmod',
    'chown',
    'head',
    'tail',
    'wc',
    'sort',
    'uniq',
    'cut',
    'tr',
    'ln',
    'du',
    'df',
    'stat',
    'touch',
    'echo',
    'printf',
    'date',
    'tee',
    'basename',
    'dirname',
    'sha256sum',
    'comm',
    'join',
    'paste',
    'seq',
    'test',
    'env',
  ],
  grep: ['grep'],
  sed: ['sed'],
  findutils: ['find', 'xargs'],
  tar: ['tar'],
  gzip: ['gzip'],
  diffutils: ['diff', 'cmp'],
  bash: ['bash'],
  'util-linux': ['kill', 'column', 'rename.ul'],
  procps: ['ps', 'pgrep'],
  gawk: ['gawk'],
  mawk: ['mawk'],
  sqlite3: ['sqlite3'],
  jq: ['jq'],
  python3: ['python3'],
};

const ALLOWED_LICENCES = /\b(GPL|GFDL|LGPL|BSD|MIT|Expat|public[- ]domain|ISC|PSF|Python)\b/i;

/** A character followed by a backspace (how man marks bold and underline on terminals). */
const OVERSTRIKE = new RegExp(`.${String.fromCharCode(8)}`, 'g');

export interface ManPage {
  package: string;
  command: string;
  text: string;
}

function licenceAllows(pkg: string): boolean {
  const path = `/usr/share/doc/${pkg}/copyright`;
  return existsSync(path) && ALLOWED_LICENCES.test(readFileSync(path, 'utf8'));
}

/** Every listed page this machine has, as text (80 columns, no overstrike); missing ones are skipped. */
export function readManPages(packages: Record<string, readonly string[]> = MAN_PAGE_PACKAGES): ManPage[] {
  const out: ManPage[] = [];
  for (const [pkg, commands] of Object.entries(packages)) {
    if (!licenceAllows(pkg)) continue;
    for (const command of commands) {
      try {
        const raw = execFileSync('man', ['-P', 'cat', '1', command], {
          encoding: 'utf8',
          timeout: 5_000,
          stdio: ['ignore', 'pipe', 'ignore'],
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MANWIDTH: '80', LANG: 'C.UTF-8', MAN_KEEP_FORMATTING: '' },
        });
        // Overstrike (bold "x\bx", underline "_\bx") and hyphenation-friendly characters become plain text.
        const text = raw
          .replace(OVERSTRIKE, '')
          .replace(/[\u2010\u2212]/g, '-')
          .replace(/[\u2018\u2019]/g, "'");
        if (text.trim()) out.push({ package: pkg, command, text });
      } catch {
        // not installed here
      }
    }
  }
  return out;
}
