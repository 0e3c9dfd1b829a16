"""Runs /app/backup.sh on fresh folders made by the test (never on the agent's own test data)."""
import hashlib
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

SCRIPT = "/app/backup.sh"


def make_source(root: Path, name: str) -> Path:
    src = root / name
    (src / "sub dir").mkdir(parents=True)
    (src / "a.txt").write_text("alpha\n")
    (src / "sub dir" / "b file.txt").write_text("beta\n")
    (src / ".hidden").write_text("secret-ish\n")
    return src


def run(args, cwd):
    return subprocess.run(["bash", SCRIPT, *args], cwd=cwd, capture_output=True, text=True, timeout=30)


def members(archive: Path):
    with tarfile.open(archive) as tar:
        return sorted(m.name.removeprefix("./") for m in tar.getmembers() if m.isfile())


def test_spaces_in_paths(tmp_path):
    src = make_source(tmp_path, "my data")
    r = run([str(src), str(tmp_path / "out dir")], tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out dir" / "backup-my data.tar.gz").is_file()


def test_archive_holds_the_folder_with_hidden_files(tmp_path):
    src = make_source(tmp_path, "data")
    assert run([str(src), str(tmp_path / "out")], tmp_path).returncode == 0
    assert members(tmp_path / "out" / "backup-data.tar.gz") == ["data/.hidden", "data/a.txt", "data/sub dir/b file.txt"]


def test_relative_paths(tmp_path):
    make_source(tmp_path, "data")
    r = run(["data", "out"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "backup-data.tar.gz").is_file()


def test_existing_destination(tmp_path):
    src = make_source(tmp_path, "data")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("keep\n")
    r = run([str(src), str(tmp_path / "out")], tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "backup-data.tar.gz").is_file() and (tmp_path / "out" / "keep.txt").is_file()


def test_checksum_file_names_the_archive(tmp_path):
    src = make_source(tmp_path, "data")
    assert run([str(src), str(tmp_path / "out")], tmp_path).returncode == 0
    out = tmp_path / "out"
    digest = hashlib.sha256((out / "backup-data.tar.gz").read_bytes()).hexdigest()
    assert (out / "backup-data.sha256").read_text() == f"{digest}  backup-data.tar.gz\n"
    assert subprocess.run(["sha256sum", "-c", "backup-data.sha256"], cwd=out, capture_output=True).returncode == 0


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_bad_source(tmp_path, kind):
    src = tmp_path / "nope"
    if kind == "file":
        src.write_text("not a folder\n")
    r = run([str(src), str(tmp_path / "out")], tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip() != ""
    assert not (tmp_path / "out").exists()
