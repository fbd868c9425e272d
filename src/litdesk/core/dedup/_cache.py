"""A bounded cache of what a pure function computes from a record's content (pure: no I/O).

Deduplication regroups a Study's records after each change of its sources (an import
added, removed or restored; a search updated): every run computed every record's
comparison features again, though most records had not changed. The cache is keyed by the
content itself (the records, which compare by every field, and the other inputs), never by
an id or a digest of it, so an entry can only be read back for equal inputs, whose
features are equal. Values are shared between runs: read them, never change them.
Thread-safe; least recently used entries go first past ``size``."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import Generic, TypeVar

__all__ = ["ContentCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ContentCache(Generic[K, V]):
    """``get(key, make)``: ``make()``'s value for ``key``, made once while it is kept."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            self.misses += 1
        value = make()  # outside the lock: another thread may make the same value meanwhile
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)
