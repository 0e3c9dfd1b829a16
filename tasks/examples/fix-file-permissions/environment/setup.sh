#!/bin/bash
# The permissions a careless deploy left behind (files in a task folder only carry the executable bit).
set -euo pipefail
cd site
chmod 666 index.html
chmod 600 about.html
chmod 777 uploads css
chmod 664 css/main.css
chmod 644 bin/deploy.sh
chmod 4755 bin/tool.sh
chmod 755 private
chmod 644 private/site.key
chmod 666 private/db.conf
chmod 2775 bin
