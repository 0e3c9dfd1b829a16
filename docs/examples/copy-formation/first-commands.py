#!/usr/bin/env python3
"""Does a policy copy names from its instruction? Over an eval folder's episodes: the file names the
instruction states (words with a file extension) that no other task of its family states (names that
must be read, not remembered), and how many of them the episode's commands contain, in the first command
and in any (fixed names, such as a family's output file, are left out: a memorised program has them); and how many distinct first commands the
tasks of a family got (a policy that writes one memorised command for every task gets 1). A graded
measure too: for each such name, its random part (after the last `_` or `-`, extension left out: `r53` of
`app-r53.log`), the longest piece of it that some command contains, as a share of its length (copied whole:
1; no character: 0), and how many random parts appear whole.

  python3 docs/examples/copy-formation/first-commands.py EVAL_DIR [EVAL_DIR...]
"""
import collections
import glob
import json
import os
import re
import sys

NAME = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]*\.(?:txt|log|csv|json|jsonl|list|cfg|conf|ini|md|dat|tar\.gz|tgz|sh|py|tsv)\b')

for run in sys.argv[1:]:
    names = copied_first = copied_any = 0
    longest_share = 0.0
    random_whole = 0
    firsts = collections.defaultdict(set)
    tasks = collections.Counter()
    episodes = []
    stated = collections.defaultdict(collections.Counter)  # family -> name -> tasks stating it
    for path in sorted(glob.glob(os.path.join(run, 'episodes', '*', 'trajectory.json'))):
        t = json.load(open(path))
        family = os.path.basename(os.path.dirname(path)).rsplit('-', 2)[0]
        episodes.append((family, t))
        stated[family].update(set(NAME.findall(t['instruction'])))
    for family, t in episodes:
        commands = [a.get('command', '') for turn in t['turns'] for a in turn.get('actions') or [] if a.get('tool') == 'bash']
        tasks[family] += 1
        firsts[family].add(commands[0] if commands else '')
        wanted = {n for n in set(NAME.findall(t['instruction'])) if stated[family][n] == 1}
        names += len(wanted)
        copied_first += sum(1 for n in wanted if commands and n in commands[0])
        copied_any += sum(1 for n in wanted if any(n in c for c in commands))
        text = '\n'.join(commands)
        for n in wanted:
            stem = re.split(r'[_-]', n.split('.')[0])[-1]
            random_whole += stem in text
            longest_share += max((k for k in range(1, len(stem) + 1) for i in range(len(stem) - k + 1) if stem[i:i + k] in text), default=0) / len(stem)
    print(f'{run}: {sum(tasks.values())} episodes, {names} task-specific file names stated; in the first command {copied_first} '
          f'({100 * copied_first / max(names, 1):.0f}%), in any command {copied_any} ({100 * copied_any / max(names, 1):.0f}%); '
          f'random parts whole in a command {random_whole}, '
          f'longest piece of one in a command {100 * longest_share / max(names, 1):.0f}% of it on average')
    print('  distinct first commands per family: ' + ', '.join(f'{f} {len(firsts[f])}/{tasks[f]}' for f in sorted(tasks)))
