#!/bin/bash
set -euo pipefail
cd /app
awk -F: '$3 >= 1000 && $3 != 65534 && $7 !~ /(nologin|false)$/' data/passwd
python3 - <<'PY'
rows = []
groups = {}
members = {}
for line in open("/app/data/group"):
    name, _, gid, users = line.rstrip("\n").split(":")
    groups[gid] = name
    for user in filter(None, users.split(",")):
        members.setdefault(user, set()).add(name)
for line in open("/app/data/passwd"):
    name, _, uid, gid, _gecos, home, shell = line.rstrip("\n").split(":")
    if int(uid) < 1000 or int(uid) == 65534 or shell.endswith(("nologin", "false")):
        continue
    names = members.get(name, set()) | {groups[gid]}
    rows.append((int(uid), f"{name}\t{uid}\t{home}\t{','.join(sorted(names))}"))
open("/app/users.tsv", "w").write("".join(r + "\n" for _, r in sorted(rows)))
PY
cat users.tsv
