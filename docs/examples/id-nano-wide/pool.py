import json, sys
kept = {'count-matches', 'extract-archive', 'mail-merge', 'number-theory-batch', 'numeric-integration', 'passwd-audit'}
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seen, out = {}, []
for r in rows:
    fam = r.get('family') or r['id'].rsplit('-', 1)[0]
    seen[fam] = seen.get(fam, 0) + 1
    if seen[fam] > 6 and fam in kept: out.append(r)
open(sys.argv[2], 'w').write(''.join(json.dumps(r) + '\n' for r in out))
print(len(out))
