"""The synthesis report model (pure): papers, units, cited passages, labels, file name.

A report is built from *units* (question answers, per-paper summary facets, the
cross-paper synthesis). Each unit carries the gate's checked text with ``[n]``
markers and the verified excerpts those numbers refer to. :func:`assign_labels`
turns the markers into report-wide labels:

* one label = one passage on one page (never a whole paper);
* several papers: paper letter + passage number within that paper (``A1``, ``B2``);
  numbers count in reading order, questions first (then synthesis, then summaries);
  letters follow preset letters, then order of first citation, uncited papers last;
* one paper: plain numbers;
* labels at the same spot stand side by side, sorted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final, Literal

from litdesk._errors import InputError

__all__ = [
    "FACETS",
    "FACET_QUERIES",
    "SYNTHESIS_SECTIONS",
    "CitedPassage",
    "LabelledReport",
    "Part",
    "ReportPaper",
    "ReportUnit",
    "UnitExcerpt",
    "assign_labels",
    "label_sort_key",
    "report_file_name",
    "surname",
]

UnitKind = Literal["question", "summary", "synthesis"]

#: The six fixed summary facets, in order.
FACETS: Final = ("aim", "methods", "study_area", "results", "discussion", "outlook")
#: Two-language (English, German) retrieval queries per facet.
FACET_QUERIES: Final[dict[str, tuple[str, str]]] = {
    "aim": (
        "What is the aim, objective or research question of the study?",
        "Was ist das Ziel oder die Forschungsfrage der Studie?",
    ),
    "methods": (
        "Which methods, data, instruments and analyses were used?",
        "Welche Methoden, Daten, Instrumente und Analysen wurden verwendet?",
    ),
    "study_area": (
        "Where was the study carried out: study area, site, population or sample?",
        "Wo wurde die Studie durchgeführt: Untersuchungsgebiet, Ort, Population, Stichprobe?",
    ),
    "results": (
        "What are the main results and findings?",
        "Was sind die wichtigsten Ergebnisse?",
    ),
    "discussion": (
        "How are the results discussed and interpreted, and what are the limitations?",
        "Wie werden die Ergebnisse diskutiert und welche Einschränkungen gibt es?",
    ),
    "outlook": (
        "What conclusions, future work or outlook do the authors give?",
        "Welche Schlussfolgerungen und welchen Ausblick geben die Autoren?",
    ),
}
SYNTHESIS_SECTIONS: Final = ("agreement", "differences", "open_points")
_MARKERS: Final = re.compile(r"(?:\[\d{1,4}\])+")
_ONE: Final = re.compile(r"\[(\d{1,4})\]")
MAX_NAME_PART: Final = 40


@dataclass(frozen=True, slots=True)
class ReportPaper:
    """One paper of the scope (``file`` is its library file name)."""

    file: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    doi: str | None = None
    arxiv: str | None = None
    link: str | None = None  # the PDF: a file:// URI (the CLI) or the workspace viewer
    #: the title and authors were read from the PDF's first pages (offline, unverified),
    #: with this confidence (0–1); ``None``: from a verified record or not known
    read_confidence: float | None = None


@dataclass(frozen=True, slots=True)
class UnitExcerpt:
    """A verified excerpt of one unit: its number in the unit, file, page, text, rank."""

    number: int
    file: str
    page: int
    text: str
    rank: int


@dataclass(frozen=True, slots=True)
class ReportUnit:
    """One answered unit: gated text with ``[n]`` markers and its excerpts."""

    kind: UnitKind
    key: str  # question text, facet name or synthesis section
    text: str
    excerpts: tuple[UnitExcerpt, ...]
    paper: str | None = None  # the paper file for per-paper units
    question_index: int | None = None
    grounded: bool = True
    extractive: bool = False
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of rendered unit text: plain ``text`` or a spot of ``labels``."""

    text: str = ""
    labels: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"labels": list(self.labels)} if self.labels else {"text": self.text}


@dataclass(frozen=True, slots=True)
class CitedPassage:
    """One label: one passage on one page of one paper."""

    label: str
    letter: str | None
    file: str
    page: int
    text: str
    rank: int
    units: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "letter": self.letter,
            "file": self.file,
            "page": self.page,
            "text": self.text,
            "rank": self.rank,
            "units": list(self.units),
        }


@dataclass
class LabelledReport:
    """Units with labelled parts, the letters of the papers and every cited passage."""

    papers: list[ReportPaper]
    letters: dict[str, str]  # file -> letter ("" for a one-paper report)
    units: list[ReportUnit]
    parts: list[tuple[Part, ...]]  # per unit, same order
    passages: list[CitedPassage]
    warnings: list[str] = field(default_factory=list)

    def passage(self, label: str) -> CitedPassage:
        for p in self.passages:
            if p.label == label:
                return p
        raise KeyError(label)


def label_sort_key(label: str) -> tuple[str, int]:
    """``A2`` before ``A10``; plain numbers sort numerically."""
    m = re.fullmatch(r"([A-Z]*)(\d+)", label)
    if m is None:
        return (label, 0)
    return (m.group(1), int(m.group(2)))


def _letter(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = chr(65 + r) + out
    return out


_ORDER: Final[dict[str, int]] = {"question": 0, "synthesis": 1, "summary": 2}


def assign_labels(
    papers: Sequence[ReportPaper],
    units: Sequence[ReportUnit],
    *,
    preset: dict[str, str] | None = None,
) -> LabelledReport:
    """Labels for every cited passage of ``units`` (see the module docs).

    ``units`` are taken in reading order: questions, synthesis, summaries (each group
    in the given order). ``preset`` letters (file -> letter, e.g. from a chat) win.
    """
    files = [p.file for p in papers]
    if len(set(files)) != len(files):
        raise InputError("a paper appears twice in the report scope", code="duplicate_paper")
    known = set(files)
    ordered = sorted(range(len(units)), key=lambda i: (_ORDER[units[i].kind], i))
    # pass 1: cited excerpts in reading order
    cited_order: list[tuple[int, UnitExcerpt]] = []
    for ui in ordered:
        unit = units[ui]
        by_number = {ex.number: ex for ex in unit.excerpts}
        for m in _ONE.finditer(unit.text):
            ex = by_number.get(int(m.group(1)))
            if ex is None:
                raise InputError(
                    f"unit {unit.key!r} cites [{m.group(1)}], which is not among its excerpts",
                    code="unverified_citation",
                )
            if ex.file not in known:
                raise InputError(f"{ex.file} is cited but not in the scope", code="unknown_paper")
            cited_order.append((ui, ex))
    several = len(papers) > 1
    letters: dict[str, str] = {}
    if several:
        used: set[str] = set()
        for f, letter in (preset or {}).items():
            if f in known and re.fullmatch(r"[A-Z]{1,2}", letter) and letter not in used:
                letters[f] = letter
                used.add(letter)
        nxt = 0

        def take(f: str) -> None:
            nonlocal nxt
            if f in letters:
                return
            while _letter(nxt) in used:
                nxt += 1
            letters[f] = _letter(nxt)
            used.add(letters[f])

        for _, ex in cited_order:
            take(ex.file)
        for f in files:
            take(f)
    else:
        letters = {f: "" for f in files}
    # pass 2: one label per (file, page, normalised text)
    labels: dict[tuple[str, int, str], str] = {}
    counts: dict[str, int] = {}
    passages: dict[str, CitedPassage] = {}
    unit_name = {ui: _unit_name(units[ui]) for ui in range(len(units))}
    for ui, ex in cited_order:
        key = (ex.file, ex.page, " ".join(ex.text.split()))
        label = labels.get(key)
        if label is None:
            letter = letters[ex.file]
            counts[letter] = counts.get(letter, 0) + 1
            label = f"{letter}{counts[letter]}"
            labels[key] = label
            passages[label] = CitedPassage(
                label, letter or None, ex.file, ex.page, ex.text, ex.rank, (unit_name[ui],)
            )
        else:
            old = passages[label]
            if unit_name[ui] not in old.units:
                passages[label] = CitedPassage(
                    old.label,
                    old.letter,
                    old.file,
                    old.page,
                    old.text,
                    min(old.rank, ex.rank),
                    (*old.units, unit_name[ui]),
                )
    parts: list[tuple[Part, ...]] = []
    for unit in units:
        by_number = {ex.number: ex for ex in unit.excerpts}
        out: list[Part] = []
        pos = 0
        for m in _MARKERS.finditer(unit.text):
            if m.start() > pos:
                out.append(Part(text=unit.text[pos : m.start()]))
            spot: set[str] = set()
            for n in _ONE.findall(m.group(0)):
                ex = by_number[int(n)]
                spot.add(labels[(ex.file, ex.page, " ".join(ex.text.split()))])
            out.append(Part(labels=tuple(sorted(spot, key=label_sort_key))))
            pos = m.end()
        if pos < len(unit.text):
            out.append(Part(text=unit.text[pos:]))
        parts.append(tuple(out))
    ordered_passages = sorted(passages.values(), key=lambda p: label_sort_key(p.label))
    return LabelledReport(list(papers), letters, list(units), parts, ordered_passages)


def _unit_name(unit: ReportUnit) -> str:
    if unit.kind == "question":
        return f"question {(unit.question_index or 0) + 1}"
    if unit.kind == "summary":
        return f"summary: {unit.key}"
    return f"synthesis: {unit.key}"


def surname(author: str) -> str:
    """The surname of an author string (``"Li, X."`` or ``"Xiaoming Li"``)."""
    author = author.strip()
    if "," in author:
        return author.split(",", 1)[0].strip()
    bits = author.split()
    return bits[-1] if bits else ""


def _safe(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", ascii_text).strip("_")
    return cleaned[:MAX_NAME_PART].strip("_")


def report_file_name(papers: Sequence[ReportPaper], questions: Sequence[str], *, on: date) -> str:
    """``<date>_synthesis_report_<up to three first-author surnames>[_et_al].html``.

    Surnames in scope order; ``_et_al`` when more papers with authors follow; without
    author data the slug of the first question; only ``[A-Za-z0-9_-.]`` characters.
    """
    names = [s for s in (_safe(surname(p.authors[0])) for p in papers if p.authors) if s]
    if names:
        tail = "_".join(names[:3]) + ("_et_al" if len(names) > 3 else "")
    else:
        slug = _safe(questions[0]).lower() if questions else ""
        tail = slug or "report"
    return f"{on.isoformat()}_synthesis_report_{tail}.html"
