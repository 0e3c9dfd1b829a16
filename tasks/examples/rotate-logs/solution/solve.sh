#!/bin/bash
set -euo pipefail
cd /app/logs
ls -l
rm -f app.log.5.gz
mv app.log.4.gz app.log.5.gz
mv app.log.3.gz app.log.4.gz
mv app.log.2.gz app.log.3.gz
gzip -n app.log.1
mv app.log.1.gz app.log.2.gz
mode=$(stat -c %a app.log)
mv app.log app.log.1
: > app.log
chmod "$mode" app.log
ls -l
