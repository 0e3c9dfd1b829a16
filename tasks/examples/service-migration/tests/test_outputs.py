"""Reads the migrated layout; nothing of the workspace is executed."""
import json
import stat
import tarfile
from pathlib import Path

NEW = Path("/app/new")
MIGRATED = ["admin", "api", "metrics", "web", "worker"]


def service(name):
    return json.loads((NEW / "services" / f"{name}.json").read_text())


def test_enabled_services_migrated():
    assert sorted(p.stem for p in (NEW / "services").glob("*.json")) == MIGRATED


def test_service_file_format():
    assert service("api") == {
        "name": "api",
        "port": 8080,
        "user": "api",
        "command": "/opt/api/bin/api serve --listen 0.0.0.0:8080",
        "env_file": "/app/new/env/api.env",
    }
    assert service("worker")["port"] is None and service("worker")["command"] == "/opt/api/bin/worker --queue default"


def test_port_conflict_resolved():
    web = service("web")
    assert web["port"] == 9000 and web["command"] == "/opt/web/bin/server --port 9000 --workers 4"
    assert service("metrics")["port"] == 9100


def test_no_service_runs_as_root():
    assert service("admin")["user"] == "svc-admin"
    assert all(service(n)["user"] != "root" for n in MIGRATED)


def test_env_files_sorted_and_private():
    assert (NEW / "env/api.env").read_text() == "API_TOKEN_TTL=3600\nDB_URL=postgres://db.internal/api\nLOG_LEVEL=debug\n"
    assert (NEW / "env/admin.env").read_text() == "ADMIN_EMAIL=ops@example.org\nLOG_LEVEL=warn\nSESSION_SECRET_FILE=/etc/admin/session.key\n"
    assert sorted(p.stem for p in (NEW / "env").glob("*.env")) == MIGRATED
    for p in (NEW / "env").glob("*.env"):
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p.name


def test_disabled_and_index():
    assert (NEW / "disabled.txt").read_text() == "cron\n"
    assert json.loads((NEW / "index.json").read_text()) == [
        {"name": "admin", "port": 8443},
        {"name": "api", "port": 8080},
        {"name": "metrics", "port": 9100},
        {"name": "web", "port": 9000},
        {"name": "worker", "port": None},
    ]


def test_legacy_archived_and_removed():
    with tarfile.open("/app/archive/legacy.tar.gz") as tar:
        names = {m.name.removeprefix("./").rstrip("/") for m in tar.getmembers()}
    assert {f"legacy/services/{n}.conf" for n in MIGRATED + ["cron"]} | {"legacy/README"} <= names
    assert not Path("/app/legacy").exists()


def test_migration_report():
    lines = {l.strip() for l in Path("/app/MIGRATION.md").read_text().splitlines()}
    assert {"migrated: 5", "disabled: 1", "reassigned: web 8080->9000"} <= lines
