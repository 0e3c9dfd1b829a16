/** Multi-step analysis: read a web access log, write a JSON report of traffic figures. */
import type { FamilyRng, TaskFamily } from '../types';
import { buildTask, phrase, shq, type Assertion } from '../kit/task';
import { CORE, py } from './kit';

const PATHS = ['/', '/login', '/api/items', '/api/orders', '/static/app.js', '/health', '/search', '/cart', '/admin'];

interface Request {
  ip: string;
  path: string;
  status: number;
  bytes: number;
  hour: number;
}

export const logReport: TaskFamily = {
  name: 'log-report',
  category: 'data-science',
  summary: 'analyse an access log and write a JSON report (requests, clients, top path, error rate, bytes)',
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const { rows, lines } = drawRequests(rng);
    const hard = rng.bool(0.5);
    const report = trafficReport(rows, hard);
    const log = rng.pick(['access.log', 'nginx-access.log', 'web.log']);
    const out = rng.pick(['report.json', 'traffic.json', 'summary.json']);
    const instruction = phrase(rng, split, instructions(log, out, reportSpec(hard)));
    return buildTask(CORE, {
      family: logReport,
      seed,
      split,
      difficulty: hard ? 'hard' : 'medium',
      instruction,
      tags: ['logs', 'analysis', 'json'],
      files: { [log]: `${lines.join('\n')}\n` },
      solve: solveScript(log, out, hard),
      assertions: reportAssertions(out, report),
    });
  },
};

/** The log, drawn line by line: each request, then its minute, second and method. */
function drawRequests(rng: FamilyRng): { rows: Request[]; lines: string[] } {
  const ips = Array.from(
    { length: rng.int(4, 12) },
    () => `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`,
  );
  const paths = rng.sample(PATHS, rng.int(4, PATHS.length));
  const n = rng.int(40, 200);
  const lines: string[] = [];
  const rows: Request[] = [];
  for (let i = 0; i < n; i++) {
    const r = {
      ip: rng.pick(ips),
      path: rng.pick(paths),
      status: rng.pick([200, 200, 200, 201, 204, 301, 304, 400, 403, 404, 500, 502]),
      bytes: rng.int(0, 50000),
      hour: rng.int(0, 23),
    };
    rows.push(r);
    lines.push(
      `${r.ip} - - [12/Mar/2024:${String(r.hour).padStart(2, '0')}:${rng.int(10, 59)}:${rng.int(10, 59)} +0000] "${rng.pick(['GET', 'POST'])} ${r.path} HTTP/1.1" ${r.status} ${r.bytes}`,
    );
  }
  return { rows, lines };
}

/** The expected report: the five base figures, and for a hard task the busiest hour and the 4xx rate. */
function trafficReport(rows: Request[], hard: boolean): Record<string, unknown> {
  const n = rows.length;
  const pathCounts = new Map<string, number>();
  for (const r of rows) pathCounts.set(r.path, (pathCounts.get(r.path) ?? 0) + 1);
  const top = [...pathCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  const errors = rows.filter((r) => r.status >= 500).length;
  const report: Record<string, unknown> = {
    requests: n,
    unique_clients: new Set(rows.map((r) => r.ip)).size,
    top_path: top,
    server_errors: errors,
    total_bytes: rows.reduce((s, r) => s + r.bytes, 0),
  };
  if (hard) {
    const perHour = new Map<number, number>();
    for (const r of rows) perHour.set(r.hour, (perHour.get(r.hour) ?? 0) + 1);
    report.busiest_hour = [...perHour].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
    const status4 = rows.filter((r) => r.status >= 400 && r.status < 500).length;
    report.client_error_rate = Math.round((status4 / n) * 1000) / 1000;
  }
  return report;
}

/** The report's keys as the instruction lists them. */
function reportSpec(hard: boolean): string {
  return [
    '- `requests`: number of requests (lines)',
    '- `unique_clients`: number of distinct client IPs',
    '- `top_path`: the most requested path (ties: alphabetically first)',
    '- `server_errors`: requests with a 5xx status',
    '- `total_bytes`: sum of the response sizes (last field)',
    ...(hard
      ? [
          '- `busiest_hour`: the hour of day (0-23, integer) with the most requests (ties: the earliest)',
          '- `client_error_rate`: the share of 4xx responses, rounded to 3 decimals',
        ]
      : []),
  ].join('\n');
}

/** The instruction's three phrasings. */
function instructions(log: string, out: string, spec: string): string[] {
  return [
    `\`/app/${log}\` is a web server access log (common log format plus bytes). Write \`/app/${out}\`, a JSON object with exactly these keys:\n\n${spec}\n`,
    `Analyse the access log /app/${log} and save a report as JSON in /app/${out}. Keys (and nothing else):\n\n${spec}\n`,
    `Management wants traffic figures from /app/${log}. Produce /app/${out} containing a single JSON object:\n\n${spec}\n`,
  ];
}

/** The oracle: parse the log in Python and write the report. */
function solveScript(log: string, out: string, hard: boolean): string {
  return `python3 - <<'PY'
import json, re
from collections import Counter
rows = []
for line in open(${JSON.stringify(log)}):
    m = re.match(r'(\\S+) \\S+ \\S+ \\[[^:]+:(\\d+):[^\\]]+\\] "\\S+ (\\S+) [^"]*" (\\d+) (\\d+)', line)
    if m:
        rows.append((m.group(1), int(m.group(2)), m.group(3), int(m.group(4)), int(m.group(5))))
paths = Counter(r[2] for r in rows)
report = {
    "requests": len(rows),
    "unique_clients": len({r[0] for r in rows}),
    "top_path": sorted(paths.items(), key=lambda kv: (-kv[1], kv[0]))[0][0],
    "server_errors": sum(1 for r in rows if r[3] >= 500),
    "total_bytes": sum(r[4] for r in rows),
}
${
  hard
    ? `hours = Counter(r[1] for r in rows)
report["busiest_hour"] = sorted(hours.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
report["client_error_rate"] = round(sum(1 for r in rows if 400 <= r[3] < 500) / len(rows), 3)
`
    : ''
}json.dump(report, open(${JSON.stringify(out)}, "w"), indent=2)
PY
cat ${shq(out)}`;
}

/** The checks: exactly the keys asked for, then each value. */
function reportAssertions(out: string, report: Record<string, unknown>): Assertion[] {
  const keys = Object.keys(report);
  const field = (k: string) => ({
    name: `${k} is right`,
    run: py(
      `import json, sys; v = json.load(open(${JSON.stringify(out)}))[${JSON.stringify(k)}]; e = ${JSON.stringify(report[k])}; sys.exit(0 if (abs(v - e) < 1e-9 if isinstance(e, float) else v == e) else "expected %r, got %r" % (e, v))`,
    ),
  });
  return [
    {
      name: 'the report has exactly the keys asked for',
      run: py(
        `import json, sys; sys.exit(0 if sorted(json.load(open(${JSON.stringify(out)}))) == ${JSON.stringify([...keys].sort())} else 1)`,
      ),
    },
    ...keys.map(field),
  ];
}
