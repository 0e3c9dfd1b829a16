#!/usr/bin/env python3
"""What a PPO step forwards twice: per step of a PPO run folder, the positions of the samples (the ledger's
exact ids), the share that is a prefix every episode of its group shares (system prompt, tools, instruction:
the positions before a group's first sampled token that all its samples agree on), the share a forward of
that prefix once per group would save (all copies but one), and the share in samples whose ids and routing
repeat another sample of the same group exactly.

Usage: python3 shared-tokens.py RUN_DIR   (a `t1lab train ppo` output folder with rollouts/step-*/)"""
import collections, glob, json, os, sys

run = sys.argv[1]
total = prefix = saved = dup = samples = dup_samples = 0
print('step          samples  positions  shared-prefix  saved-once  duplicate')
for step in sorted(glob.glob(os.path.join(run, 'rollouts', 'step-*'))):
    groups = collections.defaultdict(list)
    for d in sorted(os.listdir(os.path.join(step, 'episodes'))):
        t = json.load(open(os.path.join(step, 'episodes', d, 'trajectory.json')))
        for s in t['ledger']['samples']:
            groups[d.rsplit('-a', 1)[0]].append(s)
    s_total = s_prefix = s_saved = s_dup = s_n = 0
    for members in groups.values():
        first_loss = min(s['mask'].index(1) if 1 in s['mask'] else len(s['mask']) for s in members)
        common = 0
        ids0 = members[0]['ids']
        while common < first_loss and all(len(m['ids']) > common and m['ids'][common] == ids0[common] for m in members):
            common += 1
        seen = set()
        for m in members:
            n = len(m['ids'])
            s_total += n
            s_n += 1
            if len(members) > 1:
                s_prefix += common
        if len(members) > 1:
            s_saved += common * (len(members) - 1)
        for m in members:
            n = len(m['ids'])
            key = (tuple(m['ids']), json.dumps(m.get('routing')))
            if key in seen:
                s_dup += n
                dup_samples += 1
            seen.add(key)
    total += s_total; prefix += s_prefix; saved += s_saved; dup += s_dup; samples += s_n
    print(f'{os.path.basename(step)}  {s_n:7d}  {s_total:9d}  {s_prefix / s_total:13.1%}  {s_saved / s_total:10.1%}  {s_dup / s_total:9.1%}')
print(f'all           {samples:7d}  {total:9d}  {prefix / total:13.1%}  {saved / total:10.1%}  {dup / total:9.1%}   ({dup_samples} duplicate samples)')
