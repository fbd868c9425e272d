"""One cache of compiled SQL statements for the whole process, shared by its engines.

SQLAlchemy keeps an engine's compiled statements in that engine's own cache, keyed by its
dialect *instance*: a process that opens several stores (a CLI call after another in one
process, the library's store beside a Study's, a server's engines, every test's own store)
compiles every statement once per engine. Here every engine :func:`make_engine` makes
looks its statements up in one bounded LRU (:data:`COMPILED_CACHE_SIZE`), its keys
normalised so that engines whose dialects are alike share them: a dialect stands in the
key for its *kind* (:func:`dialect_kind`), its class and every setting that shapes
compiled SQL (server version, parameter style, identifier length, the features the server
was found to have, the JSON serialiser...). A statement compiled by one engine carries
that engine's dialect (its SQL text, its bind and result processors); another engine of
the same kind runs it alike, which is what sharing relies on. PostgreSQL and SQLite are
different kinds (the class is part of it), and so are two servers of different versions.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy.util import HasMemoized, LRUCache, memoized_property

if TYPE_CHECKING:
    from sqlalchemy.engine.interfaces import Dialect
    from sqlalchemy.sql.compiler import Compiled

__all__ = ["COMPILED_CACHE_SIZE", "SharedCompiledCache", "dialect_kind", "shared_entries"]

#: compiled statements the process keeps (least recently used dropped first; SQLAlchemy's
#: LRU grows to one and a half times this before it prunes back). An engine's own cache
#: held 500 (SQLAlchemy's default); six DB-heavy test files leave about 440 statements of
#: each backend here; a compiled three-table join takes about 22 kB.
COMPILED_CACHE_SIZE: Final = 1000

#: a dialect's attributes that never shape a compiled statement and differ between engines
#: of one server: the schema a connection finds itself in (PostgreSQL's ``search_path``,
#: used only to render a ``schema_translate_map``'s ``None`` at execution: keys of
#: statements run with a map keep their engine's own dialect, see :meth:`_key`) and the
#: isolation level a connection is reset to.
_PER_CONNECTION: Final = frozenset({"default_schema_name", "default_isolation_level"})
#: a dialect's memos and helpers made from its class and its other settings (their caches
#: and back references are not settings)
_DERIVED: Final = frozenset({"_type_memos", "_psycopg_adapters_map"})
#: helpers whose own plain settings are part of the kind (quoting, type names)
_HELPERS: Final = frozenset({"identifier_preparer", "type_compiler", "type_compiler_instance"})

#: what the class holds under the name of an instance attribute that is a memo of
#: SQLAlchemy's (stored on the instance when first read): a memoised property, or a method
#: (``memoized_instancemethod`` puts a function holding the answer in the method's place)
_MEMO: Final = (memoized_property, HasMemoized.memoized_attribute, types.FunctionType)

_kinds: dict[tuple[object, ...], int] = {}
_kinds_lock = threading.Lock()
_shared: LRUCache[tuple[object, ...], Compiled] = LRUCache(COMPILED_CACHE_SIZE)


def _plain(value: object) -> bool:
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return True
    return isinstance(value, tuple) and all(_plain(item) for item in value)


class _Unknown(Exception):
    """A dialect setting not understood (a newer SQLAlchemy's): the dialect shares nothing."""


def _settings(owner: object, skip: frozenset[str]) -> Iterator[tuple[object, ...]]:
    for name, value in sorted(vars(owner).items()):
        if name in skip or name in _DERIVED or isinstance(getattr(type(owner), name, None), _MEMO):
            continue  # a memo: made, when first asked for, from the class and the settings
        if _plain(value) or isinstance(value, (type, types.ModuleType, types.FunctionType)):
            yield (name, value)  # a value, or a class, module or function by identity
        elif name in _HELPERS:
            helper = tuple((n, v) for n, v in sorted(vars(value).items()) if _plain(v))
            yield (name, type(value), helper)
        else:
            raise _Unknown(name)


def dialect_kind(dialect: Dialect) -> int | None:
    """A small number for the dialect's kind: equal for two dialects exactly when they
    are of one class with the same settings (as set once their engine first connected);
    ``None`` for a dialect with a setting not understood (it shares nothing)."""
    try:
        signature = (type(dialect), *_settings(dialect, _PER_CONNECTION))
    except _Unknown:
        return None
    with _kinds_lock:
        return _kinds.setdefault(signature, len(_kinds))


def shared_entries() -> int:
    """How many compiled statements the process keeps now."""
    return len(_shared)


class SharedCompiledCache(MutableMapping[Any, "Compiled"]):
    """One engine's view of the process's compiled statements (its ``compiled_cache``
    execution option). SQLAlchemy looks statements up by ``(dialect, statement's cache
    key, column keys, whether a schema translate map is used, executemany)``; the dialect
    is replaced by its :func:`dialect_kind`, found when the first statement is looked up
    (SQLAlchemy initialises an engine's dialect, reading the server's version and
    features, when the engine first connects: before any statement runs). Keys are
    SQLAlchemy's own (``Any`` in its ``CompiledCacheType``)."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._kind: int | None = None
        self._kind_known = False

    def _key(self, key: Any) -> tuple[object, ...]:
        if not self._kind_known:
            self._kind, self._kind_known = dialect_kind(self._dialect), True
        if (
            self._kind is None
            or type(key) is not tuple
            or len(key) != 5
            or key[0] is not self._dialect
            or key[3]  # a schema translate map: rendered with the dialect's default schema
        ):
            return (self._dialect, key)  # this engine's own entry, as SQLAlchemy keeps it
        return (self._kind, *key[1:])

    def __getitem__(self, key: Any) -> Compiled:
        return _shared[self._key(key)]

    def __setitem__(self, key: Any, value: Compiled) -> None:
        _shared[self._key(key)] = value

    def __delitem__(self, key: Any) -> None:
        del _shared[self._key(key)]

    def __iter__(self) -> Iterator[Any]:
        return iter(())  # the entries are the process's, not one engine's to list ...

    def __len__(self) -> int:
        return 0  # ... or count (see :func:`shared_entries`)
