"""Beginning a living review's update round by hand (issue 28): ``study round``.

A review team that keeps its review current by re-running its searches in databases
litdesk cannot query (Embase, Scopus, Web of Science, CINAHL) and importing the new
exports begins the update round first: round N (one past every round so far, whole
searches' and begun ones') begins at the next whole second, and every import or paper
that joins the Study from then on is that round's (:class:`litdesk.core.runs.StudyRounds`
places it; PRISMA 2020's columns and PRISMA-S read the same rule).

Choices (docs/studies.md: "Update rounds begun by hand"):

* The round begins at a whole second, after waiting for it (under a second): imports and
  papers keep whole seconds, so a source that joined before the call is never counted in
  the new round, and one that joins after it always is.
* A begun round shows as its own column even while nothing is in it yet (an update that
  found nothing is part of a living review's flow); beginning another round while the
  latest begun round has nothing in it is refused (``round_empty``): a second click or a
  repeated command never makes empty columns.
* ``study update`` after a begun round that has no whole search yet runs as that round
  (its searches beside the imports); after it has one, the next number.
* Nothing is undone: a begun round is a fact of the review's history (the Study's
  history says who began it and when).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from litdesk._errors import RefusedError
from litdesk.adapters.store import Store, repo, study_records
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import whole_searches as whole
from litdesk.core.runs import instant

from ._requests import StudiesInputError

__all__ = [
    "MAX_ROUND_NOTE",
    "BeginRoundRequest",
    "RoundBegun",
    "RoundCases",
    "begin_round",
    "begun_rows",
]

MAX_ROUND_NOTE: Final = 500


@dataclass(frozen=True, slots=True)
class BeginRoundRequest:
    """Begin the Study's next update round; ``note``: what it is ("Embase and Scopus
    re-run, exports of 8 Dec 2026"), at most 500 characters."""

    study: str
    note: str | None = None

    def __post_init__(self) -> None:
        if not self.study.strip():
            raise StudiesInputError("name the Study whose update round begins", code="study")
        note = (self.note or "").strip() or None
        if note is not None and len(note) > MAX_ROUND_NOTE:
            raise StudiesInputError(
                f"the round's note is {len(note):,} characters: at most {MAX_ROUND_NOTE}",
                code="note",
            )
        object.__setattr__(self, "note", note)


@dataclass(frozen=True, slots=True)
class RoundBegun:
    """The update round just begun: its number, when, by whom, the note."""

    study_id: str
    study_name: str
    round: int
    began_at: str
    by: str
    note: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "round": self.round,
            "label": f"update round {self.round}",
            "began_at": self.began_at,
            "by": self.by,
            "note": self.note,
        }


def _next_second() -> datetime:
    """The next whole second, once it has come (see the module's choices)."""
    now = datetime.now(UTC)
    start = now.replace(microsecond=0) + timedelta(seconds=1)
    time.sleep(max(0.0, (start - datetime.now(UTC)).total_seconds()))
    return start


def _empty_round(conn: Any, study_id: str) -> whole.BegunRound | None:
    """The latest round when it was begun by hand and nothing joined the Study since."""
    begun = whole.begun_rounds(conn, study_id)
    if not begun:
        return None
    last = begun[-1]
    if whole.next_round(conn, study_id, update=True) != last.round:
        return None  # an update ran as it, or a later round exists
    since = instant(last.began_at)
    joined = study_records.study_sources(conn, study_id)
    return None if any(instant(s.at) >= since for s in joined) else last


def begin_round(store: Store, request: BeginRoundRequest, *, owner: str) -> RoundBegun:
    """Begin the Study's next update round (write needed: owner or editor)."""
    with store.read() as conn:  # refused at once, before waiting for the second
        row, _ = repo.study_with_role(conn, request.study, account=owner, need="write")
    at = _next_second().isoformat()
    with store.write() as conn:
        access.require_study(conn, owner, row.id, "write")
        whole.lock_rounds(conn, row.id)
        empty = _empty_round(conn, row.id)
        if empty is not None:
            raise RefusedError(
                f"update round {empty.round} of the Study {row.name!r}, begun "
                f"{empty.began_at}, has nothing in it yet: import its searches' exports "
                "first (a new round begins after it has records)",
                code="round_empty",
            )
        number = whole.next_round(conn, row.id)
        begun = whole.begin_round(conn, row.id, number=number, by=owner, at=at, note=request.note)
        target = f"update round {number}" + (f": {request.note}" if request.note else "")
        access.add_history(conn, row.id, owner, "round_begun", target[:300], at)
    return RoundBegun(row.id, row.name, begun.round, begun.began_at, begun.by, begun.note)


def begun_rows(store: Store, study_id: str) -> list[dict[str, object]]:
    """The Study's update rounds begun by hand, for its page and ``search-rounds``."""
    with store.read() as conn:
        return [
            {"round": b.round, "began_at": b.began_at, "by": b.by, "note": b.note}
            for b in whole.begun_rounds(conn, study_id)
        ]


class RoundCases:
    """The studies area's use case of rounds begun by hand (a base of
    :class:`~._area.StudiesArea`, which keeps the store)."""

    store: Store

    def begin_round(self, request: BeginRoundRequest, *, owner: str) -> RoundBegun:
        """Begin the Study's next update round (owner or editor; see the module)."""
        return begin_round(self.store, request, owner=owner)
