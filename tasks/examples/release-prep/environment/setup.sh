#!/bin/bash
# Leave the clutter a real working copy has: byte-code caches and Finder files (task folders cannot
# ship __pycache__ folders, so they are made here).
set -euo pipefail
cd project
mkdir -p calcpkg/__pycache__ tests/__pycache__
printf 'stale bytecode' > calcpkg/__pycache__/ops.cpython-311.pyc
printf 'stale bytecode' > tests/__pycache__/test_ops.cpython-311.pyc
printf 'Bud1' > .DS_Store
printf 'Bud1' > calcpkg/.DS_Store
