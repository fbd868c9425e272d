"""A Study's working set: its records deduplicated — one merged record per group (the
studies to screen), each with its member records and the rule that grouped them.

The groups are kept on the records (``study_records.grp``: the key of the group's first
record, so a group keeps its key when records are added later; ``rule``: why the record is
in its group). The records are reconciled with the Study's sources where the sources change:
every write transaction that adds or removes an import, a linked search run or a paper
(``sources_changed`` in the store) reconciles them before it commits, and regroups them
after (:func:`keep_working_sets`); every reviewer decision made or withdrawn regroups them
too (:func:`regroup`: the groups already there stay as they are unless a new record or a
changed decision changes them). Reading a Study never writes: it shows the records as the
writes left them, with a cheap check that they are in step with the sources
(:func:`in_step`). A run (the web's job, ``litdesk dedup --study``) reconciles and regroups
as well and also records the run with its review queue of uncertain pairs, which the
reviewer decides.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final
from weakref import WeakKeyDictionary

from sqlalchemy.engine import Connection

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import LitdeskError
from litdesk.adapters.store import RecordCounts, Store, StudyRecordRow, study_records
from litdesk.core.records import Paper
from litdesk.core.runs import Identification

from ._records import SYNC_LOCK, in_step, record_paper, sync_records, sync_records_in

if TYPE_CHECKING:  # the deduplication engine is imported when a Study is regrouped
    from litdesk.core.dedup import ContentCache, Decision

    from ._service import DedupReport, RecordRef, Reviewer

__all__ = [
    "FIRST_RULE",
    "PENDING_RULE",
    "WorkingGroup",
    "group_assignments",
    "identification",
    "in_step",
    "keep_working_sets",
    "refresh",
    "regroup",
    "merged_paper",
    "study_report",
    "working_groups",
    "working_page",
]

#: the rule of a group's first record (the one the others joined)
FIRST_RULE = "first identified"
#: the rule of a record not deduplicated yet
PENDING_RULE = "not deduplicated yet"


@dataclass(frozen=True, slots=True)
class WorkingGroup:
    """A study of the working set: its member records, first the one the others joined
    (``pending``: a record not deduplicated yet), and its merged record (:attr:`paper`)."""

    key: str
    members: tuple[StudyRecordRow, ...]
    pending: bool
    _merged: list[Paper] = field(default_factory=list, compare=False, repr=False)

    @property
    def paper(self) -> Paper:
        """The group's merged record, merged when first asked for (the PRISMA flow and the
        screening history read a working set's groups and members only)."""
        if not self._merged:
            self._merged.append(merged_paper(self.members))
        return self._merged[0]


#: the Studies whose working sets one process keeps per store (the most recently read)
KEPT_STUDIES: Final = 8
#: how long :func:`refresh` trusts that a Study's records it found in step with its
#: sources still are while their version is the same (seconds). Every write of a source
#: reconciles the records in its own transaction (``sources_changed``), and every write of
#: the records gives them a new version, so within it only a write that changed a source
#: without saying so could leave them out of step: repaired within this time, as the
#: Study page's in-step diagnostic (:data:`STEP_CHECK_SECONDS`) warns of it.
IN_STEP_SECONDS: Final = 60.0


@dataclass(frozen=True, slots=True)
class _Kept:
    """A Study's records in identification order and its working set, as read with
    ``version`` (the Study's ``records_version``)."""

    version: str
    rows: tuple[StudyRecordRow, ...]
    groups: tuple[WorkingGroup, ...]


class _KeptSets:
    """This process's kept working sets of one store's Studies (thread-safe, bounded). An
    entry serves a read only when the version that read sees is the entry's: every write
    of a Study's records, by any process or host on the database, gives it a new one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: OrderedDict[str, _Kept] = OrderedDict()
        #: the Studies :func:`refresh` found in step with their sources, nothing pending:
        #: at which records version, when (``time.monotonic``)
        self._in_step: dict[str, tuple[str, float]] = {}

    def in_step(self, study_id: str, version: str | None) -> bool:
        """Whether this process found the Study's records in step with its sources at
        ``version`` in the last :data:`IN_STEP_SECONDS`."""
        with self._lock:
            found = self._in_step.get(study_id)
        return (
            version is not None
            and found is not None
            and found[0] == version
            and time.monotonic() - found[1] < IN_STEP_SECONDS
        )

    def found_in_step(self, study_id: str, version: str) -> None:
        with self._lock:
            if len(self._in_step) > 10_000:
                self._in_step.clear()
            self._in_step[study_id] = (version, time.monotonic())

    def get(self, study_id: str, version: str | None) -> _Kept | None:
        if version is None:
            return None
        with self._lock:
            kept = self._sets.get(study_id)
            if kept is None or kept.version != version:
                return None
            self._sets.move_to_end(study_id)
            return kept

    def put(self, study_id: str, kept: _Kept) -> None:
        with self._lock:
            self._sets[study_id] = kept
            self._sets.move_to_end(study_id)
            while len(self._sets) > KEPT_STUDIES:
                self._sets.popitem(last=False)


_KEPT: Final[WeakKeyDictionary[Store, _KeptSets]] = WeakKeyDictionary()
_KEPT_LOCK: Final = threading.Lock()


def _kept_sets(store: Store) -> _KeptSets:
    with _KEPT_LOCK:
        sets = _KEPT.get(store)
        if sets is None:
            sets = _KEPT[store] = _KeptSets()
        return sets


def _working_set(store: Store, study_id: str, conn: Connection) -> _Kept:
    """The Study's records and working set as ``conn``'s transaction sees them: this
    process's kept ones when the Study's records version there is theirs (one small read),
    else read, grouped and kept under it."""
    sets = _kept_sets(store)
    version = study_records.records_version(conn, study_id)
    kept = sets.get(study_id, version)
    if kept is not None:
        return kept
    rows = tuple(study_records.list_records(conn, study_id))
    kept = _Kept(version or "", rows, tuple(_group(k, m) for k, m in _by_group(rows)))
    if version is not None:
        sets.put(study_id, kept)
    return kept


def regroup(store: Store, study_id: str) -> None:
    """Group the Study's records anew with the reviewer decisions in force (automatic
    decisions otherwise; no run recorded, the review queue is the last run's): after
    records came or went, or a decision was made or withdrawn. Records that changed
    meanwhile are left for the next regrouping."""
    with store.read() as conn:
        rows = list(_working_set(store, study_id, conn).rows)
    if not rows:
        return
    from ._history import study_decisions

    report = study_report(rows, decisions=study_decisions(store, study_id))
    with store.write() as conn:
        store.lock(conn, SYNC_LOCK, study_id)
        if study_records.count_records(conn, study_id).records == len(rows):
            study_records.set_groups(conn, study_id, group_assignments(report, rows))


log = logging.getLogger(__name__)


def refresh(store: Store, study_id: str) -> RecordCounts:
    """A write: the Study's records reconciled with its sources and its working set up to
    date (records that came are deduplicated against it, see :func:`regroup`). The writes
    that change sources do it themselves (:func:`keep_working_sets`); this brings a Study
    left out of step (a process killed between a commit and its regrouping) up to date.
    A read only when this process found the records in step at their version now within
    :data:`IN_STEP_SECONDS` (a Study page's screening line wrote each visit: a 5,000-record
    Study's sources and covered papers read under the write lock)."""
    sets = _kept_sets(store)
    with store.read() as conn:
        version = study_records.records_version(conn, study_id)
        if sets.in_step(study_id, version):  # this process found them so at this version
            return study_records.count_records(conn, study_id)
    counts, changed = sync_records(store, study_id)
    if changed or counts.pending:
        regroup(store, study_id)
        with store.read() as conn:
            counts = study_records.count_records(conn, study_id)
    elif version is not None:
        with store.read() as conn:
            if study_records.records_version(conn, study_id) == version:  # no write between
                sets.found_in_step(study_id, version)
    return counts


def _regroup_after(store: Store, study_id: str) -> None:
    """After a write that changed the Study's sources committed: its new records
    deduplicated against the working set. A failure leaves them "not deduplicated yet"
    (shown so, and grouped by the next write or run) and the committed write stands."""
    try:
        regroup(store, study_id)
    except LitdeskError as exc:
        log.warning("the Study %s's working set was not regrouped: %s", study_id, exc)


def keep_working_sets(store: Store) -> None:
    """Make the store's write transactions keep every Study's records in step with its
    sources (idempotent: the app and the areas that write Studies call it)."""

    def within(conn: Connection, study_id: str) -> bool:
        counts, changed = sync_records_in(conn, store, study_id)
        return changed or counts.pending > 0  # records came or went: regroup after

    store.on_sources_changed(within, lambda study_id: _regroup_after(store, study_id))


def identification(
    store: Store, study_id: str, *, checks: StepChecks | None = None
) -> Identification:
    """The Study's records per database and in all, and its studies after duplicates
    removed (the working set; records not deduplicated yet count as their own) — the
    numbers the Study page, its exports and PRISMA show. A read: never writes. ``checks``:
    how often the records are checked to be in step with the sources (a diagnostic,
    logged; without it, every time)."""
    with store.read() as conn:
        counts, per = study_records.count_records_by_database(conn, study_id)
        if (checks is None or checks.due(study_id)) and not in_step(conn, study_id):
            log.warning("the Study %s's records are out of step with its sources", study_id)
    return Identification(per, counts.records, counts.working_set, counts.pending)


#: how often one process checks (and warns) that a Study's records are in step with its
#: sources when its numbers are read (seconds): the check is a diagnostic of five
#: statements, and the Study page is read on every visit
STEP_CHECK_SECONDS: Final = 60.0


class StepChecks:
    """When each Study's records were last checked to be in step with its sources, by the
    app's clock (one per app: the Studies area's)."""

    def __init__(self, clock: Clock = SYSTEM_CLOCK, every: float = STEP_CHECK_SECONDS) -> None:
        self._clock, self.every = clock, every
        self._checked: dict[str, float] = {}
        self._lock = threading.Lock()

    def due(self, study_id: str) -> bool:
        """Whether to check ``study_id`` now (a yes counts as the check)."""
        now = self._clock.monotonic()
        with self._lock:
            last = self._checked.get(study_id)
            if last is not None and now - last < self.every:
                return False
            if len(self._checked) > 10_000:
                self._checked.clear()
            self._checked[study_id] = now
            return True


def _by_group(rows: Sequence[StudyRecordRow]) -> list[tuple[str, list[StudyRecordRow]]]:
    """``rows`` (in identification order) by group, in the order of their first records,
    each group's members first the one the others joined."""
    by_group: dict[str, list[StudyRecordRow]] = {}
    for r in rows:
        by_group.setdefault(r.grp or r.key, []).append(r)
    for key, members in by_group.items():
        members.sort(key=lambda r: (r.key != key, r.added_at, r.source_id, r.position))
    return list(by_group.items())


def _group(key: str, members: list[StudyRecordRow]) -> WorkingGroup:
    return WorkingGroup(key, tuple(members), members[0].grp is None)


def working_groups(store: Store, study_id: str) -> list[WorkingGroup]:
    """The Study's working set, in the order its first records were identified (the
    records reconciled with the sources and regrouped first when they changed); kept by
    this process while the Study's records version is the same (:func:`_working_set`)."""
    with store.read() as conn:
        return list(_working_set(store, study_id, conn).groups)


#: the most record keys a page of the working set names in one statement
_PAGE_KEYS: Final = 5_000


def working_page(
    store: Store, study_id: str, offset: int, limit: int
) -> tuple[list[WorkingGroup], int]:
    """One page of :func:`working_groups` (only its groups merged) and how many in all:
    every record's key and group read, then the documents of the page's records only (a
    7,100-record Study's page read and parsed every record's document)."""
    with store.read() as conn:
        kept = _kept_sets(store).get(study_id, study_records.records_version(conn, study_id))
        if kept is not None:  # this process's working set is the Study's: no record read
            return list(kept.groups[offset : offset + limit]), len(kept.groups)
        order = study_records.record_groups_in_order(conn, study_id)
        members: dict[str, list[str]] = {}
        for key, grp in order:
            members.setdefault(grp or key, []).append(key)
        shown = list(members)[offset : offset + limit]
        keys = [k for g in shown for k in members[g]]
        if len(keys) <= _PAGE_KEYS:
            rows = study_records.list_records(conn, study_id, keys=keys) if keys else []
        else:  # groups of thousands of records: every record read, as before
            wanted = set(keys)
            rows = [r for r in study_records.list_records(conn, study_id) if r.key in wanted]
    return [_group(k, m) for k, m in _by_group(rows)], len(members)


def _ref(row: StudyRecordRow) -> RecordRef:
    from ._service import RecordRef

    lines = row.data.get("lines")
    span = (int(lines[0]), int(lines[1])) if isinstance(lines, list) and len(lines) == 2 else (0, 0)
    source_record = row.data.get("source_record")
    return RecordRef(
        str(row.data.get("file") or row.data.get("label") or row.source_id),
        row.position,
        str(source_record) if source_record else None,
        row.digest,
        span,
    )


def study_report(
    rows: Sequence[StudyRecordRow],
    *,
    decisions: Mapping[tuple[str, str], Decision] | None = None,
    reviewer: Reviewer | None = None,
    auto_only: bool = False,
    merge_corrections: bool | None = None,
) -> DedupReport:
    """Deduplicate a Study's records (all of them, the reviewer decisions in force)."""
    from ._service import dedup_records

    refs = [_ref(r) for r in rows]
    papers = [record_paper(r) for r in rows]
    titles: dict[int, list[str]] = {}
    for i, r in enumerate(rows):
        alts = r.data.get("alt_titles")
        if isinstance(alts, list) and alts:
            titles[i] = [str(t) for t in alts]
    return dedup_records(
        refs, papers, titles=titles, decisions=decisions, reviewer=reviewer,
        auto_only=auto_only, merge_corrections=merge_corrections,
    )  # fmt: skip


def _why(ev: Mapping[str, object], reason: str, stage: int) -> str:
    if stage == 1:
        ids = ev.get("identifiers")
        names = ", ".join(str(x) for x in ids) if isinstance(ids, list) else ""
        return f"shared identifier ({names})" if names else "shared identifier"
    return reason


def group_assignments(
    report: DedupReport, rows: Sequence[StudyRecordRow]
) -> list[tuple[str, str | None, str | None]]:
    """Each record's ``(key, group key, rule)`` from a run over ``rows`` (in its order)."""
    group_of: dict[int, int] = {}
    for k, g in enumerate(report.result.groups):
        for i in g:
            group_of[i] = k
    heads = {k: min(g) for k, g in enumerate(report.result.groups)}
    rule: dict[int, str] = {}
    for p in report.result.pairs:
        if p.decision != "merge" or group_of.get(p.a) != group_of.get(p.b):
            continue
        why = _why(p.evidence, p.reason, p.stage)
        for i in (p.b, p.a):
            if i != heads[group_of[i]] and i not in rule:
                rule[i] = why
                break
    out: list[tuple[str, str | None, str | None]] = []
    for i, row in enumerate(rows):
        k = group_of[i]
        head = heads[k]
        why = FIRST_RULE if i == head else rule.get(i, "shared identifier")
        out.append((row.key, rows[head].key, why))
    return out


#: a group's members' sightings: source, kind, position and record
_Sightings = tuple[tuple[str, str, int, Paper], ...]


#: a group's merged record by its members' sightings (what the merge reads: source, kind,
#: position and record): the working set's exports, ZIPs and screen sets merge the same
#: groups again (a 7,100-record Study's 2,323 groups of several records: 64 ms each time).
#: Keyed by content like the deduplication's caches; the merged records are shared (frozen).
#: Made on first use (:func:`_merged_papers`): listing Studies imports no deduplication.
MERGED_PAPERS: ContentCache[_Sightings, Paper] | None = None
_MERGED_LOCK = threading.Lock()


def _merged_papers() -> ContentCache[_Sightings, Paper]:
    global MERGED_PAPERS
    made = MERGED_PAPERS
    if made is not None:  # every group of every export asks: no lock once it is made
        return made
    with _MERGED_LOCK:
        if MERGED_PAPERS is None:
            from litdesk.core.dedup import ContentCache

            MERGED_PAPERS = ContentCache(10_000)
        return MERGED_PAPERS


def merged_paper(members: Sequence[StudyRecordRow]) -> Paper:
    """A group's merged record (fields merged as a deduplication run merges them)."""
    papers = [record_paper(r) for r in members]
    if len(papers) == 1:
        return papers[0]
    key = tuple(
        (r.source_id, r.source_kind, r.position, p) for r, p in zip(members, papers, strict=True)
    )
    return _merged_papers().get(key, lambda: _merge(key))


def _merge(sightings: _Sightings) -> Paper:
    from litdesk.core.fusion import Sighting, canonical_order, merge_records

    ordered = canonical_order(
        [Sighting(lane=s, provider=k, rank=pos + 1, paper=p) for s, k, pos, p in sightings]
    )
    merged, _ = merge_records(ordered)
    return merged
