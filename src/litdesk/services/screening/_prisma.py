"""A Study's PRISMA 2020 flow computed from its trace and its screening decisions — never
typed (issue 28).

* **Identification**, per round: the Study's records (``study_records``) per database (a
  search lane's provider, an imported file), register (a trial register's name) or other
  method (a paper added by hand), and duplicates removed = the round's records − the
  studies of the working set first identified in that round.
* **Rounds**: a living review's update rounds (``study_search_rounds`` numbered from 1,
  and the rounds begun by hand with ``study round``: ``study_begun_rounds``) are their own
  column, with the whole searches added in that round; any other source (an
  import, a kept search run, a paper added by hand) belongs to the round in force when it
  joined the Study — the latest update round begun by then, the initial round before the
  first — so nothing added after an update changes an earlier column. A working-set group
  belongs to the earliest round among its records (a record of a later round that joins it
  is a duplicate removed in that later round).
* **Screening**, per group: the settled verdict at each stage (the group's decisions are
  those on any of its member records, in time order; dual review per the Study's policy),
  the reports marked not retrieved, the full-text exclusions by reason.

Decisions that no longer fit the flow (a full-text decision on a report that is not
sought any more because its title/abstract decision changed) are left out and said so in
the notes: the arithmetic always holds. A report recorded not retrieved is not assessed:
its full-text decisions stay in the history but are not counted
(:func:`~._state.counted_history`, the rule progress, agreement and conflicts follow too)
until it is marked retrieved again; the notes say how many.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy.engine import Connection

from litdesk.adapters.store import StudyRecordRow, screening, whole_searches
from litdesk.core.imports import IMPORT_SOURCE_KINDS, REGISTER_WORDS, kind_of_name
from litdesk.core.runs import StudyRounds, study_rounds
from litdesk.core.screening import (
    BOXES,
    ConflictPolicy,
    DecisionHistory,
    PrismaFlow,
    SourceCount,
    Stage,
    Verdict,
    prisma_round,
)
from litdesk.core.words import dates, plural
from litdesk.services.dedup import WorkingGroup

from ._state import counted_history

__all__ = [
    "REGISTER_WORDS",
    "FlowResult",
    "Identified",
    "RoundPlan",
    "compute_flow",
    "not_retrieved_groups",
    "not_retrieved_now",
    "round_labels",
    "study_plan",
    "source_kind",
]

SourceKind = Literal["database", "register", "other"]
_KINDS: tuple[SourceKind, ...] = ("database", "register", "other")

#: the reason a full-text exclusion without one counts under (imported decisions)
NO_REASON = "reason not given"


@dataclass(frozen=True, slots=True)
class Identified:
    """A record behind "Records identified": one source's record (a member record of the
    working set, before deduplication), the source and kind it counts under, the study it
    is in (its group) and — when it is one of the duplicates removed — the record it
    duplicates: its group's record kept to screen (``None``: it is that record)."""

    row: StudyRecordRow
    kind: SourceKind
    source: str
    group: str
    duplicate_of: str | None


#: a flow line under "Records identified" → the kind of source its records came from
KIND_OF_LINE: dict[str, SourceKind] = {
    "from databases": "database",
    "from registers": "register",
    "from other methods": "other",
}


@dataclass(frozen=True, slots=True)
class FlowResult:
    """The flow and what had to be left out to keep it whole."""

    flow: PrismaFlow
    notes: tuple[str, ...]
    #: round index of every group key (0: the initial round)
    round_of_group: dict[str, int]
    #: when each column's round began (ISO, for machines; ``None``: the initial round)
    began: tuple[str | None, ...] = ()
    #: per round, the records identified (sources in the flow's order; the duplicates
    #: removed are those with ``duplicate_of``)
    identified: tuple[tuple[Identified, ...], ...] = ()

    def to_dict(self) -> dict[str, object]:
        """The flow's rounds and totals, its table (one line per box and per reason and
        source, a column per round and the total) and the notes."""
        rows: list[dict[str, object]] = []
        box: str | None = None
        kind: SourceKind | None = None
        for label, values in self.flow.rows():
            level = (len(label) - len(label.lstrip(" "))) // 2
            if level == 0:
                box = _BOX_OF_LABEL.get(label)
            # the records behind the line: its box; under "Reports excluded" the reports
            # excluded for one reason; under "Records identified" a kind of source (level
            # 1) or one source (level 2)
            reason = label.strip() if level and box == "excluded_reports" else None
            if box == "identified" and level == 1:
                kind = KIND_OF_LINE.get(label.strip())
            source = label.strip() if box == "identified" and level == 2 else None
            sub = reason is not None or (box == "identified" and kind is not None)
            rows.append(
                {
                    "label": label.strip(),
                    "level": level,
                    "values": values,
                    "box": box if (level == 0 or sub) else None,
                    "reason": reason,
                    "kind": kind if box == "identified" and level else None,
                    "source": source,
                }
            )
        table = {"columns": [r.label for r in self.flow.rounds] + ["Total"], "rows": rows}
        out = self.flow.to_dict() | {"table": table, "notes": list(self.notes)}
        if self.began:  # the labels carry dates for people; the JSON also the ISO time
            out["rounds"] = [
                r.to_dict() | {"began": at}
                for r, at in zip(self.flow.rounds, self.began, strict=True)
            ]
        return out


#: the line of the flow's table → the box whose records it lists (litdesk removes no
#: record before screening but duplicates: those two boxes are always 0)
_BOX_OF_LABEL: dict[str, str] = {
    label: key for key, label in BOXES if key not in ("removed_automation", "removed_other")
}


def source_kind(row: StudyRecordRow) -> SourceKind:
    """Where PRISMA counts a record: a database, a register or another method (an
    import's stated kind; a paper added by hand: another method; else a register when its
    database's name has a register's words)."""
    if row.source_kind == "paper":
        return "other"
    stated = row.data.get("prisma_kind")
    for kind in IMPORT_SOURCE_KINDS:
        if stated == kind:
            return kind
    return kind_of_name(row.database)


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """The flow's columns: the Study's rounds (``rounds``: the one rule that places a
    source, shared with PRISMA-S) and the labels (index 0: the initial round; column i + 1:
    the i-th update round)."""

    rounds: StudyRounds
    labels: list[str]

    def column(self, row: StudyRecordRow) -> int:
        """The column of a record: the round of its source (:meth:`StudyRounds.round_of`)."""
        number = self.rounds.round_of(row.source_kind, row.source_id, row.added_at)
        return self.rounds.updates.index(number) + 1 if number else 0


def round_labels(
    rounds: Sequence[whole_searches.RoundRow],
    begun: Sequence[whole_searches.BegunRound] = (),
) -> RoundPlan:
    """The flow's columns from the Study's whole searches and its rounds begun by hand:
    "Initial search", then "Update N (6 Dec 2026)" for each update round (the day it
    began — its first whole search's commit, or when it was begun by hand — with the time
    when two updates share a day: "6 Dec 2026, 13:16"; machine output keeps the ISO
    times). A round begun by hand is its column even while nothing is in it yet."""
    plan = study_rounds(
        ((r.run_id, r.round, r.created_at) for r in rounds),
        ((b.round, b.began_at) for b in begun),
    )
    shown = dates([at for _, at in plan.began])  # with the time when two share a day
    labels = ["Initial search"] + [f"Update {i} ({d})" for i, d in enumerate(shown, start=1)]
    return RoundPlan(plan, labels)


def study_plan(conn: Connection, study_id: str) -> RoundPlan:
    """The Study's flow columns as stored (:func:`round_labels` of both kinds of round)."""
    return round_labels(
        whole_searches.list_rounds(conn, study_id), whole_searches.begun_rounds(conn, study_id)
    )


def compute_flow(
    groups: Sequence[WorkingGroup],
    *,
    history: DecisionHistory,
    policies: Mapping[Stage, ConflictPolicy],
    not_retrieved: Collection[str] = (),
    rounds: RoundPlan | None = None,
) -> FlowResult:
    """The flow of a Study's working set ``groups``; ``history`` is keyed by group key,
    ``not_retrieved`` holds group keys, ``rounds`` places each record in its column."""
    plan = rounds or RoundPlan(StudyRounds({}), ["Initial search"])
    labels = plan.labels
    n_rounds = len(labels)
    round_of = plan.column

    group_round: dict[str, int] = {}
    records: list[list[StudyRecordRow]] = [[] for _ in range(n_rounds)]
    to_screen: list[list[str]] = [[] for _ in range(n_rounds)]
    found: list[list[Identified]] = [[] for _ in range(n_rounds)]
    for g in groups:
        columns = [round_of(m) for m in g.members]
        r = min(columns)
        group_round[g.key] = r
        to_screen[r].append(g.key)
        # the record kept to screen: of the group's records in its first round, the one
        # added first (a search run before an import of that round keeps its record; on a
        # tie the group's order: the one the others joined); every other one duplicates it
        kept = min((m for m, c in zip(g.members, columns, strict=True) if c == r), key=_added)
        for m, c in zip(g.members, columns, strict=True):
            records[c].append(m)
            name = m.database or "unnamed source"
            dup = None if m is kept else kept.key
            found[c].append(Identified(m, source_kind(m), name, g.key, dup))
    notes: list[str] = []
    title = history.final("title_abstract", policies["title_abstract"])
    missing = set(not_retrieved)
    sought = {k for k, v in title.items() if v != "exclude" and k in group_round}
    # the one rule (as progress, agreement and conflicts count): a report recorded not
    # retrieved is not assessed, its full-text decisions stay recorded but do not count
    held = {
        o.record
        for o in history.outcomes("full_text", policies["full_text"])
        if o.record in missing and o.record in sought and (o.decisions or o.resolution)
    }
    full = {
        o.record: (o.verdict, o.reason or NO_REASON)
        for o in counted_history(history, missing).outcomes("full_text", policies["full_text"])
        if o.verdict is not None
    }
    if held:
        notes.append(
            f"{plural(len(held), 'report')} recorded not retrieved after full-text decisions: "
            "the decisions stay in the history but are not counted (marked retrieved again, "
            "they count again)"
        )
    left_out = [k for k in full if k not in sought]
    if left_out:
        notes.append(
            f"{plural(len(left_out), 'full-text decision')} left out: the report is not sought "
            "for retrieval (its title/abstract decision changed)"
        )
    stray_missing = [k for k in missing if k not in sought]
    if stray_missing:
        notes.append(
            f"not counted: {plural(len(stray_missing), 'report')} marked not retrieved but "
            "no longer sought for retrieval"
        )
    gone = [k for k in {*title, *full} if k not in group_round]
    if gone:
        notes.append(f"not in the working set any more: {plural(len(gone), 'decided record')}")
    out = []
    for i, label in enumerate(labels):
        keys = set(to_screen[i])
        sources: dict[tuple[SourceKind, str], int] = {}
        for f in found[i]:
            sources[(f.kind, f.source)] = sources.get((f.kind, f.source), 0) + 1
        # in the flow's order: databases, registers, other methods, each by name
        found[i].sort(key=lambda f: (_KINDS.index(f.kind), f.source))
        ta: dict[str, Verdict] = {k: v for k, v in title.items() if k in keys}
        ft: dict[str, tuple[Verdict, str]] = {
            k: v for k, v in full.items() if k in keys and k in sought and k not in missing
        }
        out.append(
            prisma_round(
                label=label,
                sources=[SourceCount(n, kind, c) for (kind, n), c in sources.items()],
                to_screen=to_screen[i],
                title_abstract=ta,
                full_text=ft,
                not_retrieved=[k for k in missing if k in keys and k in sought],
                removed_duplicates=len(records[i]) - len(to_screen[i]),
            )
        )
    for made, listed in zip(out, found, strict=True):  # the lists behind the numbers add up
        removed = sum(1 for f in listed if f.duplicate_of is not None)
        assert len(listed) == made.identified, made.label
        assert removed == made.removed_duplicates, made.label
    began = (None, *(at.isoformat() for _, at in plan.rounds.began))
    flow = PrismaFlow(tuple(out))
    return FlowResult(flow, tuple(notes), group_round, began, tuple(map(tuple, found)))


def _added(row: StudyRecordRow) -> datetime:
    """When a record was added, as a time (imports store whole seconds, runs microseconds:
    their strings do not sort); a value that is no time sorts last."""
    try:
        when = datetime.fromisoformat(row.added_at)
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def not_retrieved_groups(rows: Iterable[tuple[str, str]], group_of: Mapping[str, str]) -> set[str]:
    """The group keys whose latest retrieval row says not retrieved (``rows``: record key
    and status, oldest first; a group's status is its members' latest)."""
    status: dict[str, str] = {}
    for record_key, state in rows:
        status[group_of.get(record_key, record_key)] = state
    return {k for k, s in status.items() if s == "not_retrieved"}


def not_retrieved_now(conn: Connection, study_id: str, group_of: Mapping[str, str]) -> set[str]:
    """The group keys of the Study whose report is now recorded as not retrieved (PRISMA's
    "reports not retrieved": they are not assessed, so the full-text queue passes over them
    and a full-text decision on one is refused until it is marked retrieved)."""
    rows = screening.list_retrieval(conn, study_id)
    return not_retrieved_groups(((r.record_key, r.status) for r in rows), group_of)
