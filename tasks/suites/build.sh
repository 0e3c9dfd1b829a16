#!/bin/bash
# Rebuilds the committed suites from the task families (docs/readme/synth.md). Every task is audited by
# execution (oracle, no-op, oracle again) and only `ok` tasks are kept; verdicts are cached by content
# hash in $CACHE, so a rerun after a change audits only what changed. Run from the repository root:
#   nice -n 10 bash tasks/suites/build.sh
set -euo pipefail
T1LAB=${T1LAB:-"npx tsx electron/cli/t1lab.ts"}
CACHE=${CACHE:-"${T1LAB_HOME:-$HOME/.local/share/t1-lab}/synth-audits.jsonl"}
CONCURRENCY=${CONCURRENCY:-2}
SEED=2026
OUT=tasks/suites
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

held_out=$($T1LAB tasks families --json | python3 -c 'import json, sys; print(",".join(f["name"] for f in json.load(sys.stdin) if f["heldOut"]))')
train_families=$($T1LAB tasks families --json | python3 -c 'import json, sys; print(",".join(f["name"] for f in json.load(sys.stdin) if not f["heldOut"]))')

# nano-bench: out of distribution (held-out families only), Terminal-Bench 2's mix: 89 tasks, 4 easy /
# 55 medium / 30 hard, categories as close to TB2's as the held-out families allow.
$T1LAB tasks synth --split eval --families "$held_out" --count 130 --seed $SEED --audit --audit-cache "$CACHE" --concurrency "$CONCURRENCY" --out "$WORK/nano-pool.jsonl" --json > "$WORK/nano-pool.json"
$T1LAB tasks rebalance "$WORK/nano-pool.jsonl" --target tb2 --count 89 --seed $SEED --out $OUT/nano-bench.jsonl --json > "$WORK/nano-bench.json"

# long-horizon: tasks whose oracle needs 20+ commands, eval seeds of every family.
$T1LAB tasks synth --split eval --min-commands 20 --count 12 --seed $SEED --audit --audit-cache "$CACHE" --concurrency "$CONCURRENCY" --out $OUT/long-horizon.jsonl --json > "$WORK/long-horizon.json"

# in-distribution held-out: eval seeds (and eval phrasings) of the train families, one pass over them.
$T1LAB tasks synth --split eval --families "$train_families" --count 40 --seed $SEED --audit --audit-cache "$CACHE" --concurrency "$CONCURRENCY" --out $OUT/id-heldout.jsonl --json > "$WORK/id-heldout.json"

# id-nano: in-distribution held-out for the nano curriculum (the 13 families `t1lab repro` trains on by
# default: the easy core families plus four whose program reads fixed file names): eval seeds and eval
# phrasings, 5 tasks per family.
nano_families=write-file,count-matches,rename-files,fix-permissions,replace-text,extract-archive,jsonl-filter,csv-group-sum,measurement-stats,number-theory-batch,mail-merge,passwd-audit,numeric-integration
$T1LAB tasks synth --split eval --families "$nano_families" --count 65 --seed $SEED --audit --audit-cache "$CACHE" --concurrency "$CONCURRENCY" --out $OUT/id-nano.jsonl --json > "$WORK/id-nano.json"

# id-nano-wide: the same 13 families, eval seeds and phrasings, 10 tasks per family (130), for the power to
# see a gain of a few points (docs/examples/id-nano-wide/). Same synth seed: the round-robin draws each
# family's task seeds in order, so its first 65 tasks are id-nano's 65 and the other 65 are new. Fails
# unless every family has exactly 10 (an audit rejection would shift the round-robin).
$T1LAB tasks synth --split eval --families "$nano_families" --count 130 --seed $SEED --audit --audit-cache "$CACHE" --concurrency "$CONCURRENCY" --out $OUT/id-nano-wide.jsonl --json > "$WORK/id-nano-wide.json"
python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["families"]; sys.exit(0 if len(f) == 13 and set(f.values()) == {10} else f"id-nano-wide: not 10 tasks per family: {f}")' "$WORK/id-nano-wide.json"

for s in nano-bench long-horizon id-heldout id-nano id-nano-wide; do
  $T1LAB tasks stats $OUT/$s.jsonl --json > $OUT/$s.stats.json
done
cat "$WORK"/*.json
