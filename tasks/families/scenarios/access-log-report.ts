/** Summarise a web server access log into a JSON report (status counts, busiest client, failing paths). */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, HTTP_PATHS, ipv4, pad2, STATUS_CODES } from './kit/pools';
import type { TaskFamily } from '../types';

export const accessLogReport: TaskFamily = {
  name: 'access-log-report',
  category: 'system-administration',
  summary: 'Summarise an access log into report.json: totals, status counts, top client, paths with 5xx errors',
  // Held out like the core family log-report, the same kind of task: training on this one would leak into that
  // out-of-distribution suite.
  heldOut: true,
  difficulty: 'medium',
  generate(rng, { split }) {
    const ips = Array.from({ length: rng.int(4, 9) }, () => ipv4(rng));
    const paths = rng.sample(HTTP_PATHS, rng.int(5, 10));
    const n = rng.int(40, 120);
    const lines: string[] = [];
    const byStatus: Record<string, number> = {};
    const perIp = new Map<string, number>();
    const bytesPerPath = new Map<string, number>();
    const errorPaths = new Set<string>();
    const day = rng.int(1, 28);
    for (let i = 0; i < n; i++) {
      // Weight the first ip so the busiest client is unique.
      const ip = i % 3 === 0 ? ips[0]! : rng.pick(ips);
      const path = rng.pick(paths);
      const status = rng.pick(STATUS_CODES);
      const bytes = status === 204 || status === 304 ? 0 : rng.int(120, 90000);
      const t = `${pad2(day)}/Mar/2025:${pad2(Math.floor((i * 11) / 60) % 24)}:${pad2((i * 11) % 60)}:${pad2(rng.int(0, 59))} +0000`;
      lines.push(
        `${ip} - - [${t}] "${rng.pick(['GET', 'GET', 'POST', 'PUT'])} ${path} HTTP/1.1" ${status} ${bytes} "-" "${rng.pick(['curl/8.5.0', 'Mozilla/5.0', 'python-requests/2.31'])}"`,
      );
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      perIp.set(ip, (perIp.get(ip) ?? 0) + 1);
      bytesPerPath.set(path, (bytesPerPath.get(path) ?? 0) + bytes);
      if (status >= 500) errorPaths.add(path);
    }
    const topIp = [...perIp.entries()].sort((a, b) => b[1] - a[1] || byCodePoint(a[0], b[0]))[0]![0];
    const topPath = [...bytesPerPath.entries()].sort((a, b) => b[1] - a[1] || byCodePoint(a[0], b[0]))[0]![0];
    const report = {
      total_requests: n,
      status_counts: byStatus,
      top_client: topIp,
      top_path_by_bytes: topPath,
      server_error_paths: [...errorPaths].sort(byCodePoint),
    };
    const log = rng.pick(['access.log', 'nginx-access.log', 'web.log']);
    const instruction = phrase(rng, split, [
      `Analyse the web server log \`/app/logs/${log}\` (combined log format) and write \`/app/report.json\` with keys: \`total_requests\` (int), \`status_counts\` (object: status code as a string -> count), \`top_client\` (the IP with the most requests; ties -> smallest string), \`top_path_by_bytes\` (the request path with the most response bytes in total; ties -> smallest string), \`server_error_paths\` (sorted list of distinct paths that got a 5xx).`,
      `Write a JSON summary of logs/${log} to report.json (in /app). Fields: total_requests, status_counts {"200": n, ...}, top_client (IP sending most requests, ties broken by lowest string), top_path_by_bytes (path whose responses sum to most bytes, same tie rule), server_error_paths (alphabetical distinct paths answered with status >= 500).`,
      `On-call wants numbers from /app/logs/${log}: produce /app/report.json = {"total_requests": N, "status_counts": {code: count}, "top_client": ip, "top_path_by_bytes": path, "server_error_paths": [sorted paths with 5xx responses]}. Break ties by taking the lexicographically smallest value.`,
    ]);
    const solve = `head -3 logs/${log}
awk '{print $9}' logs/${log} | sort | uniq -c
python3 - <<'PY'
import json, re
from collections import Counter
pat = re.compile(r'^(\\S+) \\S+ \\S+ \\[[^]]*\\] "(\\S+) (\\S+) [^"]*" (\\d{3}) (\\d+)')
status, ips, nbytes, errs, total = Counter(), Counter(), Counter(), set(), 0
for line in open("logs/${log}"):
    m = pat.match(line)
    if not m:
        continue
    ip, _, path, code, size = m.groups()
    total += 1; status[code] += 1; ips[ip] += 1; nbytes[path] += int(size)
    if int(code) >= 500:
        errs.add(path)
top = lambda c: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
json.dump({"total_requests": total, "status_counts": dict(status), "top_client": top(ips),
           "top_path_by_bytes": top(nbytes), "server_error_paths": sorted(errs)}, open("report.json", "w"), indent=2)
PY
cat report.json`;
    return buildTask(SCENARIO, {
      family: accessLogReport,
      difficulty: 'medium',
      split,
      instruction,
      files: { [`logs/${log}`]: lines.join('\n') + '\n' },
      solve,
      expected: { 'report.json': JSON.stringify(report) },
      assertions: [
        check('total requests', 'json', 'report.json', '/tests/expected/report.json', 'total_requests'),
        check('status counts', 'json', 'report.json', '/tests/expected/report.json', 'status_counts'),
        check('top client', 'json', 'report.json', '/tests/expected/report.json', 'top_client'),
        check('top path by bytes', 'json', 'report.json', '/tests/expected/report.json', 'top_path_by_bytes'),
        check('server error paths', 'json', 'report.json', '/tests/expected/report.json', 'server_error_paths'),
      ],
      tags: ['logs', 'json', 'awk'],
    });
  },
};
