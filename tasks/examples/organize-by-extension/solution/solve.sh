#!/bin/bash
set -euo pipefail
cd /app
shopt -s dotglob nullglob
for path in inbox/*; do
  [ -f "$path" ] || continue
  name=$(basename -- "$path")
  base=${name#.}
  if [[ "$base" == *.* ]]; then
    ext=${base##*.}
    ext=${ext,,}
  else
    ext=other
  fi
  mkdir -p "sorted/$ext"
  mv -- "$path" "sorted/$ext/$name"
done
find sorted -type f | sort
