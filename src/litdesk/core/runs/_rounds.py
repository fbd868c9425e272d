"""The one rule that places a Study's source in a search round (pure).

A living review's rounds are its first searches (round 0) and its update rounds (1, 2, …:
``study_search_rounds``, and the rounds begun by hand with ``study round`` —
``study_begun_rounds`` — for a review that re-runs its searches in databases litdesk
cannot query and imports the exports). An update round begins at the earlier of its
first whole search's commit and the moment it was begun by hand. A whole search (``study add-search``, an update) carries its
round; every other source — a kept search run, an import, a paper added by hand or from
Zotero — belongs to the round in force when it joined the Study: the latest update round
begun by then (to the second: imports and papers keep whole seconds, so a source that
joined in the second an update began is that update's), the first searches before the
first update. PRISMA 2020's columns (``study prisma``) and PRISMA-S's round of each search
and import (``report prisma --study``) both read :meth:`StudyRounds.round_of`, so the two
reports cannot place one source in two rounds.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ["StudyRounds", "instant", "study_rounds"]


def instant(text: str) -> datetime:
    """A stored ISO time as an aware instant (a naive one is UTC, as litdesk writes)."""
    at = datetime.fromisoformat(text)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class StudyRounds:
    """A Study's rounds: each whole search's round (``whole``: run id → round) and when
    each update round began (``began``: round number → its first whole search's commit,
    to the second, in round order)."""

    whole: Mapping[str, int]
    began: tuple[tuple[int, datetime], ...] = ()

    @property
    def updates(self) -> tuple[int, ...]:
        """The update rounds' numbers, in order."""
        return tuple(n for n, _ in self.began)

    def round_of(self, kind: str, source_id: str, joined: str) -> int:
        """The round of a source of ``kind`` (``run``, ``import``, ``paper``) that joined
        the Study at ``joined`` (ISO): a whole search's own round, else the latest update
        round begun by then (0 before the first)."""
        if kind == "run" and source_id in self.whole:
            return self.whole[source_id]
        i = bisect_right([at for _, at in self.began], instant(joined))
        return self.began[i - 1][0] if i else 0


def study_rounds(
    rows: Iterable[tuple[str, int, str]], begun: Iterable[tuple[int, str]] = ()
) -> StudyRounds:
    """The rounds of a Study's whole searches ``rows`` (run id, round, committed at) and
    of its update rounds begun by hand ``begun`` (round, began at)."""
    whole: dict[str, int] = {}
    began: dict[int, datetime] = {}
    for run_id, number, at in rows:
        whole[run_id] = number
        if number > 0:
            moment = instant(at)
            began[number] = min(began.get(number, moment), moment)
    for number, at in begun:
        moment = instant(at)
        began[number] = min(began.get(number, moment), moment)
    return StudyRounds(whole, tuple((n, began[n].replace(microsecond=0)) for n in sorted(began)))
