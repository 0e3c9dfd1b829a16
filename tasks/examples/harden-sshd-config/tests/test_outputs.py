"""Reads the hardened sshd_config; nothing of the workspace is executed."""
import hashlib
from pathlib import Path

CONF = Path("/app/etc/ssh/sshd_config")
ORIG = Path("/app/etc/ssh/sshd_config.orig")
ORIG_SHA256 = "2b8a6e20bdaf7529218f8f36cfecfb848ff1153a04c40745f9412374ab010cd7"
MANAGED = {"port", "permitrootlogin", "passwordauthentication", "x11forwarding", "allowusers"}


def global_section():
    lines = CONF.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().lower().startswith("match "):
            return lines[:i], lines[i:]
    return lines, []


def settings(name):
    head, _ = global_section()
    return [" ".join(l.split()[1:]) for l in head if l.split() and l.split()[0].lower() == name.lower()]


def unmanaged(lines):
    """Lines other than the five settings and their commented defaults."""
    out = []
    for l in lines:
        word = l.lstrip("#").split()[0].lower() if l.lstrip("#").split() else ""
        if word in MANAGED and (l.startswith("#") or not l.startswith(("\t", " "))):
            continue
        out.append(l)
    return out


def test_backup_is_the_original():
    assert hashlib.sha256(ORIG.read_bytes()).hexdigest() == ORIG_SHA256


def test_port():
    assert settings("Port") == ["2222"]


def test_root_login_disabled():
    assert settings("PermitRootLogin") == ["no"]


def test_password_authentication_disabled():
    assert settings("PasswordAuthentication") == ["no"]


def test_x11_forwarding_disabled():
    assert settings("X11Forwarding") == ["no"]


def test_allow_users_and_everything_else_kept():
    assert settings("AllowUsers") == ["alice bob"]
    head, match = global_section()
    orig_head, orig_match = [], []
    orig = ORIG.read_text().splitlines()
    cut = next(i for i, l in enumerate(orig) if l.startswith("Match "))
    orig_head, orig_match = orig[:cut], orig[cut:]
    assert match == orig_match, "the Match block changed"
    assert unmanaged(head) == unmanaged(orig_head), "lines other than the five settings changed"
