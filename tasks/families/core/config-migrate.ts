/** Multi-step migration: an INI config becomes JSON with renamed keys, typed values and defaults. */
import type { FamilyRng, TaskFamily } from '../types';
import { buildTask, phrase, type Assertion } from '../kit/task';
import { CORE, NOUNS, py, SERVICES } from './kit';

type Value = string | number | boolean;

export const configMigrate: TaskFamily = {
  name: 'config-migrate',
  category: 'software-engineering',
  summary: 'migrate an INI config to a typed JSON config with renamed keys and defaults',
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const sections = rng.sample(SERVICES, rng.int(2, 5));
    const hard = sections.length >= 4;
    const { ini, json } = drawConfig(rng, sections);
    const file = rng.pick(['service.ini', 'app.ini', 'settings.ini']);
    const out = rng.pick(['config.json', 'service.json', 'settings.json']);
    const instruction = phrase(rng, split, instructions(file, out));
    return buildTask(CORE, {
      family: configMigrate,
      seed,
      split,
      difficulty: hard ? 'hard' : 'medium',
      instruction,
      tags: ['config', 'ini', 'json', 'migration'],
      files: { [file]: `${ini.join('\n')}\n` },
      solve: solveScript(file, out),
      assertions: migrationAssertions(out, sections, json),
    });
  },
};

/** The legacy INI, section by section (keys optional at random, comments here and there), and the JSON it must become. */
function drawConfig(
  rng: FamilyRng,
  sections: string[],
): { ini: string[]; json: Record<string, Record<string, Value>> } {
  const ini: string[] = [`; ${rng.pick(NOUNS)} service configuration (legacy format)`];
  const json: Record<string, Record<string, Value>> = {};
  for (const s of sections) {
    ini.push('', `[${s}]`);
    const obj: Record<string, Value> = {};
    obj.host = `${s}.${rng.word(4)}.lan`;
    ini.push(`hostname = ${obj.host}`);
    obj.port = rng.int(1024, 65000);
    ini.push(`portnum = ${obj.port}`);
    if (rng.bool(0.7)) {
      obj.tls = rng.bool();
      ini.push(`use_tls = ${obj.tls ? rng.pick(['yes', 'true', 'on']) : rng.pick(['no', 'false', 'off'])}`);
    } else obj.tls = false;
    if (rng.bool(0.6)) {
      obj.max_connections = rng.int(1, 500);
      ini.push(`max_conn = ${obj.max_connections}`);
    } else obj.max_connections = 100;
    if (rng.bool(0.4)) ini.push(`# comment ${rng.word(6)}`);
    json[s] = obj;
  }
  return { ini, json };
}

/** The instruction's three phrasings, around the migration rules. */
function instructions(file: string, out: string): string[] {
  const spec = [
    '- one top-level key per INI section (same name), whose value is an object;',
    '- keys renamed: `hostname` -> `host`, `portnum` -> `port`, `use_tls` -> `tls`, `max_conn` -> `max_connections`;',
    '- `port` and `max_connections` are JSON integers; `tls` is a JSON boolean (`yes/true/on` are true, `no/false/off` false);',
    '- a missing `use_tls` means `false`, a missing `max_conn` means `100`;',
    '- comment lines (`;` or `#`) are ignored.',
  ].join('\n');
  return [
    `We are moving from \`/app/${file}\` (INI) to \`/app/${out}\` (JSON). Write the JSON file:\n\n${spec}\n`,
    `Convert the legacy config /app/${file} into /app/${out} following these rules:\n\n${spec}\n\nLeave the INI file in place.`,
    `Migrate /app/${file} to JSON at /app/${out}.\n\n${spec}\n`,
  ];
}

/** The oracle: configparser in, json out. */
function solveScript(file: string, out: string): string {
  return `python3 - <<'PY'
import configparser, json
cp = configparser.ConfigParser(comment_prefixes=(";", "#"))
cp.read(${JSON.stringify(file)})
out = {}
for s in cp.sections():
    sec = cp[s]
    out[s] = {
        "host": sec["hostname"],
        "port": int(sec["portnum"]),
        "tls": sec.get("use_tls", "no").strip().lower() in ("yes", "true", "on"),
        "max_connections": int(sec.get("max_conn", "100")),
    }
json.dump(out, open(${JSON.stringify(out)}, "w"), indent=2)
PY
python3 -m json.tool ${out} > /dev/null`;
}

/** The checks: the sections, the four keys of each, then each key's values (types and defaults included). */
function migrationAssertions(
  out: string,
  sections: string[],
  json: Record<string, Record<string, Value>>,
): Assertion[] {
  const load = `import json, sys; d = json.load(open(${JSON.stringify(out)}))`;
  return [
    {
      name: 'the sections are the top-level keys',
      run: py(`${load}; sys.exit(0 if sorted(d) == ${JSON.stringify([...sections].sort())} else 1)`),
    },
    {
      name: 'every section has exactly the four keys',
      run: py(
        `${load}; sys.exit(0 if all(sorted(v) == ["host", "max_connections", "port", "tls"] for v in d.values()) else 1)`,
      ),
    },
    {
      name: 'hosts are right',
      run: py(
        `${load}; sys.exit(0 if {k: v["host"] for k, v in d.items()} == ${JSON.stringify(Object.fromEntries(sections.map((s) => [s, json[s]!.host])))} else 1)`,
      ),
    },
    {
      name: 'ports are integers and right',
      run: py(
        `${load}; sys.exit(0 if all(type(v["port"]) is int for v in d.values()) and {k: v["port"] for k, v in d.items()} == ${JSON.stringify(Object.fromEntries(sections.map((s) => [s, json[s]!.port])))} else 1)`,
      ),
    },
    {
      name: 'tls flags are booleans and right (default false)',
      run: py(
        `${load}; e = ${JSON.stringify(Object.fromEntries(sections.map((s) => [s, json[s]!.tls ? 1 : 0])))}; sys.exit(0 if all(d[k]["tls"] is (e[k] == 1) for k in e) else 1)`,
      ),
    },
    {
      name: 'max_connections are right (default 100)',
      run: py(
        `${load}; sys.exit(0 if {k: v["max_connections"] for k, v in d.items()} == ${JSON.stringify(Object.fromEntries(sections.map((s) => [s, json[s]!.max_connections])))} else 1)`,
      ),
    },
  ];
}
