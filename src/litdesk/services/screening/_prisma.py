"""A Study's PRISMA 2020 flow computed from its trace and its screening decisions — never
typed (issue 28).

* **Identification**, per round: the Study's records (``study_records``) per database (a
  search lane's provider, an imported file), register (a trial register's name) or other
  method (a paper added by hand), and duplicates removed = the round's records − the
  studies of the working set first identified in that round.
* **Rounds**: a living review's update rounds (``study_search_rounds`` numbered from 1)
  are their own column, with the whole searches added in that round; any other source (an
  import, a kept search run, a paper added by hand) belongs to the round in force when it
  joined the Study — the latest update round begun by then, the initial round before the
  first — so nothing added after an update changes an earlier column. A working-set group
  belongs to the earliest round among its records (a record of a later round that joins it
  is a duplicate removed in that later round).
* **Screening**, per group: the settled verdict at each stage (the group's decisions are
  those on any of its member records, in time order; dual review per the Study's policy),
  the reports marked not retrieved, the full-text exclusions by reason.

Decisions that no longer fit the flow (a full-text decision on a report that is not
sought any more because its title/abstract decision changed, or on one marked not
retrieved) are left out and said so in the notes: the arithmetic always holds.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from litdesk.adapters.store import StudyRecordRow, whole_searches
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
from litdesk.services.dedup import WorkingGroup

__all__ = [
    "REGISTER_WORDS",
    "FlowResult",
    "RoundPlan",
    "compute_flow",
    "not_retrieved_groups",
    "round_labels",
    "source_kind",
]

SourceKind = Literal["database", "register", "other"]

#: a database name with one of these words is a trial register (PRISMA's "registers")
REGISTER_WORDS = ("clinicaltrials", "trial regist", "ictrp", "registry", "register")
#: the reason a full-text exclusion without one counts under (imported decisions)
NO_REASON = "reason not given"


@dataclass(frozen=True, slots=True)
class FlowResult:
    """The flow and what had to be left out to keep it whole."""

    flow: PrismaFlow
    notes: tuple[str, ...]
    #: round index of every group key (0: the initial round)
    round_of_group: dict[str, int]

    def to_dict(self) -> dict[str, object]:
        """The flow's rounds and totals, its table (one line per box and per reason and
        source, a column per round and the total) and the notes."""
        rows: list[dict[str, object]] = []
        box: str | None = None
        for label, values in self.flow.rows():
            level = (len(label) - len(label.lstrip(" "))) // 2
            if level == 0:
                box = _BOX_OF_LABEL.get(label)
            # the records behind the line: its box, or (a line under "Reports excluded")
            # the reports excluded for one reason
            reason = label.strip() if level and box == "excluded_reports" else None
            rows.append(
                {
                    "label": label.strip(),
                    "level": level,
                    "values": values,
                    "box": box if (level == 0 or reason is not None) else None,
                    "reason": reason,
                }
            )
        table = {"columns": [r.label for r in self.flow.rounds] + ["Total"], "rows": rows}
        return self.flow.to_dict() | {"table": table, "notes": list(self.notes)}


#: the line of the flow's table → the box whose records it lists (boxes removed before
#: screening have no records in the working set)
_BOX_OF_LABEL: dict[str, str] = {
    label: key
    for key, label in BOXES
    if key not in ("identified", "removed_duplicates", "removed_automation", "removed_other")
}


def source_kind(row: StudyRecordRow) -> SourceKind:
    """Where PRISMA counts a record: a database, a register or another method."""
    if row.source_kind == "paper":
        return "other"
    name = row.database.casefold().replace(".", "").replace("-", " ")
    return "register" if any(w in name for w in REGISTER_WORDS) else "database"


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """The flow's columns: each whole search's column (``of_run``), the labels (index
    0: the initial round) and when each update round began (``starts[i]``: column i + 1)."""

    of_run: dict[str, int]
    labels: list[str]
    starts: tuple[datetime, ...] = ()

    def column(self, row: StudyRecordRow) -> int:
        """The column of a record: its whole search's round, else the round in force when
        its source joined the Study (the latest update begun by then; 0 before the first)."""
        if row.source_kind == "run" and row.source_id in self.of_run:
            return self.of_run[row.source_id]
        return bisect_right(self.starts, _instant(row.added_at))


def _instant(text: str) -> datetime:
    """A stored ISO time as an aware instant (a naive one is UTC, as litdesk writes)."""
    at = datetime.fromisoformat(text)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def round_labels(rounds: Sequence[whole_searches.RoundRow]) -> RoundPlan:
    """Each whole search's column, the rounds' labels (index 0: the initial round) and
    when each update round began (its first whole search's commit)."""
    later = [r for r in rounds if r.round > 0]
    updates = sorted({r.round for r in later})
    index = {n: i + 1 for i, n in enumerate(updates)}
    began = {n: min(_instant(r.created_at) for r in later if r.round == n) for n in updates}
    of_run = {r.run_id: index.get(r.round, 0) for r in rounds}
    labels = ["Initial search"] + [f"Update {index[n]} ({began[n].date()})" for n in updates]
    # to the second: imports and papers keep whole seconds, so a source that joined in the
    # second the update began (after it: in the walk, a script) is that update's
    return RoundPlan(of_run, labels, tuple(began[n].replace(microsecond=0) for n in updates))


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
    plan = rounds or RoundPlan({}, ["Initial search"])
    labels = plan.labels
    n_rounds = len(labels)
    round_of = plan.column

    group_round: dict[str, int] = {}
    records: list[list[StudyRecordRow]] = [[] for _ in range(n_rounds)]
    to_screen: list[list[str]] = [[] for _ in range(n_rounds)]
    for g in groups:
        r = min(round_of(m) for m in g.members)
        group_round[g.key] = r
        to_screen[r].append(g.key)
        for m in g.members:
            records[round_of(m)].append(m)
    notes: list[str] = []
    title = history.final("title_abstract", policies["title_abstract"])
    full = {
        o.record: (o.verdict, o.reason or NO_REASON)
        for o in history.outcomes("full_text", policies["full_text"])
        if o.verdict is not None
    }
    missing = set(not_retrieved)
    sought = {k for k, v in title.items() if v != "exclude" and k in group_round}
    left_out = [k for k in full if k not in sought or k in missing]
    if left_out:
        notes.append(
            f"{len(left_out)} full-text decision(s) left out: the report is not sought for "
            "retrieval (its title/abstract decision changed) or is marked not retrieved"
        )
    stray_missing = [k for k in missing if k not in sought]
    if stray_missing:
        notes.append(
            f"{len(stray_missing)} report(s) marked not retrieved are no longer sought "
            "for retrieval and are not counted"
        )
    gone = [k for k in {*title, *full} if k not in group_round]
    if gone:
        notes.append(f"{len(gone)} decided record(s) are no longer in the working set")
    out = []
    for i, label in enumerate(labels):
        keys = set(to_screen[i])
        sources: dict[tuple[SourceKind, str], int] = {}
        for m in records[i]:
            k = (source_kind(m), m.database or "unnamed source")
            sources[k] = sources.get(k, 0) + 1
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
    return FlowResult(PrismaFlow(tuple(out)), tuple(notes), group_round)


def not_retrieved_groups(rows: Iterable[tuple[str, str]], group_of: Mapping[str, str]) -> set[str]:
    """The group keys whose latest retrieval row says not retrieved (``rows``: record key
    and status, oldest first; a group's status is its members' latest)."""
    status: dict[str, str] = {}
    for record_key, state in rows:
        status[group_of.get(record_key, record_key)] = state
    return {k for k, s in status.items() if s == "not_retrieved"}
