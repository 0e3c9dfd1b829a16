#!/bin/bash
# Checks the rotation and writes a CTRF report (/logs/verifier/ctrf.json) with one test per check,
# plus reward.txt (1 when all pass), the way Harbor tasks report.
cd /app/logs || exit 1
results=()
check() { # name, then a command that must succeed
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then results+=("$name|passed"); else results+=("$name|failed"); fi
}
gen() { printf 'generation %s line 1\ngeneration %s line 2\n' "$1" "$1"; }
current() { for i in $(seq 1 40); do printf '2024-03-02T00:%02d:00Z request %d ok\n' "$i" "$i"; done; }

check "new app.log is empty with mode 640" bash -c '[ -f app.log ] && [ ! -s app.log ] && [ "$(stat -c %a app.log)" = 640 ]'
check "app.log.1 holds the previous app.log, uncompressed" bash -c "cmp -s app.log.1 <($(declare -f current); current)"
check "app.log.2.gz is the compressed old app.log.1" bash -c "cmp -s <(gzip -dc app.log.2.gz) <($(declare -f gen); gen 1)"
check "older generations shifted by one" bash -c "$(declare -f gen); for n in 2 3 4; do cmp -s <(gzip -dc app.log.\$((n + 1)).gz) <(gen \$n) || exit 1; done"
check "the oldest generation is gone and nothing else appeared" bash -c "$(declare -f gen); [ ! -e app.log.6.gz ] && ! zgrep -q 'generation 5' app.log* && [ \"\$(ls | sort | paste -sd,)\" = app.log,app.log.1,app.log.2.gz,app.log.3.gz,app.log.4.gz,app.log.5.gz,other.log ] && [ \"\$(cat other.log)\" = untouched ]"

python3 - "${results[@]}" <<'PY'
import json, sys
tests = [dict(zip(("name", "status"), r.rsplit("|", 1))) for r in sys.argv[1:]]
passed = sum(t["status"] == "passed" for t in tests)
report = {"results": {"tool": {"name": "test.sh"}, "summary": {"tests": len(tests), "passed": passed, "failed": len(tests) - passed}, "tests": tests}}
json.dump(report, open("/logs/verifier/ctrf.json", "w"), indent=2)
open("/logs/verifier/reward.txt", "w").write("1\n" if passed == len(tests) else "0\n")
PY
