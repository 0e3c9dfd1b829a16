#!/bin/bash
set -euo pipefail
cd /app/repo
grep -rnIE 'AKIA[0-9A-Z]{16}|SECRET_ACCESS_KEY|ghp_[A-Za-z0-9]{36}|PRIVATE KEY-----|password *=' --include='*' . || true
python3 - <<'PY'
import json
import re
from pathlib import Path

EXAMPLES = {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
RULES = [
    ("aws-access-key-id", re.compile(r"(AKIA[0-9A-Z]{16})")),
    ("aws-secret-access-key", re.compile(r"SECRET_ACCESS_KEY\w*\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40})")),
    ("github-token", re.compile(r"(ghp_[A-Za-z0-9]{36})")),
    ("password", re.compile(r"\w*password\s*=\s*[\"']?([^\"'\s][^\"'\n]*?)[\"']?\s*$", re.IGNORECASE)),
]
root = Path("/app/repo")
findings, drop = [], []
for path in sorted(p for p in root.rglob("*") if p.is_file()):
    rel = path.relative_to(root).as_posix()
    lines = path.read_text().split("\n")
    changed = False
    for n, line in enumerate(lines, 1):
        if re.match(r"-----BEGIN [A-Z ]*PRIVATE KEY-----", line):
            findings.append({"file": rel, "line": n, "kind": "private-key"})
            drop.append(path)
            continue
        for kind, rule in RULES:
            m = rule.search(line)
            if m and m.group(1) not in EXAMPLES:
                findings.append({"file": rel, "line": n, "kind": kind})
                line = line[: m.start(1)] + "REDACTED" + line[m.end(1):]
                lines[n - 1] = line
                changed = True
    if changed:
        path.write_text("\n".join(lines))
for path in set(drop):
    path.unlink()
findings.sort(key=lambda f: (f["file"], f["line"]))
Path("/app/findings.json").write_text(json.dumps(findings, indent=2) + "\n")
PY
cat /app/findings.json
