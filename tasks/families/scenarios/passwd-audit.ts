/** Audit copies of /etc/passwd and /etc/group: human accounts, shells, admins, problems. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, FIRST_NAMES, LAST_NAMES, SERVICES } from './kit/pools';
import type { TaskFamily } from '../types';

export const passwdAudit: TaskFamily = {
  name: 'passwd-audit',
  category: 'system-administration',
  summary: 'Report human accounts, login shells, sudo members and duplicate UIDs from passwd/group copies',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { split }) {
    const passwd = [
      'root:x:0:0:root:/root:/bin/bash',
      'daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin',
      'bin:x:2:2:bin:/bin:/usr/sbin/nologin',
    ];
    const system = rng.sample(SERVICES, rng.int(2, 5));
    system.forEach((s, i) => passwd.push(`${s}:x:${100 + i}:${100 + i}:${s} daemon:/var/lib/${s}:/usr/sbin/nologin`));
    const names = new Set<string>();
    while (names.size < rng.int(4, 9))
      names.add(`${rng.pick(FIRST_NAMES)}${rng.bool(0.5) ? rng.pick(LAST_NAMES)[0] : ''}`);
    const humans = [...names];
    const uids = new Map<string, number>();
    let uid = rng.int(1000, 1003);
    for (const h of humans) uids.set(h, uid++);
    const dupOf = rng.pick(humans);
    const dupUser = `${dupOf}2`;
    uids.set(dupUser, uids.get(dupOf)!);
    const shells = new Map<string, string>();
    for (const [h, u] of uids) {
      const shell = rng.pick(['/bin/bash', '/bin/bash', '/bin/zsh', '/bin/sh', '/usr/sbin/nologin']);
      shells.set(h, shell);
      passwd.push(`${h}:x:${u}:${u}:${h}:/home/${h}:${shell}`);
    }
    passwd.push(`nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin`);
    const all = [...uids.keys()];
    const sudo = rng.sample(all, rng.int(1, 3));
    const group = ['root:x:0:', `sudo:x:27:${sudo.join(',')}`, `users:x:100:${rng.sample(all, 3).join(',')}`];
    const order = rng.shuffle(passwd.slice(3));
    const passwdText = [...passwd.slice(0, 3), ...order].join('\n') + '\n';
    const human = all.filter((h) => uids.get(h)! >= 1000).sort(byCodePoint);
    const login = human.filter((h) => shells.get(h) !== '/usr/sbin/nologin');
    const report = {
      human_users: human,
      login_users: login,
      sudo_members: [...sudo].sort(byCodePoint),
      duplicate_uids: { [String(uids.get(dupOf))]: [dupOf, dupUser].sort(byCodePoint) },
      shell_counts: Object.fromEntries(
        [...new Set(human.map((h) => shells.get(h)!))]
          .sort(byCodePoint)
          .map((s) => [s, human.filter((h) => shells.get(h) === s).length]),
      ),
    };
    const instruction = phrase(rng, split, [
      `/app/etc/passwd and /app/etc/group are copies from a server. Write /app/audit.json with: \`human_users\` (sorted names with UID 1000..65533), \`login_users\` (those of them whose shell is not /usr/sbin/nologin, sorted), \`sudo_members\` (sorted members of group sudo), \`duplicate_uids\` (object: UID as string -> sorted list of user names sharing it, only UIDs used more than once), \`shell_counts\` (shell -> number of human users using it).`,
      `Account audit: from /app/etc/passwd and /app/etc/group produce /app/audit.json = {"human_users": [...], "login_users": [...], "sudo_members": [...], "duplicate_uids": {"uid": [names]}, "shell_counts": {"shell": n}}. Human = UID between 1000 and 65533; login = human with a shell other than /usr/sbin/nologin; all lists sorted.`,
      `Review the user database copy in /app/etc. I need /app/audit.json containing human_users (UID ≥ 1000, excluding nobody's 65534), login_users (human users that can log in, i.e. shell != /usr/sbin/nologin), sudo_members (from group sudo), duplicate_uids (uid -> names, only duplicates) and shell_counts (over human users). Sort every list.`,
    ]);
    return buildTask(SCENARIO, {
      family: passwdAudit,
      difficulty: 'easy',
      split,
      instruction,
      files: { 'etc/passwd': passwdText, 'etc/group': group.join('\n') + '\n' },
      solve: `cat etc/passwd etc/group
python3 - <<'PY'
import json
from collections import Counter, defaultdict
users = [l.strip().split(":") for l in open("etc/passwd") if l.strip()]
human = sorted(u[0] for u in users if 1000 <= int(u[2]) <= 65533)
shell = {u[0]: u[6] for u in users}
by_uid = defaultdict(list)
for u in users:
    by_uid[u[2]].append(u[0])
sudo = next(l.strip().split(":")[3] for l in open("etc/group") if l.startswith("sudo:"))
json.dump({
    "human_users": human,
    "login_users": [h for h in human if shell[h] != "/usr/sbin/nologin"],
    "sudo_members": sorted(x for x in sudo.split(",") if x),
    "duplicate_uids": {k: sorted(v) for k, v in by_uid.items() if len(v) > 1},
    "shell_counts": dict(sorted(Counter(shell[h] for h in human).items())),
}, open("audit.json", "w"), indent=2)
PY
cat audit.json`,
      expected: { 'audit.json': JSON.stringify(report) },
      assertions: ['human_users', 'login_users', 'sudo_members', 'duplicate_uids', 'shell_counts'].map((k) =>
        check(k.replace('_', ' '), 'json', 'audit.json', '/tests/expected/audit.json', k),
      ),
      tags: ['passwd', 'users', 'audit'],
    });
  },
};
