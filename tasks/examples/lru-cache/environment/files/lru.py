"""A least-recently-used cache. Implement the methods; keep the names and signatures."""


class LRUCache:
    def __init__(self, capacity: int):
        """A cache holding at most `capacity` entries (ValueError when capacity < 1)."""
        raise NotImplementedError

    def get(self, key, default=None):
        """The value for key (which becomes the most recently used), or default when absent."""
        raise NotImplementedError

    def put(self, key, value) -> None:
        """Insert or update key (it becomes the most recently used); evict the least recently used
        entry when the cache is over capacity."""
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __contains__(self, key) -> bool:
        """Membership test; does NOT change recency."""
        raise NotImplementedError

    def items(self) -> list:
        """(key, value) pairs from most to least recently used."""
        raise NotImplementedError

    @property
    def evictions(self) -> int:
        """How many entries have been evicted so far."""
        raise NotImplementedError
