/**
 * Long-horizon log investigation: application and auth logs of 5-9 hosts, twelve questions answered in one
 * JSON report. The oracle inspects each host and answers question by question (20+ commands).
 */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, FIRST_NAMES, ipv4, NOUNS, pad2 } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

const COMPONENTS = ['db', 'cache', 'http', 'scheduler', 'auth', 'storage', 'queue'];

function topKey(m: Map<string, number>): string {
  return [...m.entries()].sort((a, b) => b[1] - a[1] || byCodePoint(a[0], b[0]))[0]![0];
}

export const incidentInvestigation: TaskFamily = {
  name: 'incident-investigation',
  category: 'system-administration',
  summary: 'Investigate app and auth logs of 5-9 hosts and answer twelve incident questions in answers.json',
  heldOut: true,
  difficulty: 'hard',
  generate(rng, { split }) {
    const hosts = rng
      .sample(NOUNS, rng.int(5, 9))
      .map((h) => `${h}-${rng.int(1, 9)}`)
      .sort(byCodePoint);
    const day = `2024-${pad2(rng.int(1, 12))}-${pad2(rng.int(1, 28))}`;
    const users = rng.sample(FIRST_NAMES, 6);
    const attackers = Array.from({ length: rng.int(2, 4) }, () => ipv4(rng));
    const tally = newTally();
    const files: Record<string, string> = {};
    for (const host of hosts) {
      files[`logs/${host}/app.log`] = appLog(rng, host, day, tally);
      files[`logs/${host}/auth.log`] = authLog(rng, host, day, users, attackers, tally);
    }
    const answers = answersOf(tally);
    const instruction = phrase(rng, split, [
      `An incident hit our fleet on ${day}. /app/logs/<host>/ has app.log and auth.log for each host. Investigate and write /app/answers.json with:\n${QUESTIONS}`,
      `Post-mortem data gathering. The logs of every host are in /app/logs/<host>/{app.log,auth.log}. Produce /app/answers.json containing these keys:\n${QUESTIONS}`,
      `You are on call. Using the logs under /app/logs (one folder per host with app.log and auth.log), answer the following in /app/answers.json:\n${QUESTIONS}`,
    ]);
    return buildTask(SCENARIO, {
      family: incidentInvestigation,
      difficulty: 'hard',
      split,
      instruction,
      files,
      solve: solveScript(hosts),
      expected: { 'answers.json': JSON.stringify(answers) },
      assertions: Object.keys(answers).map((k) =>
        check(k.replace(/_/g, ' '), 'json', 'answers.json', '/tests/expected/answers.json', k),
      ),
      tags: ['logs', 'forensics', 'ssh', 'long-horizon'],
    });
  },
};

/** What the logs hold, counted as they are written: the answers come from here. */
interface Tally {
  totalErrors: number;
  errByHost: Record<string, number>;
  errByComp: Map<string, number>;
  errByHour: Map<string, number>;
  codes: Set<string>;
  firstError: string;
  failed: number;
  failByIp: Map<string, number>;
  compromised: Set<string>;
  oom: string[];
  restarts: number;
  lastRestart: { ts: string; host: string };
}

function newTally(): Tally {
  return {
    totalErrors: 0,
    errByHost: {},
    errByComp: new Map(),
    errByHour: new Map(),
    codes: new Set(),
    firstError: '',
    failed: 0,
    failByIp: new Map(),
    compromised: new Set(),
    oom: [],
    restarts: 0,
    lastRestart: { ts: '', host: '' },
  };
}

function timestamp(day: string, sec: number): string {
  return `${day}T${pad2(Math.floor(sec / 3600) % 24)}:${pad2(Math.floor(sec / 60) % 60)}:${pad2(sec % 60)}`;
}

/** A host's app.log: 20-45 lines, a fifth of them errors (some out of memory), some restarts, the rest noise. */
function appLog(rng: FamilyRng, host: string, day: string, t: Tally): string {
  const app: string[] = [];
  let sec = rng.int(0, 600);
  t.errByHost[host] = 0;
  let hasOom = false;
  for (let i = rng.int(20, 45); i > 0; i--) {
    sec += rng.int(30, 900);
    const ts = timestamp(day, sec);
    const comp = rng.pick(COMPONENTS);
    const r = rng.int(0, 19);
    if (r < 4) {
      const code = `E${rng.int(100, 120)}`;
      const oomHere = r === 0 && rng.bool(0.3);
      app.push(
        `${ts} ERROR ${comp} ${oomHere ? 'java.lang.OutOfMemoryError: heap space' : `request failed code=${code}`}`,
      );
      if (oomHere) hasOom = true;
      else t.codes.add(code);
      t.totalErrors++;
      t.errByHost[host]!++;
      t.errByComp.set(comp, (t.errByComp.get(comp) ?? 0) + 1);
      t.errByHour.set(ts.slice(11, 13), (t.errByHour.get(ts.slice(11, 13)) ?? 0) + 1);
      if (!t.firstError || ts < t.firstError) t.firstError = ts;
    } else if (r === 4) {
      app.push(`${ts} INFO ${comp} service restarted`);
      t.restarts++;
      if (ts > t.lastRestart.ts || (ts === t.lastRestart.ts && host < t.lastRestart.host)) t.lastRestart = { ts, host };
    } else
      app.push(
        `${ts} ${rng.pick(['INFO', 'INFO', 'DEBUG', 'WARN'])} ${comp} ${rng.pick(['ok', 'tick', 'flushed', 'slow query', 'cache miss'])} ${rng.word(4)}`,
      );
  }
  if (hasOom) t.oom.push(host);
  return app.join('\n') + '\n';
}

/** A host's auth.log: 8-20 logins, half failed from the attackers; a user accepted from an IP that failed there before is compromised. */
function authLog(rng: FamilyRng, host: string, day: string, users: string[], attackers: string[], t: Tally): string {
  const auth: string[] = [];
  const badIps = new Set<string>();
  let asec = rng.int(0, 600);
  for (let i = rng.int(8, 20); i > 0; i--) {
    asec += rng.int(60, 1800);
    const ts = timestamp(day, asec);
    const user = rng.pick(users);
    if (rng.bool(0.5)) {
      const ip = rng.pick(attackers);
      auth.push(
        `${ts} ${host} sshd[${rng.int(100, 9999)}]: Failed password for ${user} from ${ip} port ${rng.int(1024, 65535)} ssh2`,
      );
      t.failed++;
      t.failByIp.set(ip, (t.failByIp.get(ip) ?? 0) + 1);
      badIps.add(ip);
    } else {
      const ip = rng.bool(0.2) && badIps.size ? rng.pick([...badIps]) : ipv4(rng);
      auth.push(
        `${ts} ${host} sshd[${rng.int(100, 9999)}]: Accepted publickey for ${user} from ${ip} port ${rng.int(1024, 65535)} ssh2`,
      );
      if (badIps.has(ip)) t.compromised.add(user);
    }
  }
  return auth.join('\n') + '\n';
}

function answersOf(t: Tally) {
  return {
    total_errors: t.totalErrors,
    errors_by_host: t.errByHost,
    first_error: t.firstError,
    noisiest_component: topKey(t.errByComp),
    failed_logins: t.failed,
    top_attacker_ip: topKey(t.failByIp),
    compromised_users: [...t.compromised].sort(byCodePoint),
    hosts_with_oom: t.oom,
    restart_count: t.restarts,
    last_restart_host: t.lastRestart.host,
    error_codes: [...t.codes].sort(byCodePoint),
    peak_error_hour: topKey(t.errByHour),
  };
}

const QUESTIONS = `- \`total_errors\`: number of ERROR lines in all app.log files;
- \`errors_by_host\`: object host -> number of ERROR lines (every host, 0 included);
- \`first_error\`: timestamp of the earliest ERROR line;
- \`noisiest_component\`: component (3rd field) with the most ERROR lines;
- \`failed_logins\`: number of "Failed password" lines in all auth.log files;
- \`top_attacker_ip\`: the IP with the most failed logins;
- \`compromised_users\`: sorted users with an "Accepted" login, on some host, from an IP that had failed logins earlier in that same host's auth.log;
- \`hosts_with_oom\`: sorted hosts whose app.log contains an OutOfMemoryError;
- \`restart_count\`: number of "service restarted" lines;
- \`last_restart_host\`: host of the latest restart (by timestamp);
- \`error_codes\`: sorted distinct codes from "code=E..." in ERROR lines;
- \`peak_error_hour\`: the two-digit hour (00-23) with the most ERROR lines.

Ties go to the smallest value in sort order. Host names are the folder names.`;

/** The oracle: a look at each host, a helper module, then one command per question, merged into answers.json. */
function solveScript(hosts: string[]): string {
  const q = (key: string, expr: string) =>
    `python3 -c 'import sys; sys.path.insert(0, "/tmp"); from logs import *; save("${key}", ${expr})'`;
  return [
    'ls logs',
    ...hosts.map((h) => `tail -n 3 logs/${h}/app.log logs/${h}/auth.log`),
    'mkdir -p /tmp/answers',
    `cat > /tmp/logs.py <<'PY'
import glob, json, os, re
from collections import Counter
HOSTS = sorted(os.listdir("/app/logs"))
APP = [(h, *l.split(" ", 3)) for h in HOSTS for l in open(f"/app/logs/{h}/app.log").read().splitlines()]
ERR = [a for a in APP if a[2] == "ERROR"]
AUTH = {h: open(f"/app/logs/{h}/auth.log").read().splitlines() for h in HOSTS}
FAILED = [(h, re.search(r"from (\\S+)", l).group(1)) for h in HOSTS for l in AUTH[h] if "Failed password" in l]
def top(c):
    return sorted(Counter(c).items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
def save(key, value):
    json.dump(value, open(f"/tmp/answers/{key}", "w"))
PY`,
    q('total_errors', 'len(ERR)'),
    q('errors_by_host', '{h: sum(1 for e in ERR if e[0] == h) for h in HOSTS}'),
    q('first_error', 'min(e[1] for e in ERR)'),
    q('noisiest_component', 'top(e[3] for e in ERR)'),
    q('failed_logins', 'len(FAILED)'),
    q('top_attacker_ip', 'top(ip for _, ip in FAILED)'),
    `python3 - <<'PY'
import sys, re
sys.path.insert(0, "/tmp")
from logs import *
users = set()
for h in HOSTS:
    bad = set()
    for l in AUTH[h]:
        ip = re.search(r"from (\\S+)", l).group(1)
        if "Failed password" in l:
            bad.add(ip)
        elif "Accepted" in l and ip in bad:
            users.add(re.search(r"for (\\S+) from", l).group(1))
save("compromised_users", sorted(users))
PY`,
    q('hosts_with_oom', 'sorted({e[0] for e in ERR if "OutOfMemoryError" in e[4]})'),
    q('restart_count', 'sum(1 for a in APP if a[4] == "service restarted")'),
    q(
      'last_restart_host',
      'sorted((a for a in APP if a[4] == "service restarted"), key=lambda a: (a[1], [-ord(c) for c in a[0]]))[-1][0]',
    ),
    q('error_codes', 'sorted({m for e in ERR for m in re.findall(r"code=(E\\d+)", e[4])})'),
    q('peak_error_hour', 'top(e[1][11:13] for e in ERR)'),
    `python3 -c 'import json, os; json.dump({k: json.load(open("/tmp/answers/" + k)) for k in sorted(os.listdir("/tmp/answers"))}, open("answers.json", "w"), indent=2)'`,
    'cat answers.json',
  ].join('\n');
}
