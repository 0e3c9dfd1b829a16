"""Each docstring promise of /app/stats.py, one test each. The module is loaded inside each test so that
a broken module fails the tests instead of stopping collection."""
import importlib.util

import pytest


def stats():
    spec = importlib.util.spec_from_file_location("stats_under_test", "/app/stats.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mean_of_empty_list_raises_value_error():
    s = stats()
    assert s.mean([2, 4, 9]) == 5
    with pytest.raises(ValueError):
        s.mean([])


def test_median_odd_and_even():
    s = stats()
    assert s.median([5, 1, 3]) == 3
    assert s.median([4, 1, 3, 2]) == 2.5


def test_sample_variance():
    s = stats()
    assert s.variance([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(32 / 7)
    with pytest.raises(ValueError):
        s.variance([1])


def test_nearest_rank_percentile():
    s = stats()
    data = [15, 20, 35, 40, 50]
    assert [s.percentile(data, p) for p in (5, 30, 40, 50, 100)] == [15, 20, 20, 35, 50]
    assert s.percentile([1, 2, 3, 4], 50) == 2


def test_mode_ties_pick_the_smallest():
    s = stats()
    assert s.mode([7, 7, 3, 3, 9]) == 3
    assert s.mode([1, 2, 2]) == 2
