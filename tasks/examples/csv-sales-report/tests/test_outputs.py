"""Checks the sales report. Outputs are read, never executed."""
import csv
import json
from pathlib import Path

APP = Path("/app")
EXPECTED = [
    ["West", "30", "348", "6816.74"],
    ["South", "27", "253", "5790.23"],
    ["North", "32", "313", "4474.67"],
    ["East", "27", "243", "4428.45"],
]


def read_report():
    with open(APP / "report.csv", newline="") as f:
        return list(csv.reader(f))


def test_report_header():
    assert read_report()[0] == ["region", "orders", "units", "revenue"]


def test_regions_normalized():
    assert sorted(row[0] for row in read_report()[1:]) == ["East", "North", "South", "West"]


def test_orders_and_units():
    assert [row[:3] for row in read_report()[1:]] == [row[:3] for row in EXPECTED]


def test_revenue_two_decimals_sorted():
    assert read_report()[1:] == EXPECTED


def test_rejected_lines():
    assert (APP / "rejected.txt").read_text().split() == ["16", "49", "90", "103"]


def test_summary():
    summary = json.loads((APP / "summary.json").read_text())
    assert summary["total_revenue"] == 21510.09
    assert summary["top_product"] == 'Doohickey "Pro"'
