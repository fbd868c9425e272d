"""The team half of screening, computed over the cached set and history (pure): the
resolution queue of a stage, agreement per reviewer pair, and the plan of a decisions
import (which rows to record, which are recorded already, which match no record).

Blind: while a stage has dual review and is not revealed, the queue is shown to nobody
(the owner reveals it) and agreement at that stage only to the Study owner.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from litdesk.core.screening import (
    STAGES,
    Decision,
    DecisionHistory,
    ImportedDecisions,
    Outcome,
    Stage,
    Verdict,
    agreement,
)

from ._config import ScreeningConfig
from ._exchange import Matched, RecordIndex, Unmatched, match_decisions
from ._items import ScreenSet
from ._state import NOT_RETRIEVED, stage_items
from ._team_requests import ConflictRow, ConflictStatus

__all__ = [
    "ConflictQueue",
    "ImportPlan",
    "PlannedDecision",
    "agreement_pairs",
    "conflict_queue",
    "conflict_rows",
    "plan_import",
]


@dataclass(frozen=True, slots=True)
class ConflictQueue:
    """A stage's resolution queue under a status: its records in the order first decided
    (records no longer in the Study's working set left out), and the counts of both kinds."""

    listed: tuple[Outcome, ...]
    waiting: int
    resolved: int


def conflict_queue(
    screen: ScreenSet,
    history: DecisionHistory,
    config: ScreeningConfig,
    stage: Stage,
    status: ConflictStatus = "unresolved",
) -> ConflictQueue:
    """The records whose reviewers conflict at ``stage`` and that no resolution settles
    (``unresolved``), those a resolution settles (``resolved``), or both (``all``); the
    counts are of records in the working set, as the lists are."""
    wanted = {"unresolved": ("conflict",), "resolved": ("resolved",)}.get(
        status, ("conflict", "resolved")
    )
    both = [
        o
        for o in history.outcomes(stage, config.policy(stage))
        if o.status in ("conflict", "resolved") and screen.group(o.record) is not None
    ]
    waiting = sum(1 for o in both if o.status == "conflict")
    listed = tuple(o for o in both if o.status in wanted)
    return ConflictQueue(listed, waiting, len(both) - waiting)


def _decision_dict(d: Decision, names: Mapping[str, str]) -> dict[str, object]:
    return {
        "reviewer": d.reviewer,
        "reviewer_name": names.get(d.reviewer, d.reviewer),
        "verdict": d.verdict,
        "reason": d.reason,
        "note": d.note,
        "at": d.at.isoformat(),
    }


def conflict_rows(
    screen: ScreenSet,
    outcomes: Sequence[Outcome],
    names: Mapping[str, str] | None = None,
) -> tuple[ConflictRow, ...]:
    """Rows of the queue for ``outcomes`` (a page of :func:`conflict_queue`): each record's
    title, every reviewer's current decision and the resolution if any (the reviewer's
    name from ``names``, account id → user name)."""
    names = names or {}
    out: list[ConflictRow] = []
    for o in outcomes:
        group = screen.group(o.record)
        if group is None:  # a record no longer in the Study (the queue leaves it out)
            continue
        out.append(
            ConflictRow(
                o.record,
                group.paper.title or "",
                group.paper.year,
                tuple(_decision_dict(d, names) for d in o.decisions),
                "resolved" if o.status == "resolved" else "conflict",
                None if o.resolution is None else _decision_dict(o.resolution, names),
            )
        )
    return tuple(out)


def agreement_pairs(
    history: DecisionHistory, config: ScreeningConfig, *, stage: Stage | None, sees_all: bool
) -> tuple[tuple[dict[str, object], ...], tuple[Stage, ...]]:
    """Every pair's figures (``sees_all``: the Study owner; otherwise blind stages are
    left out and named)."""
    pairs = agreement(history, stage=stage)
    hidden: tuple[Stage, ...] = tuple(
        s for s in STAGES
        if (stage is None or s == stage) and config.blind(s) and not sees_all
    )  # fmt: skip
    return tuple(p.to_dict() for p in pairs if p.stage not in hidden), hidden


@dataclass(frozen=True, slots=True)
class PlannedDecision:
    """One decision to record: the member record it matched, the reviewer and verdict."""

    line: int
    record_key: str
    group: str
    reviewer: str
    verdict: Verdict
    reason: str
    note: str


@dataclass(frozen=True, slots=True)
class ImportPlan:
    record: tuple[PlannedDecision, ...]
    unchanged: int
    unmatched: tuple[Unmatched, ...]
    refused: tuple[Unmatched, ...]
    reviewers: tuple[str, ...]
    matched_by: dict[str, int]


def _reviewer_of(name: str, *, given: str | None, acting: str, several: bool) -> str | None:
    """Whose decision an imported row is: ``given`` (a Rayyan file with several reviewers:
    only that reviewer's rows), else the row's own reviewer when the file has several, else
    the acting account."""
    if given is not None:
        if several and name:
            return given if name.casefold() == given.casefold() else None
        return given
    return name if several and name else acting


def plan_import(
    parsed: ImportedDecisions,
    screen: ScreenSet,
    history: DecisionHistory,
    config: ScreeningConfig,
    *,
    stage: Stage,
    reviewer: str | None,
    acting: str,
    reviewer_map: Mapping[str, str] | None = None,
    sees_blind: bool = True,
    not_retrieved: Collection[str] = (),
) -> ImportPlan:
    """What an import records: each row matched to a record, at ``stage`` (full text only
    for records that reached it; an exclusion there with a reason from the Study's list),
    the last row per record and reviewer kept, and rows equal to the reviewer's current
    decision not recorded again (a re-import records nothing). ``reviewer_map`` (a Rayyan
    name casefolded → the reviewer to record): rows of reviewers not in it are reported,
    and with ``reviewer`` only the rows mapped to that reviewer are kept. At full text the
    reports recorded as ``not_retrieved`` (group keys) take no decision: their rows are
    listed as refused, as a decision on one is."""
    matched, unmatched = match_decisions(parsed, RecordIndex(screen.groups))
    names = {d.reviewer for d in parsed.decisions if d.reviewer}
    several = len(names) > 1
    if reviewer_map:
        kept: list[Matched] = []
        for m in matched:
            who = reviewer_map.get(m.decision.reviewer.casefold())
            if who is None:
                unmatched.append(
                    Unmatched(
                        m.decision.line,
                        f"Rayyan reviewer {m.decision.reviewer[:60]!r} is not in the reviewer map",
                    )  # fmt: skip
                )
            elif reviewer is None or who == reviewer:
                kept.append(replace(m, decision=replace(m.decision, reviewer=who)))
        matched, several, reviewer = kept, True, None
    elif (
        reviewer is not None
        and several
        and reviewer.casefold() not in {n.casefold() for n in names}
    ):
        unmatched = [*unmatched] + [
            Unmatched(
                m.decision.line,
                f"reviewer {reviewer!r} is not in the file ({', '.join(sorted(names))})",
            )  # fmt: skip
            for m in matched
        ]
        matched = []
    allowed = (
        set(stage_items(screen, history, config, stage, sees_blind=sees_blind))
        if stage == "full_text"
        else None
    )
    missing = set(not_retrieved) if stage == "full_text" else set()
    refused: list[Unmatched] = []
    last: dict[tuple[str, str], PlannedDecision] = {}
    by: dict[str, int] = {}
    for m in matched:
        who = _reviewer_of(m.decision.reviewer, given=reviewer, acting=acting, several=several)
        if who is None:
            continue
        planned = _planned(m, who, stage, allowed, config)
        if m.group in missing and not isinstance(planned, Unmatched):
            planned = Unmatched(m.decision.line, NOT_RETRIEVED % m.group[:80])
        if isinstance(planned, Unmatched):
            refused.append(planned)
            continue
        by[m.by] = by.get(m.by, 0) + 1
        earlier = last.pop((planned.group, who), None)  # a later row replaces it, in file order
        if earlier is not None:  # said, not dropped: two rows of one study (its duplicates)
            refused.append(_replaced(earlier, planned))
        last[(planned.group, who)] = planned
    current = history.current(stage=stage)
    record: list[PlannedDecision] = []
    unchanged = 0
    for (group, who), p in last.items():
        now = current.get((group, stage, who))
        # a row without a note keeps the note of the decision it repeats: the files of
        # ASReview and litdesk's own RIS export carry none, and re-importing them must not
        # replace a noted decision by the same decision without its note
        if (
            now is not None
            and (now.verdict, now.reason) == (p.verdict, p.reason)
            and p.note in ("", now.note)
        ):
            unchanged += 1
        else:
            record.append(p)
    reviewers = tuple(dict.fromkeys(p.reviewer for p in last.values()))
    return ImportPlan(tuple(record), unchanged, tuple(unmatched), tuple(refused), reviewers, by)


def _replaced(earlier: PlannedDecision, later: PlannedDecision) -> Unmatched:
    """Why ``earlier`` is not recorded: ``later`` (a row further on) decides the same study
    for the same reviewer — two records of one study in the other tool's file, say."""
    if (earlier.verdict, earlier.reason) == (later.verdict, later.reason):
        return Unmatched(
            earlier.line,
            f"the same study as line {later.line}, with the same decision ({later.verdict}): "
            "recorded once",
        )
    return Unmatched(
        earlier.line,
        f"the same study as line {later.line}, which decides otherwise ({earlier.verdict} "
        f"here, {later.verdict} there): a reviewer has one decision a study, the later row's "
        "is recorded",
    )


def _planned(
    m: Matched,
    reviewer: str,
    stage: Stage,
    allowed: set[str] | None,
    config: ScreeningConfig,
) -> PlannedDecision | Unmatched:
    d = m.decision
    reason = " ".join(d.reason.split())[:500]
    if allowed is not None and m.group not in allowed:
        return Unmatched(
            d.line, "the record is not at full text (not included or maybe at title/abstract)"
        )
    if stage == "full_text" and d.verdict == "exclude":
        if not reason:
            return Unmatched(d.line, "an exclusion at full text needs a reason")
        listed = _listed(reason, config.reasons)
        if listed is None:
            return Unmatched(
                d.line, f"reason {reason[:80]!r} is not one of the Study's exclusion reasons"
            )
        reason = listed
    return PlannedDecision(d.line, m.record, m.group, reviewer, d.verdict, reason,
                           d.note[:20_000])  # fmt: skip


def _listed(reason: str, reasons: Sequence[str]) -> str | None:
    """The Study's reason for ``reason`` (case-insensitively; the first of a list like
    Rayyan's ``a, b`` that is one)."""
    table: Mapping[str, str] = {r.casefold(): r for r in reasons}
    for part in (reason, *reason.split(",")):
        hit = table.get(part.strip().casefold())
        if hit is not None:
            return hit
    return None
