"""Citation listings shown on the citation browser, remembered so that saving chosen works
refers to records litdesk itself retrieved (a client never sends paper records).

In memory, bounded (:data:`MAX_LISTINGS`, oldest dropped first) and per process: enough
for single-user mode; team mode (issue 17) moves it to the store. Each listing is keyed by
an unguessable id and carries its owner; another owner's lookup is answered as "not open".
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Final

from litdesk._errors import NotFoundError
from litdesk.core.records import Paper

__all__ = ["MAX_LISTINGS", "Listings"]

MAX_LISTINGS: Final = 200


class Listings:
    def __init__(self, *, limit: int = MAX_LISTINGS) -> None:
        self._items: OrderedDict[str, tuple[str, dict[str, Paper]]] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()  # store methods run in the face's thread pool

    def remember(self, owner: str, papers: Sequence[Paper]) -> str:
        key = secrets.token_urlsafe(18)
        with self._lock:
            self._items[key] = (owner, {p.id: p for p in papers})
            while len(self._items) > self._limit:
                self._items.popitem(last=False)
        return key

    def papers(self, key: str, owner: str) -> dict[str, Paper]:
        with self._lock:
            item = self._items.get(key)
        if item is None or not secrets.compare_digest(item[0], owner):
            raise NotFoundError(
                "that citation list is no longer open here; show it again", code="listing_not_open"
            )
        return item[1]
