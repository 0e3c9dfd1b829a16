#!/bin/bash
# avg@2 of models/nano-sft on id-nano at T 0.7 (130 episodes, the nano budget), seed 11, twice at each
# concurrency: wall time, resolved share, and how many episodes two runs sampled identically.
#   bash docs/examples/ppo-step/eval-concurrency.sh OUT
set -euo pipefail
out=$(realpath -m "$1"); mkdir -p "$out"
for run in a b; do
  for c in 2 8; do
    rm -rf "$out/c$c$run"; start=$(date +%s)
    node bin/t1lab.js eval --suite tasks/suites/id-nano.jsonl --policy onnx:models/nano-sft --max-turns 6 --max-tokens 576 \
      --agent-timeout 60 --concurrency $c --temperature 0.7 --attempts 2 --seed 11 --out "$out/c$c$run" --json > "$out/c$c$run.json"
    echo "c$c$run wall $(( $(date +%s) - start )) s" >> "$out/summary.txt"
  done
done
python3 - "$out" >> "$out/summary.txt" <<'PY'
import json, sys
def load(d):
    return {e['key']: (e['tokens'], e['resolved']) for e in map(json.loads, open(f'{sys.argv[1]}/{d}/episodes.jsonl'))}
for x, y in [('c2a', 'c2b'), ('c8a', 'c8b'), ('c2b', 'c8b')]:
    a, b = load(x), load(y)
    print(f"{x} vs {y}: {sum(a[k] == b.get(k) for k in a)} of {len(a)} episodes with the same tokens and outcome; resolved {sum(v[1] for v in a.values())} and {sum(v[1] for v in b.values())}")
PY
