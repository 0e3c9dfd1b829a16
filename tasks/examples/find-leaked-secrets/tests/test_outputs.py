"""Reads the report and the redacted repository; nothing of the workspace is executed."""
import hashlib
import json
from pathlib import Path

REPO = Path("/app/repo")
SECRETS = [
    "AKIAZ7Q4RJ2LMN5TX3PB",
    "k9Vb2Qz/7HsLw0pXyT4eRuN8mJc1aGdF6oIh3SvE",
    "Tr0ub4dor&3-horse",
    "ghp_Xb7Qm2Lp9Rt4Vw6Yz1Ac3De5Fg8Hj0Kn2Ps4",
    "s3cr3t-ldap-Reader!",
]
README_SHA256 = "15ca3e1f32fe1371dca8a54822268aac8b01fd7752c4cb614bb00d1ca4c1fa05"


def test_findings_report():
    assert json.loads(Path("/app/findings.json").read_text()) == [
        {"file": ".env", "line": 3, "kind": "password"},
        {"file": "config/settings.py", "line": 6, "kind": "aws-access-key-id"},
        {"file": "config/settings.py", "line": 7, "kind": "aws-secret-access-key"},
        {"file": "deploy/id_ed25519", "line": 1, "kind": "private-key"},
        {"file": "deploy/ldap.ini", "line": 4, "kind": "password"},
        {"file": "src/client.js", "line": 3, "kind": "github-token"},
    ]


def test_no_secret_left_and_examples_kept():
    for path in REPO.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            for secret in SECRETS:
                assert secret not in text, f"{secret} still in {path}"
    assert hashlib.sha256((REPO / "docs/README.md").read_bytes()).hexdigest() == README_SHA256


def test_private_key_file_deleted():
    assert not (REPO / "deploy/id_ed25519").exists()
    assert (REPO / "deploy/deploy.sh").is_file()


def test_python_and_js_redacted_in_place():
    settings = (REPO / "config/settings.py").read_text().splitlines()
    assert settings[5:7] == ['AWS_ACCESS_KEY_ID = "REDACTED"', 'AWS_SECRET_ACCESS_KEY = "REDACTED"']
    assert settings[:5] + settings[7:] == [
        '"""Service settings."""', "import os", "", "DEBUG = False", 'AWS_REGION = "eu-west-1"',
        'DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://localhost/app")', "CACHE_TTL = 300",
    ]
    assert (REPO / "src/client.js").read_text().splitlines()[2] == 'const token = "REDACTED";'


def test_passwords_redacted_in_place():
    assert (REPO / ".env").read_text() == "APP_ENV=production\nDB_USER=app\nDB_PASSWORD=REDACTED\nSMTP_HOST=smtp.internal\n"
    assert (REPO / "deploy/ldap.ini").read_text().splitlines()[3] == 'password = "REDACTED"'
