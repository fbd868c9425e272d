"""What a Study screens and what its reviewers decided, kept warm between calls.

The items are the groups of the Study's deduplicated working set
(:func:`litdesk.services.dedup.working_groups`); a group is named by its key, and any of
its member records' keys names it too. Building the set merges every group (about half a
second for 2,000 records), so it is cached per Study and checked on each call against a
fingerprint of the records and their groups (one aggregate query): records added or
regrouped rebuild it.

Decisions are stored against record keys; a group's decisions are those made on any of
its member keys, in time order (:func:`history_of`). Rows are append-only and every writer
appends under the Study's screening lock, so the cached rows are extended with the rows
after the newest one seen (and reloaded whole if the count disagrees).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from sqlalchemy.engine import Connection

from litdesk.adapters.store import Store, screening
from litdesk.core.screening import DecisionHistory, DecisionInputError, Stage, Verdict
from litdesk.services.dedup import WorkingGroup, refresh, working_groups

__all__ = ["ScreenSet", "StudyCache", "build_screen_set", "history_of"]

#: Studies whose sets stay cached in one process
_CACHED_STUDIES: Final = 16

_KINDS: Final = {"decision": "decide", "resolution": "resolve"}

#: the record key of a saved paper added to a Study by hand (``paper:<paper id>``)
PAPER_PREFIX: Final = "paper:"


@dataclass(frozen=True, slots=True)
class ScreenSet:
    """The working set as screened: groups in working-set order, a position by group key,
    the group key of every member record key."""

    fingerprint: str
    groups: tuple[WorkingGroup, ...]
    position: dict[str, int]
    group_of: dict[str, str]
    keys: tuple[str, ...] = ()
    key_set: frozenset[str] = frozenset()

    def group(self, key: str) -> WorkingGroup | None:
        """The group ``key`` (a group's or any member's key) belongs to. A paper added to
        the Study by hand is the record ``paper:<id>``; its saved paper's id (``MED-…``, as
        ``study show`` and the reader name it) names it too."""
        gk = self.group_of.get(key)
        if gk is None and not key.startswith(PAPER_PREFIX):
            gk = self.group_of.get(PAPER_PREFIX + key)
        return None if gk is None else self.groups[self.position[gk]]


def build_screen_set(store: Store, study_id: str, fingerprint: str = "") -> ScreenSet:
    """The Study's working set as screened (``fingerprint``: what it was built from)."""
    groups = tuple(working_groups(store, study_id))
    position = {g.key: i for i, g in enumerate(groups)}
    group_of = {m.key: g.key for g in groups for m in g.members}
    for g in groups:
        group_of[g.key] = g.key
    keys = tuple(g.key for g in groups)
    return ScreenSet(fingerprint, groups, position, group_of, keys, frozenset(keys))


@dataclass(slots=True)
class _Entry:
    screen: ScreenSet | None = None
    rows: list[screening.DecisionRow] = field(default_factory=list)
    history: tuple[str, int, DecisionHistory, dict[int, int]] | None = None


def history_of(
    rows: list[screening.DecisionRow], group_of: dict[str, str]
) -> tuple[DecisionHistory, dict[int, int]]:
    """The decision history of the Study with each row's record as its group's key (a row
    on a record no longer in the Study keeps its own key), and each row id's entry number.
    An undo that no longer applies (its decision was superseded after a regrouping joined
    two records both decided) is left out."""
    history = DecisionHistory()
    seq_of: dict[int, int] = {}
    for row in rows:
        record = group_of.get(row.record_key, row.record_key)
        at = datetime.fromisoformat(row.made_at)
        stage: Stage = "full_text" if row.stage == "full_text" else "title_abstract"
        try:
            if row.kind == "undo":
                target = seq_of.get(row.undoes) if row.undoes is not None else None
                if target is None:
                    continue
                entry = history.undo(target, row.reviewer, at=at, note=row.note)
            else:
                verdict: Verdict = (
                    "include"
                    if row.verdict == "include"
                    else "exclude"
                    if row.verdict == "exclude"
                    else "maybe"
                )
                add = history.resolve if _KINDS.get(row.kind) == "resolve" else history.decide
                entry = add(
                    record,
                    row.reviewer,
                    verdict,
                    stage=stage,
                    at=at,
                    reason=row.reason,
                    note=row.note,
                )
        except DecisionInputError:
            continue
        seq_of[row.id] = entry.seq
    return history, seq_of


class StudyCache:
    """Per-Study screen sets and decision rows of this process (thread-safe)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        #: one builder per Study at a time (others wait for its set instead of building)
        self._building: dict[str, threading.Lock] = {}

    def _entry(self, study_id: str) -> _Entry:
        with self._lock:
            entry = self._entries.get(study_id)
            if entry is None:
                entry = self._entries[study_id] = _Entry()
                while len(self._entries) > _CACHED_STUDIES:
                    self._entries.popitem(last=False)
            else:
                self._entries.move_to_end(study_id)
            return entry

    def cached(self, study_id: str, fingerprint: str) -> ScreenSet | None:
        """The cached set when it is still the Study's (``fingerprint``: read now)."""
        current = self._entry(study_id).screen
        return current if current is not None and current.fingerprint == fingerprint else None

    def screen_set(self, study_id: str, *, reconcile: bool = False) -> ScreenSet:
        """The Study's items as they are now (``reconcile``: the records reconciled with
        the Study's sources first, as the Study page does; a listing does this, the next
        record does not)."""
        if reconcile:
            refresh(self.store, study_id)
        with self.store.read() as conn:
            fingerprint = screening.record_fingerprint(conn, study_id)
        current = self.cached(study_id, fingerprint)
        if current is not None:
            return current
        with self._lock:
            builder = self._building.setdefault(study_id, threading.Lock())
        with builder:
            current = self.cached(study_id, fingerprint)
            if current is not None:
                return current
            # the fingerprint read before the build: a change meanwhile rebuilds next time
            built = build_screen_set(self.store, study_id, fingerprint)
            entry = self._entry(study_id)
            with self._lock:
                entry.screen = built
                entry.history = None
            return built

    def rows(self, study_id: str, *, conn: Connection | None = None) -> list[screening.DecisionRow]:
        """Every decision row of the Study, oldest first (cached rows extended); ``conn``:
        read in that transaction (a writer holding the Study's lock)."""
        if conn is None:
            with self.store.read() as own:
                return self._rows(study_id, own)
        return self._rows(study_id, conn)

    def _rows(self, study_id: str, conn: Connection) -> list[screening.DecisionRow]:
        entry = self._entry(study_id)
        count, newest = screening.count_decisions(conn, study_id)
        with self._lock:
            cached = list(entry.rows)
        last = cached[-1].id if cached else 0
        if newest == last and count == len(cached):
            return cached
        if newest < last or count < len(cached):
            cached, last = [], 0
        fresh = cached + screening.list_decisions(conn, study_id, after=last)
        if len(fresh) != count:  # not a pure extension: read it whole
            fresh = screening.list_decisions(conn, study_id)
        with self._lock:
            if not fresh or not entry.rows or entry.rows[-1].id <= fresh[-1].id:
                entry.rows = fresh
        return fresh

    def history(
        self, study_id: str, screen: ScreenSet, *, conn: Connection | None = None
    ) -> tuple[DecisionHistory, dict[int, int], list[screening.DecisionRow]]:
        """The Study's decision history over ``screen``'s groups (cached until a decision
        or the set changes); the row id → entry map and the rows."""
        rows = self.rows(study_id, conn=conn)
        newest = rows[-1].id if rows else 0
        entry = self._entry(study_id)
        with self._lock:
            cached = entry.history
        if cached is not None and cached[0] == screen.fingerprint and cached[1] == newest:
            return cached[2], cached[3], rows
        history, seq_of = history_of(rows, screen.group_of)
        with self._lock:
            entry.history = (screen.fingerprint, newest, history, seq_of)
        return history, seq_of, rows

    def forget(self, study_id: str) -> None:
        with self._lock:
            self._entries.pop(study_id, None)
