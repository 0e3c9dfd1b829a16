#!/usr/bin/env python3
"""Per-family table of an outcomes.jsonl with two models (greedy, one attempt per task), as markdown.

    python3 docs/examples/id-nano-wide/per-family.py OUTCOMES.jsonl MODEL_A MODEL_B [SUBSET.jsonl]

For each family: tasks, resolved by A and by B, mean dense reward of each. The family is the task id's
prefix (`<family>-<suffix>`): outcomes.jsonl's `family` field holds the task's category. With SUBSET (a suite whose
tasks are some of these, e.g. tasks/suites/id-nano.jsonl) the resolved counts are also split into the
tasks in SUBSET and the others, and each part gets McNemar's exact test (two-sided binomial on the
discordant pairs: b = A resolved and B not, c = the reverse).
"""
import json
import sys
from math import comb


def mcnemar(pairs):
    b = sum(1 for a, x in pairs if a and not x)
    c = sum(1 for a, x in pairs if x and not a)
    n = b + c
    p = 1.0 if n == 0 else min(1.0, 2 * sum(comb(n, i) for i in range(min(b, c) + 1)) / 2**n)
    return b, c, p


def main(path, model_a, model_b, subset_path=None):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    by = {}
    for r in rows:
        if r['model'] in (model_a, model_b):
            if r['model'] in by.get(r['task'], {}):
                sys.exit(f"{r['task']}: more than one attempt per task; this table is for greedy runs")
            r['family'] = r['task'].rsplit('-', 1)[0]
            by.setdefault(r['task'], {})[r['model']] = r
    tasks = {t: v for t, v in by.items() if model_a in v and model_b in v}
    subset = None
    if subset_path:
        subset = {json.loads(line)['id'] for line in open(subset_path) if line.strip()}
    families = sorted({v[model_a]['family'] for v in tasks.values()})
    head = ['family', 'tasks', f'{model_a} resolved', f'{model_b} resolved', f'{model_a} dense', f'{model_b} dense']
    if subset is not None:
        head[2:2] = [f'in subset ({model_a} / {model_b})', f'new ({model_a} / {model_b})']
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))

    def line(name, ts):
        n = len(ts)
        ra = sum(bool(tasks[t][model_a]['resolved']) for t in ts)
        rb = sum(bool(tasks[t][model_b]['resolved']) for t in ts)
        da = sum(tasks[t][model_a]['dense'] for t in ts) / n
        db = sum(tasks[t][model_b]['dense'] for t in ts) / n
        cells = [name, str(n), f'{ra}', f'{rb}', f'{da:.2f}', f'{db:.2f}']
        if subset is not None:
            ins = [t for t in ts if t in subset]
            new = [t for t in ts if t not in subset]
            part = lambda p: f"{sum(bool(tasks[t][model_a]['resolved']) for t in p)} / {sum(bool(tasks[t][model_b]['resolved']) for t in p)} of {len(p)}"
            cells[2:2] = [part(ins), part(new)]
        print('| ' + ' | '.join(cells) + ' |')

    for f in families:
        line(f, [t for t, v in tasks.items() if v[model_a]['family'] == f])
    line('**all**', list(tasks))
    print()
    parts = [('all', list(tasks))]
    if subset is not None:
        parts += [('in subset', [t for t in tasks if t in subset]), ('new', [t for t in tasks if t not in subset])]
    for name, ts in parts:
        b, c, p = mcnemar([(bool(tasks[t][model_a]['resolved']), bool(tasks[t][model_b]['resolved'])) for t in ts])
        print(f'{name}: {len(ts)} tasks, McNemar b = {b} ({model_a} only), c = {c} ({model_b} only), exact p = {p:.3g}')


if __name__ == '__main__':
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
