#!/bin/bash
# PPO steps on a probe's pool, with a build that waits out commands reading the terminal and with one that
# returns at once: 8 steps each of the copy-drills example's PPO run (the seed-1 sft-drills warm start, the
# pool its own probe picked, seed 1), back to back on the quiet machine. Arguments: the warm start, the
# pool, the PPO config (docs/examples/copy-drills/README.md makes all three), a checkout of each build
# (npm run build in each), and an output folder. Writes OUT/pool-input-wait.txt.
#   bash docs/examples/ppo-step/pool-input-wait.sh SFT POOL.jsonl PPO.toml OLD_CHECKOUT NEW_CHECKOUT OUT
set -euo pipefail
sft=$(realpath "$1"); pool=$(realpath "$2"); config=$(realpath "$3"); old=$(realpath "$4"); new=$(realpath "$5")
out=$(realpath -m "$6")
mkdir -p "$out"
for build in old new; do
  dir=$old; [ "$build" = new ] && dir=$new
  rm -rf "$out/$build"
  (cd "$dir" && node bin/t1lab.js train ppo --config "$config" --model "$sft" --data "$pool" --steps 8 --seed 1 \
    --out "$out/$build" --json > "$out/$build.json" 2> "$out/$build.log")
done
python3 - "$out" > "$out/pool-input-wait.txt" <<'PY'
import json, os, sys
out = sys.argv[1]
for build in ("old", "new"):
    run = os.path.join(out, build)
    steps = [json.loads(l) for l in open(os.path.join(run, "metrics.jsonl"))]
    for m in steps:
        print(f"{build} step {m['step']}: {m['time_step']:.1f} s = rollouts {m['time_rollout']:.1f} (generation {m['time_generation']:.1f}) + training {m['time_training']:.1f}; resolved {m['resolved']:.3f}")
    eps, stops, waits, timed, stuck = 0, {}, 0, 0, 0.0
    for m in steps:
        folder = os.path.join(run, "rollouts", f"step-{m['step']:07d}")
        for line in open(os.path.join(folder, "episodes.jsonl")):
            e = json.loads(line)
            eps += 1
            stops[e["stopReason"]] = stops.get(e["stopReason"], 0) + 1
            t = json.load(open(os.path.join(folder, "episodes", e["key"], "trajectory.json")))
            for turn in t["turns"]:
                for x in turn.get("executions", []):
                    waits += 1 if x.get("waitingForInput") else 0
                    if x["timedOut"]:
                        timed += 1
                        stuck += x["durationMs"] / 1000
    mean = sum(m["time_step"] for m in steps) / len(steps)
    roll = sum(m["time_rollout"] for m in steps) / len(steps)
    print(f"{build}: mean step {mean:.1f} s, mean rollouts {roll:.1f} s; {eps} episodes, stop reasons {json.dumps(stops, sort_keys=True)}; "
          f"commands timed out {timed} ({stuck:.0f} s), returned waiting for input {waits}")
PY
cat "$out/pool-input-wait.txt"
