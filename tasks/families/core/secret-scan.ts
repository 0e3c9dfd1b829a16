/** Multi-step security work: find leaked credentials in a tree, report them, redact them in place. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, fileNames, py } from './kit';

const KINDS = [
  { label: 'AWS access key', make: (w: (n: number) => string) => `AKIA${w(16).toUpperCase()}`, re: 'AKIA[0-9A-Z]{16}' },
  { label: 'GitHub token', make: (w: (n: number) => string) => `ghp_${w(36)}`, re: 'ghp_[0-9a-zA-Z]{36}' },
] as const;

export const secretScan: TaskFamily = {
  name: 'secret-scan',
  category: 'security',
  summary: 'find leaked AWS keys / GitHub tokens in a source tree, list the files and redact the secrets',
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const kind = rng.pick(KINDS);
    const root = rng.pick(['repo', 'project', 'src', 'workspace']);
    const all = fileNames(rng, rng.int(5, 12), rng.pick(['py', 'js', 'env', 'yaml'])).map((n, i) =>
      i % 3 === 0 ? `${root}/lib/${n}` : i % 3 === 1 ? `${root}/conf/${n}` : `${root}/${n}`,
    );
    const leaky = rng.sample(all, rng.int(1, Math.min(4, all.length - 1)));
    const files: Record<string, string> = {};
    const secrets: string[] = [];
    for (const p of all) {
      const lines = [`# ${p}`, `name = "${rng.word(6)}"`, `decoy = "AKIA${rng.word(5).toUpperCase()}"`];
      if (leaky.includes(p)) {
        const s = kind.make((n) => rng.word(n));
        secrets.push(s);
        lines.push(`token = "${s}"`);
        if (rng.bool(0.3)) lines.push(`backup_token = "${s}"`);
      }
      lines.push(`count = ${rng.int(1, 99)}`);
      files[p] = `${lines.join('\n')}\n`;
    }
    const hard = leaky.length >= 3;
    const report = rng.pick(['leaks.txt', 'findings.txt', 'secrets-report.txt']);
    const sortedLeaky = [...leaky].sort();
    const instruction = phrase(rng, split, [
      `Someone committed ${kind.label}s into \`/app/${root}\` (pattern \`${kind.re}\`). (1) Write the paths of the affected files, relative to /app (like \`${root}/x.py\`), sorted, one per line, to \`/app/${report}\`. (2) Replace every such secret in those files with the text \`REDACTED\`, changing nothing else.`,
      `Security review: find every ${kind.label} (regex ${kind.re}) under /app/${root}. List the files containing one in /app/${report} (paths relative to /app, sorted, one per line), then redact each secret in place by replacing it with REDACTED.`,
      `Scan /app/${root} for leaked ${kind.label}s matching \`${kind.re}\`; record the sorted relative paths (from /app) of the files that contain them in /app/${report}, and overwrite each secret with \`REDACTED\`. Anything that merely looks similar but does not match stays.`,
    ]);
    return buildTask(CORE, {
      family: secretScan,
      seed,
      split,
      difficulty: hard ? 'hard' : 'medium',
      instruction,
      tags: ['security', 'grep', 'secrets'],
      files,
      solve: `grep -rlE ${shq(kind.re)} ${shq(root)} | sort > ${shq(report)}\nxargs sed -i -E ${shq(`s/${kind.re}/REDACTED/g`)} < ${shq(report)}\ncat ${shq(report)}`,
      assertions: [
        {
          name: 'the report lists exactly the affected files, sorted',
          run: py(
            `import sys; sys.exit(0 if open(${JSON.stringify(report)}).read().split() == ${JSON.stringify(sortedLeaky)} else 1)`,
          ),
        },
        {
          name: 'no secret is left anywhere',
          run: `test -s ${shq(report)} && ! grep -rqE ${shq(kind.re)} ${shq(root)}`,
        },
        {
          name: 'each secret became REDACTED',
          run: py(
            `import sys; sys.exit(0 if all('token = "REDACTED"' in open(p).read() for p in ${JSON.stringify(leaky)}) else 1)`,
          ),
        },
        {
          name: 'the decoys and other lines are intact',
          run: py(
            `import json, re, sys; e = json.loads(${JSON.stringify(JSON.stringify(files))}); r = re.compile(${JSON.stringify(kind.re)}); sys.exit(0 if all(open(p).read() == r.sub("REDACTED", t) for p, t in e.items()) and any(r.search(t) for t in e.values()) and not any(r.search(open(p).read()) for p in e) else 1)`,
          ),
        },
      ],
    });
  },
};
