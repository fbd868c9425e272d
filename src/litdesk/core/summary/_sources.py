"""A Study's numbered sources (pure): explicit projections of its records, the limits,
deselection, and the exact text sent.

Only the fields named here leave litdesk: the Study's name and description; per paper
its title, authors, journal, year, identifiers, reading status and abstract; per note
its comment and highlighted passage; per evidence record its six fields and passage
(never its assistance detail); per search run its query, mode, providers, filters,
lanes and counts. Everything else (imports, PDFs and full text, files, stored Study
reports, opaque state) is never sent, and the packet says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from litdesk._errors import InputError
from litdesk.core.evidence import Annotation, Evidence
from litdesk.core.forms import value_text
from litdesk.core.records import Paper
from litdesk.core.runs import SearchRun
from litdesk.core.words import plural

__all__ = [
    "EXCLUDED_KINDS",
    "FOCUSES",
    "MAX_SOURCES",
    "MAX_SOURCE_CHARS",
    "MAX_TOTAL_CHARS",
    "Focus",
    "Packet",
    "Source",
    "SourceKind",
    "SummaryInputError",
    "check_source_id",
    "evidence_source",
    "make_packet",
    "note_source",
    "paper_source",
    "run_source",
    "study_source",
]

MAX_SOURCES: Final = 200
MAX_TOTAL_CHARS: Final = 80_000
#: One source's text is cut at this many characters (and the cut is disclosed).
MAX_SOURCE_CHARS: Final = 6_000
SourceKind = Literal["study", "paper", "note", "evidence", "search_run"]
Focus = Literal["overview", "evidence", "handover"]
FOCUSES: Final[tuple[Focus, ...]] = ("overview", "evidence", "handover")
EXCLUDED_KINDS: Final = (
    "import traces",
    "PDFs, full text and attached files",
    "earlier Study reports",
    "the assistance detail of evidence records",
)
_SOURCE_ID: Final = re.compile(r"^S[1-9][0-9]{0,2}$")


class SummaryInputError(InputError):
    """A Study summary request that does not fit (no source, unknown id, bad focus)."""

    default_code = "summary_input"


@dataclass(frozen=True, slots=True)
class Source:
    """One numbered source: what it is, which record it projects, and the text sent."""

    id: str
    kind: SourceKind
    ref: str
    label: str
    text: str
    shortened: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "ref": self.ref,
            "label": self.label,
            "text": self.text,
            "characters": len(self.text),
            "shortened": self.shortened,
        }


def _lines(*pairs: tuple[str, object]) -> str:
    out = []
    for name, value in pairs:
        if value is None or value in ("", ()):
            continue
        if isinstance(value, (tuple, list)):
            value = "; ".join(str(v) for v in value)
        out.append(f"{name}: {value}")
    return "\n".join(out)


def study_source(name: str, description: str | None) -> tuple[SourceKind, str, str, str]:
    return ("study", "study", f"Study {name}", _lines(("Study", name), ("Brief", description)))


def paper_source(paper: Paper, status: str | None) -> tuple[SourceKind, str, str, str]:
    text = _lines(
        ("Title", paper.title or "(no title)"),
        ("Authors", paper.authors[:20]),
        ("Journal", paper.journal),
        ("Year", paper.year),
        ("DOI", paper.doi),
        ("PMID", paper.pmid),
        ("Reading status", status),
        ("Retracted", "yes" if paper.retracted else None),
        ("Abstract", paper.abstract),
    )
    return ("paper", paper.id, f"Paper: {paper.title or paper.id}", text)


def note_source(
    note_id: str, note: Annotation, paper_title: str
) -> tuple[SourceKind, str, str, str]:
    text = _lines(
        ("Note on", paper_title),
        ("Highlighted passage", note.anchor.text if note.anchor else None),
        ("Comment", note.comment),
    )
    return ("note", note_id, f"Note on {paper_title}", text)


def evidence_source(
    evidence_id: str, ev: Evidence, paper_title: str
) -> tuple[SourceKind, str, str, str]:
    text = _lines(
        ("Evidence from", paper_title),
        ("Question", ev.question),
        ("Population", ev.population),
        ("Method", ev.method),
        ("Intervention", ev.intervention),
        ("Finding", ev.finding),
        ("Limitations", ev.limitations),
        *((key.replace("_", " ").capitalize(), value_text(v)) for key, v in ev.values.items()),
        ("Supporting passage", ev.passage),
        ("Passage source", ev.pdf.label() if ev.pdf else None),  # others: as before
        ("Passage check", ev.verification),
    )
    return ("evidence", evidence_id, f"Evidence from {paper_title}", text)


def run_source(run: SearchRun) -> tuple[SourceKind, str, str, str]:
    d = run.definition
    lanes = [
        f"{lane.lane} {lane.status}, {lane.returned} returned"
        + (f" of {lane.total:,}" if lane.total is not None else "")
        for lane in run.lanes
    ]
    f = d.filters
    filters = [
        p
        for p in (
            f"field {f.field}" if f.field != "all" else "",
            f"from {f.year_from}" if f.year_from else "",
            f"to {f.year_to}" if f.year_to else "",
            "open access only" if f.open_access else "",
            f"type {f.type}" if f.type != "all" else "",
        )
        if p
    ]
    text = _lines(
        ("Search query", d.query),
        ("Mode", d.mode),
        ("Providers", d.providers),
        ("Filters", filters),
        ("Executed", run.executed_at),
        ("Lanes", lanes),
        ("Distinct records", run.unique_retrieved),
    )
    return ("search_run", run.id, f"Search run: {d.query[:80]}", text)


@dataclass(frozen=True, slots=True)
class Packet:
    """The numbered sources offered for a summary, and what was left out and why."""

    study_id: str
    title: str
    sources: tuple[Source, ...]
    omissions: tuple[str, ...]

    @property
    def characters(self) -> int:
        return sum(len(s.text) for s in self.sources)

    def by_id(self) -> dict[str, Source]:
        return {s.id: s for s in self.sources}

    def select(self, deselected: Sequence[str]) -> Packet:
        """The packet without the sources the person deselected (ids keep their numbers)."""
        known = self.by_id()
        for sid in deselected:
            if sid not in known:
                raise SummaryInputError(f"no source {sid!r} in this Study's packet", code="source")
        drop = set(deselected)
        kept = tuple(s for s in self.sources if s.id not in drop)
        if not kept:
            raise SummaryInputError("every source is deselected: keep at least one", code="empty")
        note = (f"{plural(len(drop), 'source')} deselected by you: {', '.join(sorted(drop))}",)
        return Packet(self.study_id, self.title, kept, self.omissions + (note if drop else ()))

    def prompt(self, focus: Focus) -> str:
        """The exact user message sent (consent is bound to this text)."""
        if focus not in FOCUSES:
            raise SummaryInputError(f"focus is one of {', '.join(FOCUSES)}", code="focus")
        return json.dumps(
            {
                "focus": focus,
                "title": self.title,
                "coverageWarnings": list(self.omissions),
                "sections": ["overview", "findings", "gaps", "next_steps"],
                "sources": [
                    {"id": s.id, "kind": s.kind, "label": s.label, "text": s.text}
                    for s in self.sources
                ],
            },
            ensure_ascii=False,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "title": self.title,
            "sources": [s.to_dict() for s in self.sources],
            "characters": self.characters,
            "omissions": list(self.omissions),
            "excluded_kinds": list(EXCLUDED_KINDS),
            "limits": {"sources": MAX_SOURCES, "characters": MAX_TOTAL_CHARS},
        }


def check_source_id(value: str) -> str:
    if not _SOURCE_ID.match(value):
        raise SummaryInputError(f"not a source id: {value[:20]!r}", code="source")
    return value


def make_packet(
    study_id: str,
    title: str,
    items: Sequence[tuple[SourceKind, str, str, str]],
    omissions: Sequence[str] = (),
) -> Packet:
    """Number ``items`` S1, S2, … in order, within the limits: a source longer than
    :data:`MAX_SOURCE_CHARS` is cut (disclosed); once :data:`MAX_SOURCES` sources or
    :data:`MAX_TOTAL_CHARS` characters are reached the rest are left out (disclosed by
    kind); an empty projection is skipped."""
    sources: list[Source] = []
    notes = list(omissions)
    total = 0
    left_out: dict[str, int] = {}
    shortened = 0
    for kind, ref, label, text in items:
        if not text.strip():
            continue
        cut = len(text) > MAX_SOURCE_CHARS
        if cut:
            text = text[:MAX_SOURCE_CHARS]
        if len(sources) >= MAX_SOURCES or total + len(text) > MAX_TOTAL_CHARS:
            left_out[kind] = left_out.get(kind, 0) + 1
            continue
        shortened += cut
        total += len(text)
        sources.append(Source(f"S{len(sources) + 1}", kind, ref, label[:200], text, cut))
    if shortened:
        notes.append(f"{plural(shortened, 'source')} cut to {MAX_SOURCE_CHARS:,} characters")
    if left_out:
        nouns = {"evidence": "evidence record", "search_run": "search run"}
        parts = ", ".join(plural(n, nouns.get(k, k)) for k, n in left_out.items())
        notes.append(
            f"left out over the limits ({MAX_SOURCES} sources, {MAX_TOTAL_CHARS:,} "
            f"characters): {parts}"
        )
    if not sources:
        raise SummaryInputError("the Study has nothing to summarise yet", code="empty")
    return Packet(study_id, title, tuple(sources), tuple(notes))
