#!/usr/bin/env python3
"""Turn-level figures of a `t1lab eval` run folder against its suite (a pack):
valid tool calls, the right program in the first command, instruction names copied, resolved.
usage: analyze.py RUN_DIR SUITE.jsonl [--json]"""
import glob, json, os, re, shlex, sys, collections

def solve_commands(task):
    f = {x['path']: x.get('text') for x in task['files']}
    lines = [l for l in (f.get('solution/solve.sh') or '').split('\n') if l.strip() and not l.startswith('#')]
    out = []
    for l in lines:
        s = l.strip()
        if re.match(r'^set(\s+[-+]\w+)(\s+([-+]\w+|[a-z]+))*\s*$', s) or re.match(r'^cd\s+[\'"]?/app/?[\'"]?$', s):
            continue
        out.append(s)
    return out, f['instruction.md'], re.search(r'family = "([^"]+)"', f['task.toml']).group(1)

def program(cmd):
    try:
        w = shlex.split(cmd.split('\n')[0], posix=True)
    except ValueError:
        w = cmd.split()
    return w[0] if w else ''

def names(cmd, instruction):
    """Words of the oracle's first command (3+ chars, quotes stripped) that also occur in the instruction:
    the instance's names a policy has to copy."""
    words = set(re.findall(r"[A-Za-z0-9_./:-]{3,}", cmd))
    return {w.strip('./:') for w in words if w.strip('./:') and w.strip('./:') in instruction and not w.startswith('-')}

def main():
    run, suite = sys.argv[1], sys.argv[2]
    tasks = {}
    for line in open(suite):
        t = json.loads(line)
        tasks[t['id']] = solve_commands(t)
    turns = valid = 0
    first = right = copied = names_total = names_hit = 0
    resolved = 0; episodes = 0; reward = 0.0
    fam = collections.defaultdict(lambda: [0, 0])
    for p in glob.glob(os.path.join(run, '**', 'trajectory.json'), recursive=True):
        t = json.load(open(p))
        tid = t['task']['id'] if isinstance(t['task'], dict) else t['task']
        oracle, instruction, family = tasks.get(tid, ([], '', '?'))
        episodes += 1
        resolved += bool(t.get('resolved'))
        reward += (t.get('reward') or {}).get('fraction', 0) or 0
        fam[family][0] += 1; fam[family][1] += bool(t.get('resolved'))
        cmds = []
        for turn in t['turns']:
            turns += 1
            ok = turn.get('parseError') is None and bool(turn.get('actions'))
            valid += ok
            if ok:
                cmds += [a.get('command', '') for a in turn['actions'] if a.get('tool') == 'bash']
        if oracle:
            first += 1
            c = cmds[0] if cmds else ''
            right += program(c) == program(oracle[0])
            want = names(oracle[0], instruction)
            hit = {w for w in want if w in c}
            names_total += len(want); names_hit += len(hit)
            copied += bool(want) and hit == want
    out = {
        'run': run, 'episodes': episodes, 'turns': turns,
        'validCallShare': round(valid / max(1, turns), 3),
        'rightProgramShare': round(right / max(1, first), 3),
        'allNamesCopiedShare': round(copied / max(1, first), 3),
        'namesCopiedShare': round(names_hit / max(1, names_total), 3),
        'resolved': resolved, 'resolvedShare': round(resolved / max(1, episodes), 3),
        'meanRewardFraction': round(reward / max(1, episodes), 3),
        'resolvedByFamily': {k: f'{v[1]}/{v[0]}' for k, v in sorted(fam.items())},
    }
    man = os.path.join(run, 'run.json')
    if os.path.exists(man):
        m = json.load(open(man))
        cfg = m.get('config', m.get('manifest', {}).get('config', {}))
        out['policySettings'] = cfg.get('policySettings')
    print(json.dumps(out))

main()
