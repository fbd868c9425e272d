"""Screening decisions in and out of a Study (issue 28).

In: the rows core's :func:`~litdesk.core.screening.parse_decisions` read from a CSV, an
ASReview export or a Rayyan export are matched to the Study's working set — by DOI, then
PMID, then the record's key in the Study, then the normalised title (a title shared by two
studies of the working set matches neither) — and every row that matches nothing is
reported with its line. Each decision is stored against the member record it matched.

Out: one row per study of the working set with the outcome at the stage (the settled
verdict, its reason, the status, the reviewers' decisions) and the round it joined the
Study in (``search``: the first searches; ``Update N``: a living review's N-th update round,
the column PRISMA 2020's flow and the screening page place it in), as spreadsheet-safe CSV
whose columns litdesk's own CSV import reads back, or as RIS with the labels, reasons and
round in ``N1`` notes (``ASReview_relevant`` / ``ASReview_irrelevant`` /
``ASReview_not_seen``, which ASReview LAB reads as labels; Zotero keeps them as notes).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from litdesk.adapters.formats import dumps as dump_papers
from litdesk.core.dedup import normalize_title
from litdesk.core.records import normalize_doi, normalize_pmid
from litdesk.core.screening import ImportedDecision, ImportedDecisions, Outcome, Stage
from litdesk.services.dedup import WorkingGroup

from ._prisma import RoundPlan

__all__ = [
    "CSV_COLUMNS",
    "Matched",
    "RecordIndex",
    "Unmatched",
    "decisions_csv",
    "decisions_ris",
    "group_rounds",
    "match_decisions",
]

CSV_COLUMNS: Final = (
    "record_id", "doi", "pmid", "title", "year", "decision", "reason", "status", "reviewers",
    "note", "round",
)  # fmt: skip
#: the round of a study of the first searches (an update round's: ``Update N``)
FIRST_ROUND: Final = "search"
_TRIGGERS: Final = ("=", "+", "-", "@", "\t", "\r")
#: ASReview's RIS labels
_ASREVIEW: Final = {"include": "ASReview_relevant", "exclude": "ASReview_irrelevant"}


@dataclass(frozen=True, slots=True)
class Matched:
    """An imported decision and the record it matched: the group and the member key."""

    decision: ImportedDecision
    group: str
    record: str
    by: str  # the identifier kind that matched


@dataclass(frozen=True, slots=True)
class Unmatched:
    line: int
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {"line": self.line, "reason": self.reason}


_AMBIGUOUS: Final = "\x00ambiguous"


class RecordIndex:
    """The working set's records by DOI, PMID, key and normalised title."""

    def __init__(self, groups: Sequence[WorkingGroup]) -> None:
        self._by: dict[str, dict[str, tuple[str, str]]] = {
            "doi": {}, "pmid": {}, "id": {}, "title": {},
        }  # fmt: skip
        for g in groups:
            for m in g.members:
                self._add("id", m.key, g.key, m.key)
                paper = m.data.get("paper")
                if not isinstance(paper, Mapping):
                    continue
                if doi := normalize_doi(paper.get("doi")):
                    self._add("doi", doi, g.key, m.key)
                if pmid := normalize_pmid(paper.get("pmid")):
                    self._add("pmid", pmid, g.key, m.key)
                if title := normalize_title(str(paper.get("title") or "")):
                    self._add("title", title, g.key, m.key)

    def _add(self, kind: str, value: str, group: str, record: str) -> None:
        table = self._by[kind]
        seen = table.get(value)
        if seen is None:
            table[value] = (group, record)
        elif seen[0] != group:  # two studies share it: it identifies neither
            table[value] = (_AMBIGUOUS, "")

    def find(self, decision: ImportedDecision) -> tuple[str, str, str] | str:
        """``(group, record, kind)`` or why nothing matched (also when two of the row's
        identifiers are two different studies: which one the decision is about is unknown)."""
        given = dict(decision.identifiers)
        ambiguous: list[str] = []
        found: tuple[str, str, str] | None = None
        first = ""  # the identifier that found it, as it was given
        for kind in ("doi", "pmid", "id", "title"):
            value = given.get(kind)
            if value is None:
                continue
            hit = self._by[kind].get(value)
            if hit is None:
                continue
            if hit[0] == _AMBIGUOUS:
                ambiguous.append(kind)
                continue
            if found is None:
                found, first = (hit[0], hit[1], kind), _quoted(decision, kind, value)
            elif hit[0] != found[0]:
                return (
                    f"its {first} is one study of the Study and its "
                    f"{_quoted(decision, kind, value)} another: which one the decision is "
                    "about is unclear"
                )
        if found is not None:
            return found
        shown = ", ".join(_quoted(decision, k, v) for k, v in decision.identifiers)
        if ambiguous:
            return f"{' and '.join(ambiguous)} shared by several studies of the Study ({shown})"
        return f"no record of the Study has {shown or 'these identifiers'}"


def _quoted(decision: ImportedDecision, kind: str, value: str) -> str:
    """An identifier of the row as a message quotes it: a title as the file gives it (the
    identifier is its normalised form), cut at a word; the others as read."""
    if kind == "title" and decision.title:
        title = decision.title
        if len(title) > 120:
            title = title[:119].rsplit(" ", 1)[0] + "…"
        return f"title {title!r}"
    return f"{kind} {value[:60]!r}"


def match_decisions(
    imported: ImportedDecisions, index: RecordIndex
) -> tuple[list[Matched], list[Unmatched]]:
    """Each imported decision's record, or its line and why it matched none."""
    matched: list[Matched] = []
    unmatched: list[Unmatched] = []
    for d in imported.decisions:
        found = index.find(d)
        if isinstance(found, str):
            unmatched.append(Unmatched(d.line, found))
        else:
            matched.append(Matched(d, found[0], found[1], found[2]))
    return matched, unmatched


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_TRIGGERS) else text


def _paper_field(group: WorkingGroup, name: str) -> str:
    value = getattr(group.paper, name, None)
    return "" if value is None else str(value)


def _reviewers(outcome: Outcome | None, names: Mapping[str, str]) -> str:
    """Who decided what, each reviewer by ``names`` (account id → user name; an id
    without one as it is, e.g. a Rayyan reviewer's name)."""
    if outcome is None:
        return ""
    parts = [f"{names.get(d.reviewer, d.reviewer)}: {d.verdict}" for d in outcome.decisions]
    if (r := outcome.resolution) is not None:
        parts.append(f"resolved by {names.get(r.reviewer, r.reviewer)}: {r.verdict}")
    return "; ".join(parts)


def _note(outcome: Outcome | None) -> str:
    if outcome is None:
        return ""
    notes = [d.note for d in (*outcome.decisions, outcome.resolution) if d and d.note]
    return " | ".join(dict.fromkeys(notes))


def group_rounds(groups: Sequence[WorkingGroup], plan: RoundPlan) -> dict[str, str]:
    """Each study's round by group key: ``search`` (the first searches) or ``Update N``
    (the N-th update round) — its earliest record's column, as PRISMA 2020's flow and the
    screening page's "new in the update" count place it."""
    out: dict[str, str] = {}
    for g in groups:
        column = min((plan.column(m) for m in g.members), default=0)
        out[g.key] = f"Update {column}" if column else FIRST_ROUND
    return out


def decisions_csv(
    groups: Sequence[WorkingGroup],
    outcomes: Mapping[str, Outcome],
    names: Mapping[str, str] | None = None,
    rounds: Mapping[str, str] | None = None,
) -> str:
    """One row per study (``outcomes`` by group key; a study without one is undecided;
    reviewers by ``names``; its round by ``rounds``, :func:`group_rounds`: ``search``
    when not given)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for g in groups:
        o = outcomes.get(g.key)
        writer.writerow(
            [
                _cell(g.key),
                _cell(_paper_field(g, "doi")),
                _cell(_paper_field(g, "pmid")),
                _cell(g.paper.title),
                _cell(_paper_field(g, "year")),
                (o.verdict or "") if o else "",
                _cell(o.reason if o else ""),
                o.status if o else "undecided",
                _cell(_reviewers(o, names or {})),
                _cell(_note(o)),
                (rounds or {}).get(g.key, FIRST_ROUND),
            ]
        )
    return buf.getvalue()


def decisions_ris(
    groups: Sequence[WorkingGroup],
    outcomes: Mapping[str, Outcome],
    stage: Stage,
    names: Mapping[str, str] | None = None,
    rounds: Mapping[str, str] | None = None,
) -> str:
    """Each study's record as RIS with its label, reason, decisions (reviewers by
    ``names``) and round (``rounds``, :func:`group_rounds`) in ``N1`` notes."""
    out: list[str] = []
    for g in groups:
        o = outcomes.get(g.key)
        verdict = o.verdict if o else None
        notes = [_ASREVIEW.get(verdict or "", "ASReview_not_seen")]
        label = f"litdesk screening {stage}: {verdict or (o.status if o else 'undecided')}"
        if o is not None and o.reason:
            label += f"; reason: {o.reason}"
        notes.append(label)
        if who := _reviewers(o, names or {}):
            notes.append(f"decisions: {who}")
        notes.append(f"litdesk record: {g.key}")
        notes.append(f"litdesk round: {(rounds or {}).get(g.key, FIRST_ROUND)}")
        block = dump_papers([g.paper], "ris").rstrip("\n").split("\n")
        end = max(i for i, line in enumerate(block) if line.startswith("ER  -"))
        extra = [f"N1  - {' '.join(n.split())}" for n in notes]
        out.extend(block[:end] + extra + block[end:])
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
