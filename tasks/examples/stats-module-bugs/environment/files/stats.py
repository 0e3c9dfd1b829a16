"""Small statistics helpers used by the reporting jobs."""
from collections import Counter


def mean(xs):
    """Arithmetic mean. Raises ValueError on an empty list."""
    return sum(xs) / len(xs)


def median(xs):
    """Middle value; the mean of the two middle values for an even count."""
    s = sorted(xs)
    return s[len(s) // 2]


def variance(xs):
    """Sample variance (divides by n - 1). Needs at least two values (ValueError otherwise)."""
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / len(xs)


def percentile(xs, p):
    """Nearest-rank percentile for 0 < p <= 100: the smallest value with at least p% of values <= it."""
    s = sorted(xs)
    k = int(p / 100 * len(s))
    return s[k]


def mode(xs):
    """Most frequent value; on a tie, the smallest of the tied values."""
    counts = Counter(xs)
    return counts.most_common(1)[0][0]
