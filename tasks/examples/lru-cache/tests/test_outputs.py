"""Behaviour of /app/lru.py's LRUCache. The module is loaded inside each test."""
import importlib.util
import time

import pytest


def LRUCache(capacity):
    spec = importlib.util.spec_from_file_location("lru_under_test", "/app/lru.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LRUCache(capacity)


def test_get_and_put():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1 and c.get("b") == 2 and c.get("zzz", "none") == "none"
    assert len(c) == 2


def test_evicts_least_recently_used():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.get("a")
    c.put("c", 3)
    assert "b" not in c and "a" in c and "c" in c
    assert c.evictions == 1


def test_contains_does_not_touch_recency():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert "a" in c
    c.put("c", 3)
    assert "a" not in c and c.items() == [("c", 3), ("b", 2)]


def test_update_moves_to_front_without_eviction():
    c = LRUCache(3)
    for k, v in [("a", 1), ("b", 2), ("c", 3)]:
        c.put(k, v)
    c.put("a", 10)
    assert c.items() == [("a", 10), ("c", 3), ("b", 2)]
    assert c.evictions == 0 and len(c) == 3


def test_capacity_must_be_positive():
    with pytest.raises(ValueError):
        LRUCache(0)
    assert len(LRUCache(1)) == 0


def test_constant_time_operations():
    c = LRUCache(1000)
    started = time.perf_counter()
    for i in range(200_000):
        c.put(i, i)
        c.get(i - 500)
    assert time.perf_counter() - started < 5
    assert len(c) == 1000 and c.evictions == 199_000
