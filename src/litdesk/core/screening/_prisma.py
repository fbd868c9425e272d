"""PRISMA 2020 flow counts computed from what happened — never typed.

One :class:`PrismaRound` per search round (a living review's update rounds each have their
own), computed by :func:`prisma_round` from:

* the records identified per source (database, register or other method),
* the records removed before screening (duplicates, by automation tools, other reasons),
* the records to screen (the deduplicated working set: identifiers),
* the settled title/abstract verdict per record, the reports not retrieved, and the settled
  full-text verdict (with its reason) per report.

Boxes and their records: screened = records with a title/abstract verdict; excluded = those
excluded; sought for retrieval = included or "maybe"; not retrieved; assessed = sought − not
retrieved with a full-text verdict; excluded with reasons (one line per reason); included.
Records still awaiting a decision are counted apart (``awaiting_*``), so that every identity
below holds at any moment of the review:

* identified − removed before screening = records to screen
* records to screen = screened + awaiting screening
* screened − excluded = sought for retrieval
* sought − not retrieved = assessed + awaiting full text
* assessed − excluded (all reasons) = included

:meth:`PrismaRound.checks` lists them with both sides; a violated identity is an input
error (:func:`prisma_round` raises it). A :class:`PrismaFlow` holds the rounds in order; its
Markdown and CSV give one column per round and a total column. The SVG is in :mod:`._prisma_svg`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ._decisions import Verdict
from ._errors import ScreeningInputError

__all__ = [
    "PrismaCheck",
    "PrismaFlow",
    "PrismaInputError",
    "PrismaRound",
    "SourceCount",
    "SourceKind",
    "prisma_round",
]

SourceKind = Literal["database", "register", "other"]
SOURCE_KINDS: tuple[SourceKind, ...] = ("database", "register", "other")


class PrismaInputError(ScreeningInputError):
    """PRISMA inputs that cannot describe one review: a decision on a record that is not in
    the set, a report excluded without a reason, counts that break the flow's arithmetic."""

    default_code = "bad_prisma"


@dataclass(frozen=True, slots=True)
class SourceCount:
    """Records identified from one source (a database, a register or another method)."""

    name: str
    kind: SourceKind
    records: int

    def __post_init__(self) -> None:
        if self.kind not in SOURCE_KINDS:
            raise PrismaInputError(
                f"source kind must be one of {', '.join(SOURCE_KINDS)}", code="bad_source"
            )
        if self.records < 0 or not self.name.strip():
            raise PrismaInputError(
                "a source needs a name and a count of 0 or more", code="bad_source"
            )


@dataclass(frozen=True, slots=True)
class PrismaCheck:
    """One arithmetic identity of the flow, with both sides."""

    name: str
    left: int
    right: int

    @property
    def ok(self) -> bool:
        return self.left == self.right

    def to_dict(self) -> dict[str, object]:
        return {"check": self.name, "left": self.left, "right": self.right, "ok": self.ok}


#: the numbered boxes in flow order: (key, label)
BOXES: tuple[tuple[str, str], ...] = (
    ("identified", "Records identified"),
    ("removed_duplicates", "Duplicate records removed"),
    ("removed_automation", "Records marked as ineligible by automation tools"),
    ("removed_other", "Records removed for other reasons"),
    ("to_screen", "Records to screen"),
    ("screened", "Records screened"),
    ("awaiting_screening", "Records awaiting screening"),
    ("excluded_screening", "Records excluded"),
    ("sought", "Reports sought for retrieval"),
    ("not_retrieved", "Reports not retrieved"),
    ("assessed", "Reports assessed for eligibility"),
    ("awaiting_full_text", "Reports awaiting assessment"),
    ("excluded_reports", "Reports excluded"),
    ("included", "Studies included in review"),
)


@dataclass(frozen=True, slots=True)
class PrismaRound:
    """The counts of one round, with the records behind every number that has them."""

    label: str
    sources: tuple[SourceCount, ...]
    removed_duplicates: int
    removed_automation: int
    removed_other: int
    to_screen: tuple[str, ...]
    screened: tuple[str, ...]
    awaiting_screening: tuple[str, ...]
    excluded_screening: tuple[str, ...]
    sought: tuple[str, ...]
    not_retrieved: tuple[str, ...]
    assessed: tuple[str, ...]
    awaiting_full_text: tuple[str, ...]
    #: reason → reports excluded for it, reasons in first-seen order
    excluded_reports: tuple[tuple[str, tuple[str, ...]], ...]
    included: tuple[str, ...]

    @property
    def identified(self) -> int:
        return sum(s.records for s in self.sources)

    def identified_by(self, kind: SourceKind) -> int:
        return sum(s.records for s in self.sources if s.kind == kind)

    @property
    def excluded_reports_total(self) -> int:
        return sum(len(r) for _, r in self.excluded_reports)

    def count(self, box: str) -> int:
        """The number in a box (a key of ``BOXES``)."""
        if box == "identified":
            return self.identified
        if box == "excluded_reports":
            return self.excluded_reports_total
        value = getattr(self, box)
        return value if isinstance(value, int) else len(value)

    def records(self, box: str) -> tuple[str, ...]:
        """The records behind a box (every box after removal before screening)."""
        if box == "excluded_reports":
            return tuple(r for _, group in self.excluded_reports for r in group)
        value = getattr(self, box, None)
        if not isinstance(value, tuple) or box == "sources":
            raise PrismaInputError(f"box {box!r} has no list of records", code="no_records")
        return tuple(str(v) for v in value)

    def checks(self) -> list[PrismaCheck]:
        removed = self.removed_duplicates + self.removed_automation + self.removed_other
        return [
            PrismaCheck(
                "identified − removed before screening = records to screen",
                self.identified - removed,
                len(self.to_screen),
            ),
            PrismaCheck(
                "records to screen = screened + awaiting screening",
                len(self.to_screen),
                len(self.screened) + len(self.awaiting_screening),
            ),
            PrismaCheck(
                "screened − excluded = sought for retrieval",
                len(self.screened) - len(self.excluded_screening),
                len(self.sought),
            ),
            PrismaCheck(
                "sought − not retrieved = assessed + awaiting assessment",
                len(self.sought) - len(self.not_retrieved),
                len(self.assessed) + len(self.awaiting_full_text),
            ),
            PrismaCheck(
                "assessed − excluded (all reasons) = included",
                len(self.assessed) - self.excluded_reports_total,
                len(self.included),
            ),
        ]

    def to_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "identified": {
                "total": self.identified,
                **{
                    f"{k}s" if k != "other" else "other": self.identified_by(k)
                    for k in SOURCE_KINDS
                },  # fmt: skip
                "sources": [
                    {"name": s.name, "kind": s.kind, "records": s.records} for s in self.sources
                ],
            },
            **{key: self.count(key) for key, _ in BOXES if key != "identified"},
            "excluded_reasons": {reason: len(r) for reason, r in self.excluded_reports},
            "checks": [c.to_dict() for c in self.checks()],
        }


def prisma_round(
    *,
    label: str,
    sources: Sequence[SourceCount],
    to_screen: Sequence[str],
    title_abstract: Mapping[str, Verdict] | None = None,
    full_text: Mapping[str, tuple[Verdict, str]] | None = None,
    not_retrieved: Collection[str] = (),
    removed_duplicates: int = 0,
    removed_automation: int = 0,
    removed_other: int = 0,
) -> PrismaRound:
    """Compute one round's boxes; raises :class:`PrismaInputError` when the inputs break the
    flow (the message names the identity or the record)."""
    if min(removed_duplicates, removed_automation, removed_other) < 0:
        raise PrismaInputError("removed counts cannot be negative", code="bad_count")
    title_abstract = title_abstract or {}
    full_text = full_text or {}
    records = tuple(dict.fromkeys(to_screen))
    if len(records) != len(to_screen):
        raise PrismaInputError("a record is listed twice among those to screen", code="twice")
    known = set(records)
    for where, keys in (
        ("title/abstract", title_abstract),
        ("full text", full_text),
        ("not retrieved", not_retrieved),
    ):
        stray = next((k for k in keys if k not in known), None)
        if stray is not None:
            raise PrismaInputError(
                f"{where}: record {stray!r} is not among the records to screen",
                code="unknown_record",
            )
    screened = tuple(r for r in records if r in title_abstract)
    awaiting = tuple(r for r in records if r not in title_abstract)
    excluded = tuple(r for r in screened if title_abstract[r] == "exclude")
    sought = tuple(r for r in screened if title_abstract[r] != "exclude")
    sought_set = set(sought)
    missing = set(not_retrieved)
    for r in missing:
        if r not in sought_set:
            raise PrismaInputError(
                f"record {r!r} is marked not retrieved but was not sought for retrieval",
                code="not_sought",
            )
    for r in full_text:
        if r not in sought_set or r in missing:
            raise PrismaInputError(
                f"record {r!r} has a full-text decision but no retrieved report",
                code="not_assessable",
            )
    retrieved = tuple(r for r in sought if r not in missing)
    # a full-text "maybe" is not settled yet: the report still awaits assessment
    assessed = tuple(r for r in retrieved if r in full_text and full_text[r][0] != "maybe")
    awaiting_ft = tuple(r for r in retrieved if r not in assessed)
    reasons: dict[str, list[str]] = {}
    included: list[str] = []
    for r in assessed:
        verdict, reason = full_text[r]
        if verdict == "exclude":
            if not reason.strip():
                raise PrismaInputError(
                    f"report {r!r} is excluded at full text without a reason",
                    code="reason_required",
                )
            reasons.setdefault(reason.strip(), []).append(r)
        else:
            included.append(r)
    out = PrismaRound(
        label=label,
        # databases, then registers, then other sources, each by name: one order whatever
        # order the records were read in
        sources=tuple(sorted(sources, key=lambda s: (SOURCE_KINDS.index(s.kind), s.name))),
        removed_duplicates=removed_duplicates,
        removed_automation=removed_automation,
        removed_other=removed_other,
        to_screen=records,
        screened=screened,
        awaiting_screening=awaiting,
        excluded_screening=excluded,
        sought=sought,
        not_retrieved=tuple(r for r in sought if r in missing),
        assessed=assessed,
        awaiting_full_text=awaiting_ft,
        excluded_reports=tuple((k, tuple(v)) for k, v in reasons.items()),
        included=tuple(included),
    )
    broken = next((c for c in out.checks() if not c.ok), None)
    if broken is not None:
        raise PrismaInputError(
            f"{label}: {broken.name} does not hold ({broken.left} ≠ {broken.right})",
            code="arithmetic",
        )
    return out


@dataclass(frozen=True, slots=True)
class PrismaFlow:
    """The rounds of a review in order (one round for a review that is not updated)."""

    rounds: tuple[PrismaRound, ...]

    def __post_init__(self) -> None:
        if not self.rounds:
            raise PrismaInputError("a PRISMA flow needs at least one round", code="no_rounds")
        labels = [r.label for r in self.rounds]
        if len(set(labels)) != len(labels):
            raise PrismaInputError("round labels must differ", code="bad_round")

    def records(self, box: str) -> tuple[str, ...]:
        """The records behind a box in every round, round by round
        (:meth:`PrismaRound.records`)."""
        return tuple(k for r in self.rounds for k in r.records(box))

    def reasons(self) -> list[str]:
        """Every exclusion reason of any round, in first-seen order."""
        return list(dict.fromkeys(k for r in self.rounds for k, _ in r.excluded_reports))

    def rows(self) -> list[tuple[str, list[int]]]:
        """(label, one count per round + the total) for every line of the flow."""
        out: list[tuple[str, list[int]]] = []

        def add(label: str, values: list[int]) -> None:
            out.append((label, [*values, sum(values)]))

        add("Records identified", [r.identified for r in self.rounds])
        names = list(dict.fromkeys((s.kind, s.name) for r in self.rounds for s in r.sources))
        for kind, name in (("database", "databases"), ("register", "registers"),
                           ("other", "other methods")):  # fmt: skip
            add(f"  from {name}", [r.identified_by(kind) for r in self.rounds])  # type: ignore[arg-type]
            for source in (n for k, n in names if k == kind):  # each under its own kind
                add(
                    f"    {source}",  # its kind is the line above (not "x.ris (ris) (database)")
                    [
                        sum(s.records for s in r.sources if (s.kind, s.name) == (kind, source))
                        for r in self.rounds
                    ],  # fmt: skip
                )
        for key, label in BOXES[1:]:
            add(label, [r.count(key) for r in self.rounds])
            if key == "excluded_reports":
                for reason in self.reasons():
                    add(
                        f"  {reason}",
                        [len(dict(r.excluded_reports).get(reason, ())) for r in self.rounds],
                    )
        return out

    def to_markdown(self) -> str:
        heads = [r.label for r in self.rounds] + ["Total"]
        lines = [
            "| PRISMA 2020 | " + " | ".join(_md(h) for h in heads) + " |",
            "|---|" + "---:|" * len(heads),
        ]
        for label, values in self.rows():
            indent = len(label) - len(label.lstrip(" "))
            # no-break spaces, not "&nbsp;": the table reads the same in a terminal
            # (``litdesk study prisma``) as rendered (CommonMark keeps them in a cell)
            shown = "\u00a0" * (2 * indent) + _md(label.strip())
            lines.append(f"| {shown} | " + " | ".join(f"{v:,}" for v in values) + " |")
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["box", "level", *(_cell(r.label) for r in self.rounds), "total"])
        for label, values in self.rows():
            indent = (len(label) - len(label.lstrip(" "))) // 2
            writer.writerow([_cell(label.strip()), indent, *values])
        return buf.getvalue()

    def to_dict(self) -> dict[str, object]:
        return {
            "rounds": [r.to_dict() for r in self.rounds],
            "total": {label.strip(): values[-1] for label, values in self.rows()},
        }


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _cell(text: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
