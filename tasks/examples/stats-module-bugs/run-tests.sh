#!/bin/bash
# Terminal-Bench 1 runner: installs pytest and runs the tests. T1 Lab runs tests/test_outputs.py with
# the system pytest instead (see tasks/FORMAT.md, "Legacy Terminal-Bench 1 layout").
pip install pytest==8.3.4
pytest "$TEST_DIR/test_outputs.py" -rA
