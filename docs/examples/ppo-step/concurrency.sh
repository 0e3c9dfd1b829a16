#!/bin/bash
# The nano repro's PPO step by rollout concurrency and overlap: 3 steps of `train ppo` from models/nano-sft
# per setting, on 16 train tasks of the four families the bench uses, seed 7. Arguments: settings to run,
# N (N episodes at once, rollouts overlapping the update) or Ns (N at once, in turn). Writes OUT/summary.txt.
#   bash docs/examples/ppo-step/concurrency.sh OUT 2 8 16 8s
set -euo pipefail
out=$(realpath -m "$1"); shift
mkdir -p "$out"
export T1LAB_HOME="$out/home"
t1lab() { node bin/t1lab.js "$@"; }
[ -f "$out/train.jsonl" ] || t1lab tasks synth --out "$out/train.jsonl" --count 16 --seed 41 --split train \
  --families mail-merge,passwd-audit,number-theory-batch,numeric-integration --json > /dev/null
t1lab train init-config --stage ppo --preset nano > "$out/base.toml"
for c in "$@"; do
  n=${c%s}; async=true; [ "$n" != "$c" ] && async=false
  # The repro's PPO settings (REPRO_FULL.overrides.ppo) with this concurrency and overlap.
  sed -e "s/^concurrency = .*/concurrency = $n/" -e "s/^async = .*/async = $async/" -e 's/^seed = .*/seed = 7/' \
    -e 's/^micro_batch_size = .*/micro_batch_size = 4/' -e 's/^warmup_steps = .*/warmup_steps = 2/' \
    -e 's/^reward = .*/reward = "dense"/' -e 's/^tito = .*/tito = "exact"/' -e 's/^r3 = .*/r3 = "on"/' \
    "$out/base.toml" > "$out/ppo-$c.toml"
  rm -rf "$out/run-$c"
  t1lab train ppo --config "$out/ppo-$c.toml" --model models/nano-sft --data "$out/train.jsonl" --steps 3 \
    --out "$out/run-$c" --json > "$out/run-$c.json" 2> "$out/run-$c.log"
  python3 - "$out/run-$c/metrics.jsonl" "$c" >> "$out/summary.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    print(f"{sys.argv[2]} step {m['step']}: {m['time_step']:.1f} s = rollouts {m['time_rollout']:.1f} + scoring {m['time']['data']:.1f} + update {m['time']['fwd_bwd']:.1f}; loss {m['loss']:.5f}")
PY
done
