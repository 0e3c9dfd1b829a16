#!/usr/bin/env python3
"""Sum onnxruntime profiles (T1LAB_ORT_PROFILE) by operator: kernel time, its share, runs; and the kernels
whose tensors are vocabulary-wide (last axis = VOCAB), the head's share. For the matrix products (MatMul,
FusedMatMul, Gemm) it also counts the FLOPs they executed (2 x output elements x the inner dimension, read
from the profiled shapes) and their rate while they ran, by the inner dimension's size: how fast the
products are inside the graph, as against their shapes timed alone (gemm-shapes.ts).

  T1LAB_ORT_PROFILE=/tmp/prof/p npx tsx docs/examples/ppo-step/update-only.ts RUN_DIR 3 4:1
  python3 docs/examples/ppo-step/profile-summary.py /tmp/prof/p_*.json [--vocab 4096] [--last SECONDS]

--last S: of the last S seconds of the profiled process (each file's start time is in its name), the share
spent inside kernels and inside session runs: what the graph's executor and the host code around it cost.
"""
import collections
import datetime
import json
import re
import sys

args = sys.argv[1:]
vocab = 4096
if '--vocab' in args:
    i = args.index('--vocab')
    vocab = int(args[i + 1])
    del args[i:i + 2]
last = None
if '--last' in args:
    i = args.index('--last')
    last = float(args[i + 1])
    del args[i:i + 2]
timeline = []  # (absolute start in microseconds, duration, kind)


def file_start_us(path):
    m = re.search(r'_(\d{4}-\d\d-\d\d)_(\d\d)-(\d\d)-(\d\d)_(\d+)\.json$', path)
    t = datetime.datetime.strptime(f'{m[1]} {m[2]}:{m[3]}:{m[4]}', '%Y-%m-%d %H:%M:%S')
    return t.timestamp() * 1e6 + int(m[5]) * 1e3


by_op = collections.Counter()
runs = collections.Counter()
vocab_by_op = collections.Counter()
total = 0
MATMULS = ('MatMul', 'FusedMatMul', 'Gemm')
mm = collections.defaultdict(lambda: [0, 0, 0])  # by inner-dimension class: FLOPs, microseconds, runs


def inner_class(k):
    return 'inner dim <= 64 (attention scores, kv)' if k <= 64 else ('inner dim 65-256' if k <= 256 else 'inner dim > 256 (weight gradients, attention context)')


for path in args:
    start = file_start_us(path) if last else 0
    for e in json.load(open(path)):
        if last and e.get('cat') == 'Session' and e['name'] == 'model_run':
            timeline.append((start + e['ts'], e['dur'], 'run'))
        if e.get('cat') != 'Node' or not e['name'].endswith('_kernel_time'):
            continue
        op = e['args']['op_name']
        if last:
            timeline.append((start + e['ts'], e['dur'], 'matmul' if op in MATMULS else 'kernel'))
        total += e['dur']
        by_op[op] += e['dur']
        runs[op] += 1
        shapes = [list(d.values())[0] for d in e['args'].get('output_type_shape', []) + e['args'].get('input_type_shape', [])]
        if any(len(s) >= 2 and s[-1] == vocab for s in shapes):
            vocab_by_op[op] += e['dur']
        if op in MATMULS:
            a = list(e['args']['input_type_shape'][0].values())[0]
            out = list(e['args']['output_type_shape'][0].values())[0]
            m = out[-2]
            # A is [.., m, k] or, transposed, [.., k, m]: the inner dimension is its other axis.
            k = a[-1] if a[-2] == m else a[-2]
            elements = 1
            for d in out:
                elements *= d
            for key in (inner_class(k), 'all'):
                mm[key][0] += 2 * elements * k
                mm[key][1] += e['dur']
                mm[key][2] += 1
print(f'{len(args)} profiles, kernel time {total / 1e6:.1f} s; vocabulary-wide kernels {sum(vocab_by_op.values()) / 1e6:.1f} s')
for op, d in by_op.most_common(20):
    print(f'{op:18s} {d / 1e3:9.0f} ms {100 * d / total:5.1f}%  runs {runs[op]:6d}  vocabulary-wide {vocab_by_op[op] / 1e3:7.0f} ms')
if mm['all'][2]:
    print('matrix products: executed FLOPs and their rate while running')
    for key in sorted(mm, key=lambda k: -mm[k][1]):
        f, us, n = mm[key]
        print(f'  {key:52s} {f / 1e9:8.1f} GFLOP {us / 1e3:8.0f} ms  runs {n:6d}  {f / us / 1e3:6.1f} GFLOP/s')
if last:
    end = max(t + d for t, d, _ in timeline)
    inside = collections.Counter()
    for t, d, kind in timeline:
        if t >= end - last * 1e6:
            inside[kind] += d
    kernels = inside['kernel'] + inside['matmul']
    print(f'last {last:g} s: kernels {kernels / 1e6:.2f} s ({kernels / last / 1e4:.0f}% of the wall, matrix products '
          f'{100 * inside["matmul"] / max(kernels, 1):.0f}% of it), session runs {inside["run"] / 1e6:.2f} s '
          f'({inside["run"] / last / 1e4:.0f}%)')
