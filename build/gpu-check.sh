#!/usr/bin/env bash
# build/gpu-check.sh — one pass over the CUDA path on a GPU machine (issue 16), sized for ~10 minutes:
#   doctor --json, model init (a micro checkpoint, 2 layers), model check and model sample on the provider,
#   model bench (its figures are CPU ones: the roofline it compares with is the CPU's), and a 2-step PPO
#   smoke with train.provider set. Each part fails soft: its status, figures and error are recorded and
#   the next part runs. The last line on stdout is one JSON summary; exit 1 when any part failed.
# Part time limits sum to 10 minutes (a part past its limit is recorded as "timeout").
# T1LAB_GPU_CHECK_PROVIDER=cpu runs the same pass on the CPU (to test the script without a GPU).
# Needs a built CLI (`npm run build`) and, for CUDA, `npm run setup:cuda` first.
set -uo pipefail
cd "$(dirname "$0")/.."

PROVIDER="${T1LAB_GPU_CHECK_PROVIDER:-cuda}"
WORK="$(mktemp -d -t t1lab-gpu-check-XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export T1LAB_HOME="$WORK/home"
T1LAB=(node bin/t1lab.js)
PARTS="$WORK/parts.jsonl"
: >"$PARTS"

# part NAME TIMEOUT_S CMD...: runs CMD with its stdout in $WORK/NAME.out; records status, seconds, stdout
# (when it is JSON) and the stderr tail.
part() {
  local name="$1" limit="$2"
  shift 2
  echo "==> $name: $*" >&2
  local started=$SECONDS code=0
  timeout --kill-after=10 "$limit" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || code=$?
  node -e '
    const fs = require("node:fs");
    const [name, code, seconds, out, err, file] = process.argv.slice(1);
    let result = null;
    const text = fs.readFileSync(out, "utf8").trim();
    try { result = JSON.parse(text); } catch { result = text ? text.slice(-2000) : null; }
    const status = Number(code) === 0 ? "ok" : Number(code) === 124 || Number(code) === 137 ? "timeout" : "failed";
    const row = { name, status, exitCode: Number(code), seconds: Number(seconds), result };
    if (status !== "ok") row.error = fs.readFileSync(err, "utf8").trim().split("\n").slice(-15).join("\n");
    fs.appendFileSync(file, JSON.stringify(row) + "\n");
  ' "$name" "$code" "$((SECONDS - started))" "$WORK/$name.out" "$WORK/$name.err" "$PARTS"
  echo "    $name: exit $code in $((SECONDS - started)) s" >&2
}

if [ ! -f dist/node/cli.js ]; then part build 120 npm run build --silent; fi
[ "$PROVIDER" = cuda ] && part nvidia-smi 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
part doctor 60 "${T1LAB[@]}" doctor --json
CKPT="$WORK/micro"
part model-init 60 "${T1LAB[@]}" model init --preset micro --set num_hidden_layers=2 --out "$CKPT" --json
part model-check 60 "${T1LAB[@]}" model check "$CKPT" --provider "$PROVIDER" --samples 4 --tokens 32 --json
part model-sample 40 "${T1LAB[@]}" model sample "$CKPT" --provider "$PROVIDER" --prompt "ls -la" --max-tokens 32 --seed 1 --json
part model-bench 150 "${T1LAB[@]}" model bench "$CKPT" --quick --json

# PPO smoke: 2 steps, 2 tasks x group 2, 2 turns of at most 16 tokens, in real sandboxes.
SUITE="$WORK/suite"
mkdir -p "$SUITE"
cp -r tasks/examples/. "$SUITE/" 2>/dev/null
cat >"$WORK/ppo.toml" <<EOF
stage = "ppo"
seed = 1
[model]
checkpoint = "$CKPT"
[data]
path = "$SUITE"
[train]
steps = 2
micro_batch_size = 4
provider = "$PROVIDER"
[optimizer]
lr = 1e-4
[schedule]
kind = "constant"
warmup_steps = 0
[checkpoint]
every = 2
[ppo]
tasks_per_step = 2
group_size = 2
concurrency = 2
max_turns = 2
max_tokens = 16
critic_warmup_steps = 0
epochs = 1
minibatches = 1
EOF
part ppo-smoke 210 "${T1LAB[@]}" train ppo --config "$WORK/ppo.toml" --out "$WORK/ppo-run" --json
[ -f "$WORK/ppo-run/metrics.jsonl" ] && cp "$WORK/ppo-run/metrics.jsonl" "$WORK/ppo-metrics.jsonl"

node -e '
  const fs = require("node:fs");
  const [file, provider, metrics] = process.argv.slice(1);
  const parts = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const rows = fs.existsSync(metrics) ? fs.readFileSync(metrics, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
  const pick = (r) => ({ step: r.step, time_step: r.time_step, time_rollout: r.time_rollout, time_training: r.time_training, time_generation_sum: r.time_generation_sum, time_environment_sum: r.time_environment_sum, train_infer_gap_r3: r.train_infer_gap_r3, reward_dense: r.reward_dense });
  const ppo = parts.find((p) => p.name === "ppo-smoke");
  if (ppo) ppo.steps = rows.map(pick);
  const failed = parts.filter((p) => p.status !== "ok").map((p) => p.name);
  console.log(JSON.stringify({ provider, ok: failed.length === 0, failed, parts }));
  process.exitCode = failed.length ? 1 : 0;
' "$PARTS" "$PROVIDER" "$WORK/ppo-metrics.jsonl"
