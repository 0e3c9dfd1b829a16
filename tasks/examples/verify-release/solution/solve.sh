#!/bin/bash
set -euo pipefail
cd /app/release
ls -laR
cat SHA256SUMS.sig SHA256SUMS.old.sig
key=$(tr -d '\n' < /app/keys/release.key)
sig=$(openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" SHA256SUMS 2>/dev/null | awk '{print $NF}' || true)
echo "openssl says: ${sig:-unavailable}"
python3 - <<'PY'
import hashlib
import hmac
import json
import shutil
from pathlib import Path

release, quarantine = Path("/app/release"), Path("/app/quarantine")
key = bytes.fromhex(Path("/app/keys/release.key").read_text().strip())
manifest = (release / "SHA256SUMS").read_bytes()
expected_sig = (release / "SHA256SUMS.sig").read_text().strip()
valid = hmac.compare_digest(hmac.new(key, manifest, hashlib.sha256).hexdigest(), expected_sig)
listed = {}
for line in manifest.decode().splitlines():
    digest, path = line.split(None, 1)
    listed[path.lstrip("*")] = digest
present = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file() and not p.name.startswith("SHA256SUMS")}
report = {"signature": "valid" if valid else "invalid", "ok": [], "tampered": [], "missing": [], "unlisted": []}
for path, digest in listed.items():
    if path not in present:
        report["missing"].append(path)
    elif hashlib.sha256((release / path).read_bytes()).hexdigest() == digest:
        report["ok"].append(path)
    else:
        report["tampered"].append(path)
report["unlisted"] = sorted(present - set(listed))
for key_ in report:
    if isinstance(report[key_], list):
        report[key_].sort()
for path in report["tampered"]:
    (quarantine / path).parent.mkdir(parents=True, exist_ok=True)
    shutil.move(release / path, quarantine / path)
for path in report["unlisted"]:
    (quarantine / "unlisted" / path).parent.mkdir(parents=True, exist_ok=True)
    shutil.move(release / path, quarantine / "unlisted" / path)
Path("/app/verify-report.json").write_text(json.dumps(report, indent=2) + "\n")
PY
cat /app/verify-report.json
find /app/quarantine -type f
