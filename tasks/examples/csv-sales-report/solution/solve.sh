#!/bin/bash
set -euo pipefail
cd /app
head -3 sales.csv
python3 - <<'PY'
import csv
import json
from decimal import Decimal, InvalidOperation, ROUND_HALF_UP

regions, products, rejected = {}, {}, []
with open("sales.csv", newline="") as f:
    for line, row in enumerate(csv.reader(f), 1):
        if line == 1:
            continue
        _date, region, product, units, price = row
        try:
            units, price = int(units), Decimal(price)
        except (ValueError, InvalidOperation):
            rejected.append(line)
            continue
        r = regions.setdefault(region.strip().title(), [0, 0, Decimal(0)])
        r[0] += 1
        r[1] += units
        r[2] += units * price
        products[product] = products.get(product, Decimal(0)) + units * price

cents = lambda x: x.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
with open("report.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["region", "orders", "units", "revenue"])
    for name, (orders, units, revenue) in sorted(regions.items(), key=lambda kv: -kv[1][2]):
        w.writerow([name, orders, units, f"{cents(revenue)}"])
open("rejected.txt", "w").write("".join(f"{n}\n" for n in rejected))
total = cents(sum(r[2] for r in regions.values()))
top = max(products.items(), key=lambda kv: kv[1])[0]
json.dump({"total_revenue": float(total), "top_product": top}, open("summary.json", "w"))
PY
cat report.csv rejected.txt summary.json
