#!/bin/bash
set -euo pipefail
cd /app
cat lru.py
cat > lru.py <<'PY'
"""A least-recently-used cache. Implement the methods; keep the names and signatures."""
from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity: int):
        """A cache holding at most `capacity` entries (ValueError when capacity < 1)."""
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._data = OrderedDict()
        self._evictions = 0

    def get(self, key, default=None):
        """The value for key (which becomes the most recently used), or default when absent."""
        if key not in self._data:
            return default
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value) -> None:
        """Insert or update key (it becomes the most recently used); evict the least recently used
        entry when the cache is over capacity."""
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self._capacity:
            self._data.popitem(last=False)
            self._evictions += 1

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        """Membership test; does NOT change recency."""
        return key in self._data

    def items(self) -> list:
        """(key, value) pairs from most to least recently used."""
        return list(reversed(self._data.items()))

    @property
    def evictions(self) -> int:
        """How many entries have been evicted so far."""
        return self._evictions
PY
python3 -c 'from lru import LRUCache; c = LRUCache(2); c.put(1, 1); c.put(2, 2); c.get(1); c.put(3, 3); print(c.items(), c.evictions)'
