"""Result views of the reader area. Each has ``to_dict()``: the JSON the API returns and
the data the matching page renders (one builder for both, so they cannot drift).

Rows made by the workspace (notes, evidence, Studies) stay the JSON objects its
``to_dict()`` gives (:data:`Row`); the views themselves are typed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from litdesk.core.evidence import EVIDENCE_FIELDS, evidence_values
from litdesk.core.forms import Form, default_form, form_to_json, shown_values, value_text
from litdesk.core.records import Paper
from litdesk.services.citations import CitationResult
from litdesk.services.workspace import EvidenceView

__all__ = [
    "CitationListView",
    "CitationView",
    "CiteView",
    "CompareView",
    "EvidenceRecordView",
    "EvidenceTableView",
    "Occurrence",
    "OccurrencesView",
    "ReaderView",
    "Row",
    "Segment",
    "SharedView",
    "abstract_segments",
    "evidence_row",
    "marked_segments",
]

#: A JSON object made by the workspace's ``to_dict()`` (a note, an evidence row, a Study).
Row = dict[str, Any]


class Segment(TypedDict):
    """A run of a passage as the page shows it: plain or marked (highlighted)."""

    text: str
    marked: bool


class Occurrence(TypedDict):
    """One exact occurrence of a passage, with its paragraph and context."""

    occurrence: int
    block: str | None
    section: str
    snapshot: str | None
    start: int
    before: str
    after: str


def marked_segments(text: str, ranges: list[tuple[int, int]]) -> list[Segment]:
    """``text`` cut into plain and marked runs; overlapping ranges merge for display only
    and ranges outside the text are ignored."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if not 0 <= start < end <= len(text):
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out: list[Segment] = []
    at = 0
    for start, end in merged:
        if start > at:
            out.append({"text": text[at:start], "marked": False})
        out.append({"text": text[start:end], "marked": True})
        at = end
    if at < len(text):
        out.append({"text": text[at:], "marked": False})
    return out


def abstract_segments(abstract: str, notes: list[Row]) -> list[Segment]:
    """The abstract cut into plain and highlighted runs: only highlights whose snapshot
    still matches (no notice) are marked."""
    ranges = [
        (int(n["anchor"]["start"]), int(n["anchor"]["end"]))
        for n in notes
        if n.get("anchor") and n["anchor"].get("source") == "abstract" and not n.get("notice")
    ]
    return marked_segments(abstract, ranges)


def evidence_row(v: EvidenceView, form: Form | None = None) -> Row:
    """An evidence record as the tables show it (with its paper's title): its values by
    field key as text, and as its Study's form shows them (in the form's order, then
    those not in the current form)."""
    d = v.to_dict()
    d["paper_title"] = v.paper.title if v.paper else ""
    values = evidence_values(v.evidence)
    d["field_values"] = {k: value_text(x) for k, x in values.items()}
    d["shown"] = list(shown_values(form or default_form(), values))
    if d.get("values"):  # recorded with a Study's form: edited with that form's fields
        d["edit_fields"] = [
            f.to_dict() | {"current": value_text(values.get(f.key))}
            for f in (form or default_form()).fields
        ]
    return d


def _fields(form: Form) -> list[list[str]]:
    return [[f.key, f.label] for f in form.fields]


@dataclass(frozen=True, slots=True)
class ReaderView:
    """A paper's page: the paper, whether it is saved, its notes and evidence and, when
    asked for, its licensed full text (or why it is not shown)."""

    paper: Paper
    saved: bool
    status: str | None
    notes: list[Row]
    problems: list[str]
    studies: list[Row]
    source: str  # "store", "search run" or "lookup"
    evidence: list[Row] = field(default_factory=list)
    # None: not loaded; else the licensed text (or why it is not shown) with its blocks
    fulltext: Row | None = None
    #: the evidence form (the Study the reader came from, else the default six fields)
    form: Form = field(default_factory=default_form)
    form_study: Row | None = None
    #: the paper's PDF in the library (``{"sha256", "file"}``: attached by the account or
    #: linked in one of its Studies), else ``None``
    pdf: Row | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "pdf": self.pdf,
            "evidence": self.evidence,
            "evidence_fields": _fields(self.form),
            "evidence_form": {"study": self.form_study, "form": form_to_json(self.form)},
            "paper": self.paper.to_dict(),
            "abstract_segments": abstract_segments(self.paper.abstract or "", self.notes),
            "saved": self.saved,
            "status": self.status,
            "notes": self.notes,
            "problems": self.problems,
            "studies": self.studies,
            "source": self.source,
            "fulltext": self.fulltext,
        }


@dataclass(frozen=True, slots=True)
class OccurrencesView:
    """Exact occurrences (at most 100) of a passage in the abstract or the full text."""

    occurrences: list[Occurrence]

    def to_dict(self) -> dict[str, object]:
        return {"occurrences": list(self.occurrences)}


@dataclass(frozen=True, slots=True)
class EvidenceRecordView:
    """One evidence record as recorded or changed, re-checked against its paper."""

    record: EvidenceView
    form: Form | None = None

    def to_dict(self) -> dict[str, object]:
        return dict(evidence_row(self.record, self.form))


@dataclass(frozen=True, slots=True)
class EvidenceTableView:
    """Evidence across all findings or one Study."""

    rows: list[Row]
    problems: list[str]
    study: str | None
    studies: list[Row]
    form: Form = field(default_factory=default_form)
    #: the subject the table is filtered by (``mesh:D003920``), and the filter's choices
    subject: str | None = None
    subjects: list[Row] = field(default_factory=list)
    #: whether the reader may change the shown Study's form (its owner: ``may_change_form``)
    can_change_form: bool = False

    def to_dict(self) -> dict[str, object]:
        keys = set(self.form.keys)
        return {
            "evidence": self.rows,
            "problems": self.problems,
            "filters": {"study": self.study, "subject": self.subject},
            "subjects": self.subjects,
            "studies": self.studies,
            "evidence_fields": _fields(self.form),
            "form": form_to_json(self.form),
            "can_change_form": self.can_change_form,
            "other_fields": any(set(r["field_values"]) - keys for r in self.rows),
        }


@dataclass(frozen=True, slots=True)
class CitationView:
    """One page of citation discovery, with what the page needs to link on."""

    result: CitationResult
    ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        data = self.result.to_dict()
        data["ids"] = list(self.ids)
        data["seed_count"] = len(self.result.seeds)
        for paper in data["papers"]:  # "referenced by n of m" beside each shared reference
            paper["shared_by"] = data["shared_counts"].get(paper.get("openalex_id") or "")
        return data


@dataclass(frozen=True, slots=True)
class CitationListView:
    """A page of the citation browser remembered as ``listing`` (chosen works are saved
    from it), with the owner's Studies for the page's "save into" choice (not in the
    JSON: the API has its own Studies listing)."""

    view: CitationView
    listing: str
    studies: list[Row]

    def to_dict(self) -> dict[str, object]:
        return self.view.to_dict() | {"listing": self.listing}


@dataclass(frozen=True, slots=True)
class CiteView:
    """The CLI's citation discovery: one page, and the papers saved into a Study from it
    (``saved_to`` None: nothing was asked to be saved)."""

    result: CitationResult
    saved_to: str | None = None
    saved: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = dict(self.result.to_dict())
        if self.saved_to is not None:
            data["saved_to"] = self.saved_to
            data["saved"] = list(self.saved)
        return data


@dataclass(frozen=True, slots=True)
class CompareView:
    """One column per selected paper with the evidence recorded for it."""

    columns: list[Row]
    failed: list[dict[str, str]]
    run_id: str

    def to_dict(self) -> dict[str, object]:
        return {
            "columns": self.columns,
            "failed": self.failed,
            "run_id": self.run_id,
            "evidence_fields": [list(f) for f in EVIDENCE_FIELDS],
            "records": sum(len(c["evidence"]) for c in self.columns),
        }


@dataclass(frozen=True, slots=True)
class SharedView:
    """Shared references of the selected papers that could be looked up, with each paper
    that could not beside them."""

    result: CitationView | None
    failed: list[dict[str, str]]
    asked: int
    run_id: str

    def to_dict(self) -> dict[str, object]:
        return {
            "result": self.result.to_dict() if self.result is not None else None,
            "failed": self.failed,
            "asked": self.asked,
            "run_id": self.run_id,
        }
