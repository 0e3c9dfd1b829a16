#!/bin/bash
set -euo pipefail
cd /app/photos
find . -type f -size +0 -print0 | xargs -0 sha256sum | sort
python3 - <<'PY'
import hashlib
import os
from pathlib import Path

root = Path("/app/photos")
groups = {}
for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and p.stat().st_size > 0):
    rel = path.relative_to(root).as_posix()
    groups.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), []).append(rel)
lines, saved = [], 0
for paths in groups.values():
    paths.sort(key=lambda p: p.encode())
    if len(paths) < 2:
        continue
    kept, others = paths[0], paths[1:]
    for other in others:
        saved += (root / other).stat().st_size
        (root / other).unlink()
        os.symlink(os.path.relpath(kept, os.path.dirname(other) or "."), root / other)
    lines.append((kept, f"{kept}\t{','.join(others)}\n"))
Path("/app/dupes.txt").write_text("".join(line for _, line in sorted(lines, key=lambda l: l[0].encode())))
Path("/app/saved.txt").write_text(f"{saved}\n")
PY
find . -type l -printf '%p -> %l\n'
cat /app/dupes.txt /app/saved.txt
