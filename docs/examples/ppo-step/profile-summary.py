#!/usr/bin/env python3
"""Sum onnxruntime profiles (T1LAB_ORT_PROFILE) by operator: kernel time, its share, runs; and the kernels
whose tensors are vocabulary-wide (last axis = VOCAB), the head's share.

  T1LAB_ORT_PROFILE=/tmp/prof/p npx tsx docs/examples/ppo-step/update-only.ts RUN_DIR 3 4:1
  python3 docs/examples/ppo-step/profile-summary.py /tmp/prof/p_*.json [--vocab 4096]
"""
import collections
import json
import sys

args = sys.argv[1:]
vocab = 4096
if '--vocab' in args:
    i = args.index('--vocab')
    vocab = int(args[i + 1])
    del args[i:i + 2]
by_op = collections.Counter()
runs = collections.Counter()
vocab_by_op = collections.Counter()
total = 0
for path in args:
    for e in json.load(open(path)):
        if e.get('cat') != 'Node' or not e['name'].endswith('_kernel_time'):
            continue
        op = e['args']['op_name']
        total += e['dur']
        by_op[op] += e['dur']
        runs[op] += 1
        shapes = [list(d.values())[0] for d in e['args'].get('output_type_shape', []) + e['args'].get('input_type_shape', [])]
        if any(len(s) >= 2 and s[-1] == vocab for s in shapes):
            vocab_by_op[op] += e['dur']
print(f'{len(args)} profiles, kernel time {total / 1e6:.1f} s; vocabulary-wide kernels {sum(vocab_by_op.values()) / 1e6:.1f} s')
for op, d in by_op.most_common(20):
    print(f'{op:18s} {d / 1e3:9.0f} ms {100 * d / total:5.1f}%  runs {runs[op]:6d}  vocabulary-wide {vocab_by_op[op] / 1e3:7.0f} ms')
