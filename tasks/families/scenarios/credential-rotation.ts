/**
 * Long-horizon credential rotation: 14-20 service configs in four formats each get a new secret from a
 * rotation sheet, permissions tightened, stale backups removed, and a log written. One edit per service.
 */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { byCodePoint, SERVICES } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const secret = (rng: FamilyRng, n: number) =>
  Array.from({ length: n }, () => ALNUM[rng.int(0, ALNUM.length - 1)]).join('');

interface Format {
  ext: string;
  key: string;
  render(svc: string, key: string, value: string, rng: FamilyRng): string;
}

const FORMATS: Format[] = [
  {
    ext: 'env',
    key: 'DB_PASSWORD',
    render: (s, k, v, r) => `SERVICE=${s}\nDB_HOST=db-${r.int(1, 9)}.internal\n${k}=${v}\nPOOL=${r.int(2, 20)}\n`,
  },
  {
    ext: 'yaml',
    key: 'password',
    render: (s, k, v, r) =>
      `service: ${s}\ndatabase:\n  host: db-${r.int(1, 9)}.internal\n  user: ${s}\n  ${k}: "${v}"\n`,
  },
  {
    ext: 'ini',
    key: 'api_key',
    render: (s, k, v, r) =>
      `[${s}]\nendpoint = https://api.example.com/v${r.int(1, 3)}\n${k} = ${v}\ntimeout = ${r.int(5, 60)}\n`,
  },
  {
    ext: 'json',
    key: 'token',
    render: (s, k, v, r) => `{\n  "service": "${s}",\n  "retries": ${r.int(1, 5)},\n  "${k}": "${v}"\n}\n`,
  },
];

export const credentialRotation: TaskFamily = {
  name: 'credential-rotation',
  category: 'security',
  summary: 'Rotate the secrets of 14-20 service configs (env/yaml/ini/json), tighten modes, purge stale backups',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const names = rng.sample(SERVICES, rng.int(14, SERVICES.length)).sort(byCodePoint);
    const files: Record<string, string> = {};
    const expected: Record<string, string> = {};
    const rows: string[] = ['service,file,key,new_value'];
    const olds: string[] = [];
    const edits: string[] = [];
    const baks: string[] = [];
    for (const s of names) {
      const f = rng.pick(FORMATS);
      const old = secret(rng, 16);
      const neu = secret(rng, 24);
      // One draw of the layout, rendered twice (old and new secret).
      const layout = f.render(s, f.key, '\u0000', rng);
      const path = `configs/${s}.${f.ext}`;
      files[path] = layout.replace('\u0000', old);
      expected[path] = layout.replace('\u0000', neu);
      rows.push(`${s},${path},${f.key},${neu}`);
      olds.push(old);
      edits.push(`sed -i 's/${old}/${neu}/' ${path} && chmod 600 ${path}`);
      if (rng.bool(0.2) || s === names[0]) {
        files[`${path}.bak`] = files[path]!;
        baks.push(`${path}.bak`);
      }
    }
    files['rotation/new_credentials.csv'] = rows.join('\n') + '\n';
    const setup = Object.keys(files)
      .filter((p) => p.startsWith('configs/'))
      .map((p) => `chmod 644 ${shq(p)}`)
      .join('\n');
    const steps = `1. in each service's config file (listed in /app/rotation/new_credentials.csv: service,file,key,new_value), replace the current value of that key with new_value, changing nothing else in the file;
2. make every rotated config file mode 600;
3. delete the stale *.bak copies in /app/configs (they hold old secrets);
4. write /app/rotation/rotated.log: one line per rotated service name, sorted.`;
    const instruction = phrase(rng, split, [
      `Rotate credentials for ${names.length} services in /app:\n${steps}\nNo old secret may remain anywhere under /app.`,
      `The secrets in /app/configs leaked and must be rotated today. Procedure:\n${steps}\nAfterwards, none of the old secret values may appear in any file under /app.`,
      `Credential rotation runbook (workdir /app):\n${steps}\nFormats differ per file (env, yaml, ini, json): keep each file's layout, quoting and other keys intact.`,
    ]);
    const solve = [
      'cat rotation/new_credentials.csv',
      'ls -l configs',
      ...names.slice(0, 2).map((s) => `cat configs/${s}.*`),
      ...edits,
      `rm -f ${baks.join(' ')}`,
      `tail -n +2 rotation/new_credentials.csv | cut -d, -f1 | LC_ALL=C sort > rotation/rotated.log`,
      'ls -l configs',
    ].join('\n');
    const half = Math.ceil(names.length / 2);
    const cfgs = Object.keys(expected);
    const cmpSet = (ps: string[]) => ps.map((p) => `cmp -s ${p} /tests/expected/${p}`).join(' && ');
    const ex: Record<string, string> = {
      'rotated.log': names.join('\n') + '\n',
      'old-secrets.txt': olds.join('\n') + '\n',
    };
    for (const [p, t] of Object.entries(expected)) ex[p] = t;
    return buildTask(SCENARIO, {
      family: credentialRotation,
      difficulty: 'hard',
      split,
      instruction,
      files,
      setup,
      solve,
      expected: ex,
      assertions: [
        { name: `configs of ${names[0]}..${names[half - 1]} rotated exactly`, run: cmpSet(cfgs.slice(0, half)) },
        {
          name: `configs of ${names[half]}..${names[names.length - 1]} rotated exactly`,
          run: cmpSet(cfgs.slice(half)),
        },
        {
          name: 'no old secret anywhere, backups gone',
          run: `test -d configs && ! grep -rqF -f /tests/expected/old-secrets.txt . && test -z "$(find . -name '*.bak')"`,
        },
        { name: 'rotated configs are mode 600', run: cfgs.map((p) => `test "$(stat -c %a ${p})" = 600`).join(' && ') },
        { name: 'rotation log', run: 'cmp -s rotation/rotated.log /tests/expected/rotated.log' },
      ],
      tags: ['secrets', 'rotation', 'sed', 'config', 'long-horizon'],
    });
  },
};
