"""Citation listings shown on the citation browser, remembered so that saving chosen works
refers to records litdesk itself retrieved (a client never sends paper records).

In the store (``citation_listings``, issue 17), so a list one worker of a team server showed
is saved from on any other: bounded per owner (:data:`MAX_LISTINGS`, oldest dropped first),
by age (:data:`LISTING_MAX_AGE`) and by size. Each listing is keyed by an unguessable id and
carries its owner; another owner's lookup is answered as "not open". Blocking (store I/O):
call from a thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk.adapters.store import (
    LISTING_MAX_AGE,
    LISTINGS_PER_OWNER,
    Store,
    get_listing,
    remember_listing,
)
from litdesk.core.records import Paper, read_paper

__all__ = ["LISTING_MAX_AGE", "MAX_LISTINGS", "Listings"]

MAX_LISTINGS: Final = LISTINGS_PER_OWNER


class Listings:
    def __init__(
        self,
        store: Store,
        *,
        limit: int = MAX_LISTINGS,
        max_age: float = LISTING_MAX_AGE,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        """``clock``: what the listings' retention reads."""
        self.store = store
        self.clock = clock
        self._limit = limit
        self._max_age = max_age

    def remember(self, owner: str, papers: Sequence[Paper]) -> str:
        """Keep the papers a page shows ``owner``; their listing's id."""
        return remember_listing(
            self.store,
            owner,
            [p.to_dict() for p in papers],
            keep=self._limit,
            max_age=self._max_age,
            now=self.clock.now(),
        )

    def papers(self, key: str, owner: str) -> dict[str, Paper]:
        """The papers of ``owner``'s listing ``key`` by id (``listing_not_open`` when it is
        another owner's, expired or unknown)."""
        out: dict[str, Paper] = {}
        for document in get_listing(
            self.store, owner, key, max_age=self._max_age, now=self.clock.now()
        ):
            paper = read_paper(document)  # stored data is validated on every read
            out[paper.id] = paper
        return out
