#!/bin/bash
# The oracle, one step at a time as an agent would type it (20+ commands).
set -euo pipefail
cd /app
ls -la legacy legacy/services
cat legacy/README
cat legacy/services/web.conf
cat legacy/services/api.conf
cat legacy/services/worker.conf
cat legacy/services/cron.conf
cat legacy/services/metrics.conf
cat legacy/services/admin.conf
grep -H '^enabled' legacy/services/*.conf
grep -H '^port' legacy/services/*.conf
mkdir -p new/services new/env archive
python3 - <<'PY'
import configparser, json
from pathlib import Path
services = []
for path in sorted(Path("/app/legacy/services").glob("*.conf")):
    ini = configparser.ConfigParser(interpolation=None)
    ini.optionxform = str
    ini.read(path)
    s = ini["service"]
    services.append({
        "name": s["name"], "enabled": s.getboolean("enabled"), "port": s.getint("port") if "port" in s else None,
        "user": s["user"], "command": s["command"], "env": dict(ini["env"]) if ini.has_section("env") else {},
    })
Path("/tmp/services.json").write_text(json.dumps(services, indent=2))
PY
python3 -c 'import json; [print(s["name"], s["enabled"], s["port"], s["user"]) for s in json.load(open("/tmp/services.json"))]'
python3 - <<'PY'
import json
services = json.load(open("/tmp/services.json"))
enabled = sorted((s for s in services if s["enabled"]), key=lambda s: s["name"])
taken, moves = {s["port"] for s in enabled if s["port"]}, []
owners = {}
for s in enabled:
    if s["port"] is None:
        continue
    if s["port"] in owners:
        new = 9000
        while new in taken:
            new += 1
        taken.add(new)
        moves.append(f"reassigned: {s['name']} {s['port']}->{new}")
        s["port"] = new
    owners[s["port"]] = s["name"]
json.dump({"enabled": enabled, "moves": moves, "disabled": sorted(s["name"] for s in services if not s["enabled"])}, open("/tmp/plan.json", "w"), indent=2)
PY
cat /tmp/plan.json
python3 - <<'PY'
import json
plan = json.load(open("/tmp/plan.json"))
for s in plan["enabled"]:
    user = f"svc-{s['name']}" if s["user"] == "root" else s["user"]
    command = s["command"].replace("${port}", str(s["port"])) if s["port"] is not None else s["command"]
    doc = {"name": s["name"], "port": s["port"], "user": user, "command": command, "env_file": f"/app/new/env/{s['name']}.env"}
    open(f"/app/new/services/{s['name']}.json", "w").write(json.dumps(doc, indent=2) + "\n")
PY
python3 - <<'PY'
import json
for s in json.load(open("/tmp/plan.json"))["enabled"]:
    open(f"/app/new/env/{s['name']}.env", "w").write("".join(f"{k}={v}\n" for k, v in sorted(s["env"].items())))
PY
chmod 600 new/env/*.env
python3 -c 'import json; print("\n".join(json.load(open("/tmp/plan.json"))["disabled"]))' > new/disabled.txt
python3 -c 'import json; json.dump([{"name": s["name"], "port": s["port"]} for s in json.load(open("/tmp/plan.json"))["enabled"]], open("/app/new/index.json", "w"), indent=2)'
cat new/services/api.json new/index.json new/disabled.txt
tar -czf archive/legacy.tar.gz legacy
tar -tzf archive/legacy.tar.gz
rm -rf legacy
python3 - <<'PY'
import json
plan = json.load(open("/tmp/plan.json"))
lines = ["# Service migration", "", f"migrated: {len(plan['enabled'])}", f"disabled: {len(plan['disabled'])}", *plan["moves"], ""]
open("/app/MIGRATION.md", "w").write("\n".join(lines))
PY
cat MIGRATION.md
ls -lR new
