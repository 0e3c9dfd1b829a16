#!/bin/bash
set -euo pipefail
cd /app
find site -printf '%m %p\n' | sort -k2
find site -type d -exec chmod 755 {} +
find site -type f -exec chmod 644 {} +
chmod 755 site/bin/*
chmod 700 site/private
chmod 600 site/private/*
chmod -R ug-s,-t site
find site -printf '%m %p\n' | sort -k2
