#!/bin/bash
# Builds the log folder with real gzip files and the permissions a daemon would leave.
set -euo pipefail
mkdir -p logs
for n in 5 4 3 2; do
  printf 'generation %s line 1\ngeneration %s line 2\n' "$n" "$n" | gzip -n > "logs/app.log.$n.gz"
done
printf 'generation 1 line 1\ngeneration 1 line 2\n' > logs/app.log.1
for i in $(seq 1 40); do printf '2024-03-02T00:%02d:00Z request %d ok\n' "$i" "$i"; done > logs/app.log
chmod 640 logs/app.log logs/app.log.1
echo "untouched" > logs/other.log
