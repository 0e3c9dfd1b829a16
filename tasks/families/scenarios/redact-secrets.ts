/** Find credentials committed to a source tree, redact them in place and write an inventory. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, NOUNS, SERVICES } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function chars(rng: FamilyRng, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[rng.int(0, alphabet.length - 1)];
  return s;
}

export interface SecretKind {
  kind: string;
  make(rng: FamilyRng): string;
  /** Looks like one but is not (too short): must be left alone. */
  decoy(rng: FamilyRng): string;
  regex: string;
}

export const SECRET_KINDS: SecretKind[] = [
  {
    kind: 'aws',
    make: (r) => `AKIA${chars(r, UPPER_DIGITS, 16)}`,
    decoy: (r) => `AKIA${chars(r, UPPER_DIGITS, 8)}`,
    regex: 'AKIA[A-Z0-9]{16}',
  },
  {
    kind: 'github',
    make: (r) => `ghp_${chars(r, ALNUM, 36)}`,
    decoy: (r) => `ghp_${chars(r, ALNUM, 10)}`,
    regex: 'ghp_[A-Za-z0-9]{36}',
  },
  {
    kind: 'slack',
    make: (r) => `xoxb-${r.int(100000000, 999999999)}-${r.int(100000000, 999999999)}-${chars(r, ALNUM, 24)}`,
    decoy: (r) => `xoxb-${r.int(1000, 9999)}`,
    regex: 'xoxb-[0-9]+-[0-9]+-[A-Za-z0-9]{24}',
  },
];

const CONTEXTS: ((v: string, rng: FamilyRng) => string)[] = [
  (v) => `API_KEY = "${v}"`,
  (v) => `export TOKEN=${v}`,
  (v, r) => `  ${r.pick(['token', 'key', 'secret'])}: ${v}`,
  (v) => `# temporary, remove before release: ${v}`,
  (v) => `client = connect(key="${v}", retries=3)`,
];

export const redactSecrets: TaskFamily = {
  name: 'redact-secrets',
  category: 'security',
  summary: 'Find AWS, GitHub and Slack tokens in a source tree, redact them in place and write an inventory',
  // Held out like the core family secret-scan, the same kind of task: training on this one would leak into that
  // out-of-distribution suite.
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { split }) {
    const root = rng.pick(['repo', 'project', 'src']);
    const nFiles = rng.int(6, 12);
    const exts = ['py', 'yaml', 'env', 'md', 'sh', 'cfg'];
    const files: Record<string, string> = {};
    const redacted: Record<string, string> = {};
    const leaks: string[] = [];
    const paths = new Set<string>();
    while (paths.size < nFiles)
      paths.add(
        `${root}/${rng.bool(0.5) ? `${rng.pick(SERVICES)}/` : ''}${rng.pick(NOUNS)}_${rng.word(3)}.${rng.pick(exts)}`,
      );
    const list = [...paths].sort(byCodePoint);
    const secretFiles = new Set(rng.sample(list, rng.int(2, Math.min(5, list.length))));
    for (const path of list) {
      const lines: string[] = [];
      const red: string[] = [];
      const n = rng.int(5, 14);
      for (let i = 0; i < n; i++) {
        const plain = `${rng.pick(['value', 'name', 'mode', 'retries', 'region'])} = ${rng.word(rng.int(4, 9))}`;
        lines.push(plain);
        red.push(plain);
      }
      if (rng.bool(0.4)) {
        const d = rng.pick(SECRET_KINDS).decoy(rng);
        const at = rng.int(0, lines.length);
        lines.splice(at, 0, `example = "${d}"`);
        red.splice(at, 0, `example = "${d}"`);
      }
      if (secretFiles.has(path)) {
        for (let k = rng.int(1, 2); k > 0; k--) {
          const kind = rng.pick(SECRET_KINDS);
          const value = kind.make(rng);
          const line = rng.pick(CONTEXTS)('\u0000', rng);
          const at = rng.int(0, lines.length);
          lines.splice(at, 0, line.replace('\u0000', value));
          red.splice(at, 0, line.replace('\u0000', '[REDACTED]'));
        }
      }
      files[path] = lines.join('\n') + '\n';
      redacted[path] = red.join('\n') + '\n';
    }
    // Inventory from the final line numbers.
    for (const path of list) {
      files[path]!.split('\n').forEach((line, i) => {
        for (const k of SECRET_KINDS) if (new RegExp(k.regex).test(line)) leaks.push(`${path}:${i + 1}:${k.kind}`);
      });
    }
    const expected: Record<string, string> = { 'leaks.txt': leaks.join('\n') + '\n' };
    for (const [p, t] of Object.entries(redacted)) expected[`tree/${p}`] = t;
    const kindsDoc =
      'AWS access key ids (`AKIA` + 16 upper-case letters/digits, kind `aws`), GitHub tokens (`ghp_` + 36 letters/digits, kind `github`), Slack bot tokens (`xoxb-<digits>-<digits>-<24 letters/digits>`, kind `slack`)';
    const instruction = phrase(rng, split, [
      `Credentials leaked into /app/${root}. Scan every file for ${kindsDoc}. Replace each token itself with \`[REDACTED]\` (leave the rest of the line alone) and write /app/leaks.txt listing every leak as \`path:line:kind\` (path relative to /app, 1-based line number before redaction), sorted by path then line.`,
      `Security review of /app/${root}: redact in place every ${kindsDoc} by replacing just the token with [REDACTED]. Shorter look-alikes are examples, not secrets. Record what you found in /app/leaks.txt, one \`path:line:kind\` per line (e.g. ${root}/x.py:3:aws), ordered by path and line.`,
      `Find and scrub secrets in the /app/${root} tree. Secret kinds: ${kindsDoc}. Each match becomes the literal text [REDACTED]; nothing else may change. Also produce /app/leaks.txt with lines "path:line:kind" (relative to /app, sorted).`,
    ]);
    const pyKinds = SECRET_KINDS.map((k) => `("${k.kind}", r"${k.regex}")`).join(', ');
    const solve = `grep -rnE '${SECRET_KINDS.map((k) => k.regex).join('|')}' ${root} || true
python3 - <<'PY'
import re, pathlib
KINDS = [${pyKinds}]
leaks = []
for p in sorted(pathlib.Path("${root}").rglob("*"), key=lambda p: str(p)):
    if not p.is_file():
        continue
    lines = p.read_text().split("\\n")
    for i, line in enumerate(lines, 1):
        for kind, rx in KINDS:
            if re.search(rx, line):
                leaks.append((str(p), i, kind))
        for kind, rx in KINDS:
            line = re.sub(rx, "[REDACTED]", line)
        lines[i - 1] = line
    p.write_text("\\n".join(lines))
leaks.sort(key=lambda t: (t[0], t[1]))
open("leaks.txt", "w").write("".join(f"{p}:{n}:{k}\\n" for p, n, k in leaks))
PY
cat leaks.txt`;
    return buildTask(SCENARIO, {
      family: redactSecrets,
      difficulty: 'medium',
      split,
      instruction,
      files,
      solve,
      expected,
      assertions: [
        {
          name: 'no token left anywhere',
          run: `test -d ${root} && ! grep -rqE '${SECRET_KINDS.map((k) => k.regex).join('|')}' . && grep -rqF '[REDACTED]' ${root}`,
        },
        {
          name: 'files redacted exactly (decoys and other lines intact)',
          run: `diff -r ${root} /tests/expected/tree/${root}`,
        },
        check('leak inventory', 'same', 'leaks.txt', '/tests/expected/leaks.txt'),
      ],
      tags: ['secrets', 'grep', 'regex', 'redaction'],
    });
  },
};
