#!/bin/bash
set -euo pipefail
cd /app
python3 -c 'import stats; print(stats.median([4, 1, 3, 2]))'
cat > stats.py <<'PY'
"""Small statistics helpers used by the reporting jobs."""
import math
from collections import Counter


def mean(xs):
    """Arithmetic mean. Raises ValueError on an empty list."""
    if not xs:
        raise ValueError("mean of an empty list")
    return sum(xs) / len(xs)


def median(xs):
    """Middle value; the mean of the two middle values for an even count."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of an empty list")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def variance(xs):
    """Sample variance (divides by n - 1). Needs at least two values (ValueError otherwise)."""
    if len(xs) < 2:
        raise ValueError("variance needs at least two values")
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def percentile(xs, p):
    """Nearest-rank percentile for 0 < p <= 100: the smallest value with at least p% of values <= it."""
    s = sorted(xs)
    k = math.ceil(p / 100 * len(s))
    return s[max(k, 1) - 1]


def mode(xs):
    """Most frequent value; on a tie, the smallest of the tied values."""
    counts = Counter(xs)
    top = max(counts.values())
    return min(x for x, c in counts.items() if c == top)
PY
python3 -c 'import stats; print(stats.median([4, 1, 3, 2]), stats.percentile([15, 20, 35, 40, 50], 30), stats.mode([7, 7, 3, 3, 9]))'
