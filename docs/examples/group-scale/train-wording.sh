#!/bin/bash
# The pool families with the wordings training reads, on fresh data (tasks synth --split train --seed 77, none
# in either seed's train pack): each seed's SFT and PPO checkpoints, greedy and 4 attempts at T 0.7, the
# repro's harness limits. Resumable: rerun to continue.
cd /work/exp
S=/work/runs/trainword/suite.jsonl
models=(
  "s2-sft 2 /work/runs/repro-seed2/sft/checkpoints/step-0000320"
  "s2-rl-dense 2 /work/runs/repro-seed2/rl-dense/checkpoints/step-0000016"
  "s2-rl-dense-batch 2 /work/runs/unscaled-seed2/rl-dense/checkpoints/step-0000016"
  "s2-rl-binary 2 /work/runs/repro-seed2/rl-binary/checkpoints/step-0000016"
  "s1-sft 1 /work/runs/repro-default/sft/checkpoints/step-0000320"
  "s1-rl-dense 1 /work/runs/repro-default/rl-dense/checkpoints/step-0000016"
  "s1-rl-dense-batch40 1 /work/runs/unscaled-seed1/rl-dense/checkpoints/step-0000040"
  "s1-rl-binary 1 /work/runs/repro-default/rl-binary/checkpoints/step-0000016"
)
for m in "${models[@]}"; do
  read name seed ck <<< "$m"
  for kind in greedy avg4; do
    out=/work/runs/trainword/$name-$kind; extra="--temperature 0"
    [ $kind = avg4 ] && extra="--temperature 0.7 --attempts 4"
    [ -f $out.done ] && continue
    if [ -f $out/run.json ]; then args="--resume $out"; else
      args="--suite $S --policy onnx:$ck --out $out --seed $seed --max-turns 6 --max-tokens 576 --agent-timeout 60 --concurrency 8 $extra"; fi
    node bin/t1lab.js eval $args --json > $out.json 2>> /work/runs/trainword/eval.log && touch $out.done
    echo "$name $kind $(date -u +%FT%TZ)" >> /work/runs/trainword/events
  done
done
