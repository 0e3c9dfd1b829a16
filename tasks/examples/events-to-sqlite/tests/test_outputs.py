"""Queries /app/events.db (read-only) and reads /app/answers.json."""
import json
import sqlite3
from pathlib import Path


def db():
    return sqlite3.connect("file:/app/events.db?mode=ro", uri=True)


def columns(table):
    return [(row[1], row[2].upper()) for row in db().execute(f"PRAGMA table_info({table})")]


def answers():
    return json.loads(Path("/app/answers.json").read_text())


def test_schema():
    assert columns("users") == [("id", "TEXT"), ("signup_date", "TEXT"), ("country", "TEXT")]
    assert columns("purchases") == [("id", "TEXT"), ("user_id", "TEXT"), ("amount_cents", "INTEGER"), ("refunded", "INTEGER")]


def test_rows_loaded_without_bad_lines():
    con = db()
    assert con.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 31
    assert con.execute("SELECT COUNT(*) FROM purchases").fetchone()[0] == 90
    assert con.execute("SELECT COUNT(*) FROM purchases WHERE user_id NOT IN (SELECT id FROM users)").fetchone()[0] == 0
    assert con.execute("SELECT COUNT(*) FROM purchases WHERE id = 'p9999' OR id = 'p5000'").fetchone()[0] == 0


def test_refunds_flagged():
    con = db()
    assert con.execute("SELECT COUNT(*) FROM purchases WHERE refunded = 1").fetchone()[0] == 10
    assert con.execute("SELECT SUM(amount_cents) FROM purchases WHERE refunded = 0").fetchone()[0] == 186439


def test_revenue_by_country():
    assert answers()["revenue_by_country"] == {"DE": 48482, "ES": 0, "FR": 66980, "NL": 39488, "PL": 31489}


def test_buyers_and_refund_rate():
    a = answers()
    assert (a["repeat_buyers"], a["refund_rate"]) == (22, 0.1111)


def test_top_user_and_skipped():
    a = answers()
    assert (a["top_user"], a["skipped_lines"]) == ("u011", 5)
