/** Migrate a folder of INI service configs to one typed JSON document. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, CITIES, ipv4, SERVICES } from './kit/pools';
import type { TaskFamily } from '../types';

const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];

export const iniToJson: TaskFamily = {
  name: 'ini-to-json',
  category: 'system-administration',
  summary: 'Convert INI service configs into one JSON file with typed values (ints, booleans, lists)',
  // Held out like the core family config-migrate, the same kind of task: training on this one would leak into that
  // out-of-distribution suite.
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { split }) {
    const services = rng.sample(SERVICES, rng.int(3, 6)).sort(byCodePoint);
    const files: Record<string, string> = {};
    const want: Record<string, Record<string, Record<string, unknown>>> = {};
    for (const svc of services) {
      const port = rng.int(1024, 65000);
      const workers = rng.int(1, 32);
      const debug = rng.bool();
      const tags = rng.sample(['blue', 'green', 'canary', 'edge', 'internal', 'public', 'beta'], rng.int(1, 3));
      const db = `postgres://${svc}@${ipv4(rng)}:5432/${svc}_${rng.pick(CITIES)}`;
      const pool = rng.int(2, 40);
      const timeout = `${rng.int(1, 9)}.${rng.int(0, 9)}`;
      const boolWord = (b: boolean) => (b ? rng.pick(TRUE_WORDS.slice(0, 3)) : rng.pick(FALSE_WORDS.slice(0, 3)));
      const lines = [
        `; ${svc} service`,
        '[server]',
        `host = ${rng.pick(['0.0.0.0', '127.0.0.1', ipv4(rng)])}`,
        `port = ${port}`,
        `workers = ${workers}`,
        `debug = ${boolWord(debug)}`,
        `tags = ${tags.join(', ')}`,
        '',
        '# database settings',
        '[database]',
        `url = ${db}`,
        `pool_size = ${pool}`,
        `timeout = ${timeout}`,
      ];
      const server = { host: lines[2]!.split(' = ')[1]!, port, workers, debug, tags };
      const database: Record<string, unknown> = { url: db, pool_size: pool, timeout: Number(timeout) };
      if (rng.bool(0.5)) {
        const ssl = rng.bool();
        lines.push(`ssl = ${boolWord(ssl)}`);
        database.ssl = ssl;
      }
      files[`conf.d/${svc}.ini`] = lines.join('\n') + '\n';
      want[svc] = { server, database };
    }
    const out = rng.pick(['config.json', 'services.json']);
    const rules = `integers become JSON numbers, \`timeout\` a float, the words true/yes/on and false/no/off become booleans, \`tags\` a list of strings split on commas (trimmed); everything else stays a string`;
    const instruction = phrase(rng, split, [
      `Migrate the INI files in /app/conf.d/ to a single JSON file /app/${out}: an object keyed by service name (the file name without .ini), each value an object of sections, each section an object of keys. Typing rules: ${rules}.`,
      `We are moving from INI to JSON configuration. Read every /app/conf.d/*.ini and write /app/${out} = {"<service>": {"<section>": {"<key>": value}}}. Convert values: ${rules}. Comments (; or #) are not data.`,
      `Write /app/${out} from the legacy configs in /app/conf.d (one .ini per service, the service is the file's base name). Structure: service -> section -> key. Values must be typed: ${rules}.`,
    ]);
    const solve = `ls conf.d
cat conf.d/${services[0]}.ini
python3 - <<'PY'
import configparser, json, pathlib
BOOL = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
def typed(key, v):
    if key == "tags":
        return [t.strip() for t in v.split(",") if t.strip()]
    if key == "timeout":
        return float(v)
    if v.lower() in BOOL:
        return BOOL[v.lower()]
    try:
        return int(v)
    except ValueError:
        return v
out = {}
for p in sorted(pathlib.Path("conf.d").glob("*.ini")):
    ini = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    ini.read(p)
    out[p.stem] = {s: {k: typed(k, v) for k, v in ini[s].items()} for s in ini.sections()}
json.dump(out, open("${out}", "w"), indent=2)
PY
python3 -m json.tool ${out}`;
    return buildTask(SCENARIO, {
      family: iniToJson,
      difficulty: 'medium',
      split,
      instruction,
      files,
      solve,
      expected: {
        [out]: JSON.stringify(want),
        'server.json': JSON.stringify(Object.fromEntries(services.map((svc) => [svc, want[svc]!.server]))),
      },
      assertions: [
        {
          name: 'one entry per service',
          run: `test "$(python3 -c 'import json,sys; print(",".join(sorted(json.load(open(sys.argv[1])))))' ${out})" = ${services.join(',')}`,
        },
        {
          name: 'server sections typed',
          run: `python3 -c 'import json; d = json.load(open("${out}")); json.dump({k: v.get("server") for k, v in d.items()}, open("/tmp/server.json", "w"))' && python3 /tests/check.py json /tmp/server.json /tests/expected/server.json`,
        },
        check('the whole document', 'json', out, `/tests/expected/${out}`),
      ],
      tags: ['ini', 'json', 'config', 'migration'],
    });
  },
};
