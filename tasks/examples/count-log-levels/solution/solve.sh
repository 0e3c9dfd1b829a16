#!/bin/bash
set -euo pipefail
cd /app
# Entries only: a timestamp, then the level in brackets.
grep -oE '^[0-9T:Z-]+ \[(DEBUG|INFO|WARN|ERROR)\]' app.log | grep -oE '[A-Z]+\]$' | tr -d ']' | sort | uniq -c > /tmp/levels
python3 - <<'PY'
import json
counts = {level: 0 for level in ("DEBUG", "INFO", "WARN", "ERROR")}
for line in open("/tmp/levels"):
    n, level = line.split()
    counts[level] = int(n)
json.dump(counts, open("/app/levels.json", "w"), indent=2)
PY
grep -E '^[0-9T:Z-]+ \[ERROR\] ' app.log | awk '{sub(":", "", $3); print $3}' | sort | uniq -c | awk '{print $2, $1}' | sort -k2,2nr -k1,1 > errors.txt
cat levels.json errors.txt
