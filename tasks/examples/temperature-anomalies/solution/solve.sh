#!/bin/bash
set -euo pipefail
cd /app
head -4 temps.csv
grep -c ',NA$' temps.csv
python3 - <<'PY'
import csv
import statistics

readings = {}
with open("/app/temps.csv", newline="") as f:
    for row in csv.DictReader(f):
        if row["temp_c"] != "NA":
            readings.setdefault(row["station"], []).append((row["date"], row["temp_c"]))
stats, anomalies = [], []
for station in sorted(readings):
    values = [float(t) for _, t in readings[station]]
    mean, std = statistics.fmean(values), statistics.pstdev(values)
    stats.append(f"{station},{len(values)},{mean:.2f},{std:.2f}")
    anomalies += [(d, station, t) for d, t in readings[station] if abs(float(t) - mean) > 2.5 * std]
open("/app/stats.csv", "w").write("station,count,mean,std\n" + "".join(s + "\n" for s in stats))
open("/app/anomalies.csv", "w").write("date,station,temp_c\n" + "".join(",".join(a) + "\n" for a in sorted(anomalies)))
PY
cat stats.csv anomalies.csv
