"""Bounded caches of what pure functions compute from records (pure: no I/O): a record
group's features by its content (:class:`ContentCache`), a pair's judgement by its pair of
cached features (:class:`PairCache`).

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

__all__ = ["ContentCache", "PairCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
E = TypeVar("E")


class _Bounded(Generic[K, E]):
    """The entries of a cache, least recently used first, at most ``size`` of them."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, E] = OrderedDict()
        self._lock = Lock()
        self.hits = 0
        self.misses = 0

    def _keep(self, key: K, entry: E) -> None:
        with self._lock:
            self._items[key] = entry
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._items)


class ContentCache(_Bounded[K, V]):
    """``get(key, make)``: ``make()``'s value for ``key``, made once while it is kept."""

    def get(self, key: K, make: Callable[[], V]) -> V:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            self.misses += 1
        value = make()  # outside the lock: another thread may make the same value meanwhile
        self._keep(key, value)
        return value


A = TypeVar("A")


class PairCache(_Bounded[tuple[int, int, int], tuple[A, A, V]]):
    """``get(a, b, scope, make)``: ``make(a, b)``'s value for the pair of objects ``a``, ``b``
    (in that order) in ``scope`` (:meth:`scope`: the other inputs), made once while it is
    kept.

    For the objects a :class:`ContentCache` hands out (equal content, one shared object):
    the key is the objects' identities, and an entry holds both objects, so neither can be
    collected and its identity reused by another object while the entry is kept; a hit is
    checked to be those very objects. Objects equal in content but not shared are
    different keys (a miss, never a wrong value). Values are shared between calls: read
    them, never change them. Thread-safe; least recently used entries go first past
    ``size``."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self._scopes: dict[Hashable, int] = {}

    def scope(self, inputs: Hashable) -> int:
        """A number for ``inputs`` (the same number for equal inputs): hashed once a run,
        not once a pair."""
        with self._lock:
            return self._scopes.setdefault(inputs, len(self._scopes))

    def get(self, a: A, b: A, scope: int, make: Callable[[A, A], V]) -> V:
        key = (id(a), id(b), scope)
        with self._lock:
            entry = self._items.get(key)
            if entry is not None and entry[0] is a and entry[1] is b:
                self._items.move_to_end(key)
                self.hits += 1
                return entry[2]
            self.misses += 1
        value = make(a, b)
        self._keep(key, (a, b, value))
        return value
