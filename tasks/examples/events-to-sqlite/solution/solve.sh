#!/bin/bash
set -euo pipefail
cd /app
head -3 events.jsonl
wc -l events.jsonl
rm -f events.db
python3 - <<'PY'
import json
import sqlite3

con = sqlite3.connect("/app/events.db")
con.executescript(
    """
    CREATE TABLE users(id TEXT PRIMARY KEY, signup_date TEXT, country TEXT);
    CREATE TABLE purchases(id TEXT PRIMARY KEY, user_id TEXT, amount_cents INTEGER, refunded INTEGER);
    """
)
users, purchases, skipped = {}, {}, 0
for line in open("/app/events.jsonl"):
    try:
        e = json.loads(line)
    except json.JSONDecodeError:
        skipped += 1
        continue
    kind = e.get("type")
    if kind == "signup" and e["user"] not in users:
        users[e["user"]] = (e["date"], e["country"])
    elif kind == "purchase" and e["id"] not in purchases and e["user"] in users:
        purchases[e["id"]] = [e["user"], e["amount_cents"], 0]
    elif kind == "refund" and e["purchase"] in purchases and not purchases[e["purchase"]][2]:
        purchases[e["purchase"]][2] = 1
    else:
        skipped += 1
con.executemany("INSERT INTO users VALUES (?, ?, ?)", [(u, d, c) for u, (d, c) in users.items()])
con.executemany("INSERT INTO purchases VALUES (?, ?, ?, ?)", [(p, u, a, r) for p, (u, a, r) in purchases.items()])
con.commit()

revenue = dict(con.execute(
    "SELECT u.country, COALESCE(SUM(CASE WHEN p.refunded = 0 THEN p.amount_cents END), 0) "
    "FROM users u LEFT JOIN purchases p ON p.user_id = u.id GROUP BY u.country ORDER BY u.country"
))
repeat = con.execute(
    "SELECT COUNT(*) FROM (SELECT user_id FROM purchases WHERE refunded = 0 GROUP BY user_id HAVING COUNT(*) >= 2)"
).fetchone()[0]
refunded, total = con.execute("SELECT SUM(refunded), COUNT(*) FROM purchases").fetchone()
top = con.execute(
    "SELECT user_id FROM purchases WHERE refunded = 0 GROUP BY user_id ORDER BY SUM(amount_cents) DESC, user_id LIMIT 1"
).fetchone()[0]
answers = {
    "revenue_by_country": revenue,
    "repeat_buyers": repeat,
    "refund_rate": round(refunded / total, 4),
    "top_user": top,
    "skipped_lines": skipped,
}
json.dump(answers, open("/app/answers.json", "w"), indent=2)
PY
cat answers.json
