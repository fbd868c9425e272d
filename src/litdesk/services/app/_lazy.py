"""The app's parts built on first use: a command imports and builds only the areas it
reaches (``litdesk study list`` never imports the assistant, the reader or single sign-on).

:class:`part` is :func:`functools.cached_property` with a lock: the first access builds the
part under the owner's one re-entrant lock (a part's build may reach other parts), later
accesses read the instance's attribute without any lock. :meth:`Parts.built` tells whether
a part was built, so that closing closes only what was built."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast, overload

__all__ = ["Parts", "part"]

T = TypeVar("T")


class Parts:
    """The base of an object whose :class:`part` attributes are built on first use."""

    def __init__(self) -> None:
        # guards only the first build of each part (threads of the web app may race to it)
        self._parts_lock = threading.RLock()

    def built(self, name: str) -> bool:
        """True when the part ``name`` was built (accessed) already."""
        return name in self.__dict__


P = TypeVar("P", bound=Parts)


class part(Generic[P, T]):  # a decorator, named like cached_property
    """A part of a :class:`Parts` object, built by the decorated method on first access and
    kept in the instance (a non-data descriptor: the kept value answers from then on)."""

    def __init__(self, build: Callable[[P], T]) -> None:
        self._build = build
        self._name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type[P], name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type[P] | None = None) -> part[P, T]: ...

    @overload
    def __get__(self, obj: P, owner: type[P] | None = None) -> T: ...

    def __get__(self, obj: P | None, owner: type[P] | None = None) -> part[P, T] | T:
        if obj is None:
            return self
        values = obj.__dict__
        with obj._parts_lock:
            if self._name not in values:
                values[self._name] = self._build(obj)
            return cast("T", values[self._name])
