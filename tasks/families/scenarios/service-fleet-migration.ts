/**
 * Long-horizon migration: 10-20 legacy shell-style service definitions become systemd-style unit files,
 * enabled-service symlinks and a port map. The oracle converts and links service by service.
 */
import { buildTask, phrase, shq } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { byCodePoint, SERVICES } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

const RESTART: Record<string, string> = { always: 'always', 'on-failure': 'on-failure', never: 'no' };

export const serviceFleetMigration: TaskFamily = {
  name: 'service-fleet-migration',
  category: 'system-administration',
  summary: 'Convert 10-20 legacy service env files into unit files, enable the enabled ones, write a port map',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const n = rng.int(10, SERVICES.length);
    const names = rng.sample(SERVICES, n).sort(byCodePoint);
    const files: Record<string, string> = {};
    const units: Record<string, string> = {};
    const enabled: string[] = [];
    const ports: [number, string][] = [];
    const usedPorts = new Set<number>();
    for (const name of names) {
      const service = legacyService(rng, name, names, usedPorts);
      files[`legacy/${name}.env`] = service.envFile;
      units[`services/${name}.service`] = service.unitFile;
      if (service.on) {
        enabled.push(name);
        ports.push([service.port, name]);
      }
    }
    ports.sort((a, b) => a[0] - b[0]);
    const instruction = phrase(rng, split, [
      `Migrate the ${n} legacy service definitions in /app/legacy to unit files under /app/services.\n\n${FORMAT}`,
      `We are replacing our home-grown init scripts. Convert every file of /app/legacy into the new layout in /app/services.\n\n${FORMAT}`,
      `Service migration (all paths under /app): ${n} services to move from legacy/*.env to services/.\n\n${FORMAT}\n\nDo not modify legacy/.`,
    ]);
    const expected: Record<string, string> = { 'ports.txt': ports.map(([p, s]) => `${p} ${s}`).join('\n') + '\n' };
    for (const [p, t] of Object.entries(units)) expected[p] = t;
    return buildTask(SCENARIO, {
      family: serviceFleetMigration,
      difficulty: 'hard',
      split,
      instruction,
      files,
      solve: solveScript(names, enabled),
      expected,
      assertions: assertionsFor(names, enabled),
      tags: ['migration', 'systemd', 'config', 'long-horizon'],
    });
  },
};

/**
 * One service: a free port, its command line, user, restart policy, environment and dependencies, written as
 * a legacy env file (lines shuffled after the comment) and as the unit file it should become.
 */
function legacyService(
  rng: FamilyRng,
  name: string,
  names: string[],
  usedPorts: Set<number>,
): { envFile: string; unitFile: string; on: boolean; port: number } {
  let port = rng.int(20, 99) * 100;
  while (usedPorts.has(port)) port += 1;
  usedPorts.add(port);
  const exec = `/usr/bin/${name} --port ${port}${rng.bool(0.5) ? ` --workers ${rng.int(1, 8)}` : ''}`;
  const user = `svc-${name}`;
  const on = rng.bool(0.65) || name === names[0];
  const restart = rng.pick(Object.keys(RESTART));
  const env = Object.fromEntries(
    rng
      .sample(['LOG_LEVEL', 'REGION', 'CACHE_TTL', 'FEATURE_X', 'TZ'], rng.int(0, 3))
      .map((k) => [k, rng.pick(['info', 'debug', 'eu-west', '300', 'true', 'UTC'])]),
  );
  const deps = rng
    .sample(
      names.filter((x) => x !== name),
      rng.int(0, 2),
    )
    .sort(byCodePoint);
  const lines = [
    `# legacy definition of ${name}`,
    `NAME=${name}`,
    `EXEC="${exec}"`,
    `PORT=${port}`,
    `USER=${user}`,
    `ENABLED=${on ? rng.pick(['yes', 'true', '1']) : rng.pick(['no', 'false', '0'])}`,
    `RESTART=${restart}`,
    ...Object.entries(env).map(([k, v]) => `ENV_${k}=${v}`),
  ];
  if (deps.length) lines.push(`DEPENDS="${deps.join(' ')}"`);
  const envFile = rng.shuffle(lines.slice(1)).reduce((acc, l) => `${acc}${l}\n`, `${lines[0]}\n`);
  return { envFile, unitFile: unitFile({ name, user, exec, restart, env, deps }), on, port };
}

/** The unit file a legacy definition becomes (the layout FORMAT describes). */
function unitFile(s: {
  name: string;
  user: string;
  exec: string;
  restart: string;
  env: Record<string, string>;
  deps: string[];
}): string {
  const { name, user, exec, restart, env, deps } = s;
  return [
    '[Unit]',
    `Description=${name} service`,
    ...(deps.length ? [`After=${deps.map((d) => `${d}.service`).join(' ')}`] : []),
    '',
    '[Service]',
    `User=${user}`,
    `ExecStart=${exec}`,
    `Restart=${RESTART[restart]}`,
    ...Object.keys(env)
      .sort(byCodePoint)
      .map((k) => `Environment=${k}=${env[k]}`),
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

const FORMAT = `Each legacy/<name>.env (KEY=value lines, values maybe double-quoted) becomes services/<name>.service:

\`\`\`
[Unit]
Description=<NAME> service
After=<dep1>.service <dep2>.service      (only when DEPENDS is set; same order as DEPENDS)

[Service]
User=<USER>
ExecStart=<EXEC>
Restart=<RESTART, except that "never" becomes "no">
Environment=<KEY>=<value>               (one line per ENV_<KEY>, sorted by KEY, without the ENV_ prefix)

[Install]
WantedBy=multi-user.target
\`\`\`

(blank lines exactly as shown; the file ends with a newline). Services with ENABLED=yes/true/1 are enabled: create the relative symlink services/enabled/<name>.service -> ../<name>.service. Finally write services/ports.txt: "<PORT> <NAME>" for each enabled service, sorted by port.`;

/** The oracle: a converter run per service, the links of the enabled ones, then the port map. */
function solveScript(names: string[], enabled: string[]): string {
  return [
    'ls legacy',
    `cat legacy/${names[0]}.env`,
    'mkdir -p services/enabled',
    `cat > /tmp/convert.py <<'PY'
import shlex, sys
kv = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line and not line.startswith("#"):
        k, v = line.split("=", 1)
        kv[k] = shlex.split(v)[0] if v else ""
out = ["[Unit]", f"Description={kv['NAME']} service"]
if kv.get("DEPENDS"):
    out.append("After=" + " ".join(d + ".service" for d in kv["DEPENDS"].split()))
out += ["", "[Service]", f"User={kv['USER']}", f"ExecStart={kv['EXEC']}", "Restart=" + {"never": "no"}.get(kv["RESTART"], kv["RESTART"])]
out += [f"Environment={k[4:]}={v}" for k, v in sorted(kv.items()) if k.startswith("ENV_")]
out += ["", "[Install]", "WantedBy=multi-user.target"]
open(f"services/{kv['NAME']}.service", "w").write("\\n".join(out) + "\\n")
print(kv["NAME"], kv["PORT"], kv["ENABLED"])
PY`,
    ...names.map((s) => `python3 /tmp/convert.py legacy/${s}.env`),
    `grep -lE '^ENABLED=(yes|true|1)$' legacy/*.env`,
    ...enabled.map((s) => `ln -s ../${s}.service services/enabled/${s}.service`),
    `for f in $(grep -lE '^ENABLED=(yes|true|1)$' legacy/*.env); do echo "$(grep '^PORT=' "$f" | cut -d= -f2) $(grep '^NAME=' "$f" | cut -d= -f2)"; done | sort -n > services/ports.txt`,
    'cat services/ports.txt',
  ].join('\n');
}

/** The unit files in two halves, the enabled links (relative), and the port map. */
function assertionsFor(names: string[], enabled: string[]) {
  const half = Math.ceil(names.length / 2);
  const cmpUnits = (xs: string[]) =>
    xs.map((s) => `cmp -s services/${s}.service /tests/expected/services/${s}.service`).join(' && ');
  return [
    { name: `unit files ${names[0]}..${names[half - 1]}`, run: cmpUnits(names.slice(0, half)) },
    { name: `unit files ${names[half]}..${names[names.length - 1]}`, run: cmpUnits(names.slice(half)) },
    {
      name: 'exactly the enabled services are linked, relatively',
      run: `test "$(ls services/enabled | paste -sd,)" = ${shq(enabled.map((s) => `${s}.service`).join(','))} && ${enabled.map((s) => `test "$(readlink services/enabled/${s}.service)" = ../${s}.service`).join(' && ')}`,
    },
    { name: 'port map', run: 'cmp -s services/ports.txt /tests/expected/ports.txt' },
  ];
}
