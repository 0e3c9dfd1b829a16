"""Checks the release. The project's own tests run from the pristine copy in /tests/project_tests, on a
copy of the agent's project, so editing tests/ cannot help."""
import hashlib
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

PROJECT = Path("/app/project")
DIST = Path("/app/dist")
TARBALL = DIST / "calcpkg-1.3.0.tar.gz"
ENV = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/tmp"}


def project_copy(tmp_path):
    work = tmp_path / "project"
    shutil.copytree(PROJECT, work, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    shutil.copytree("/tests/project_tests", work / "tests")
    return work


def python(work, code):
    return subprocess.run(["python3", "-c", code], cwd=work, env=ENV, capture_output=True, text=True, timeout=30)


def test_project_suite_passes_with_pristine_tests(tmp_path):
    work = project_copy(tmp_path)
    r = subprocess.run(["python3", "-m", "unittest", "discover", "-s", "tests"], cwd=work, env=ENV, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]


def test_power_exported(tmp_path):
    r = python(project_copy(tmp_path), "import calcpkg; print(calcpkg.power(2, 10), calcpkg.power(2, -1), calcpkg.power(0, 0))")
    assert r.stdout.split() == ["1024", "0.5", "1"], r.stderr


def test_divide_by_zero_message(tmp_path):
    r = python(project_copy(tmp_path), "from calcpkg import divide\ntry:\n    divide(1, 0)\nexcept ValueError as e:\n    print(e)")
    assert r.stdout.strip() == "cannot divide by zero", r.stderr


def test_cli(tmp_path):
    work = project_copy(tmp_path)
    out = [subprocess.run(["python3", "-m", "calcpkg.cli", *args], cwd=work, env=ENV, capture_output=True, text=True, timeout=30).stdout.strip()
           for args in (["add", "1.5", "2"], ["mul", "2", "3"], ["pow", "3", "4"])]
    assert out == ["3.5", "6", "81"]


def test_version_bumped_everywhere():
    assert re.search(r"^version\s*=\s*1\.3\.0\s*$", (PROJECT / "setup.cfg").read_text(), re.M)
    assert '__version__ = "1.3.0"' in (PROJECT / "calcpkg/__init__.py").read_text()
    readme = (PROJECT / "README.md").read_text()
    assert "Current version: 1.3.0" in readme and "1.2.0" not in readme


def test_changelog_and_readme():
    changelog = (PROJECT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (\S+)", changelog, re.M)
    assert headings[:3] == ["1.3.0", "1.2.0", "1.1.0"]
    section = changelog.split("## 1.3.0", 1)[1].split("## 1.2.0", 1)[0]
    bullets = [l for l in section.splitlines() if l.startswith("- ")]
    assert len(bullets) >= 4 and "power" in section.lower() and "zero" in section.lower()
    assert "`power(base, exp)`" in (PROJECT / "README.md").read_text().split("## Functions", 1)[1]


def test_tarball_contents():
    with tarfile.open(TARBALL, "r:gz") as tar:
        files = sorted(m.name.removeprefix("./") for m in tar.getmembers() if m.isfile())
    assert files == [
        "calcpkg-1.3.0/CHANGELOG.md",
        "calcpkg-1.3.0/README.md",
        "calcpkg-1.3.0/calcpkg/__init__.py",
        "calcpkg-1.3.0/calcpkg/cli.py",
        "calcpkg-1.3.0/calcpkg/ops.py",
        "calcpkg-1.3.0/setup.cfg",
    ]


def test_tarball_holds_the_fixed_code():
    with tarfile.open(TARBALL, "r:gz") as tar:
        for name in ("calcpkg/ops.py", "calcpkg/__init__.py", "CHANGELOG.md"):
            assert tar.extractfile(f"calcpkg-1.3.0/{name}").read() == (PROJECT / name).read_bytes(), name


def test_checksum_file():
    digest = hashlib.sha256(TARBALL.read_bytes()).hexdigest()
    assert (DIST / "SHA256SUMS").read_text() == f"{digest}  calcpkg-1.3.0.tar.gz\n"
