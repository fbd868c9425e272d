"""One self-contained HTML file for a synthesis report (Jinja2, autoescape on).

No external loads: a CSP ``<meta>`` allows only the inline script and style by their
SHA-256 hashes and ``data:`` images. Each cited page is embedded once as an image;
a label opens a viewer dialog with the page and the passage's boxes highlighted,
plus a plain link to the PDF at ``#page=N``.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, Final

import jinja2

from litdesk._errors import InputError
from litdesk.core.report import (
    DEFAULT_LABELS,
    FACETS,
    SYNTHESIS_SECTIONS,
    LabelledReport,
    Part,
    report_labels,
)
from litdesk.core.words import plural

__all__ = [
    "MAX_REPORT_BYTES",
    "CitationView",
    "PageView",
    "ReportMeta",
    "ReportTooLarge",
    "content_security_policy",
    "created_words",
    "render_html",
]

MAX_REPORT_BYTES: Final = 50_000_000
HOVER_CHARS: Final = 300


class ReportTooLarge(InputError):
    """The report would be larger than the byte limit."""

    default_code = "too_large"


@dataclass(frozen=True, slots=True)
class PageView:
    """One embedded page image (``src`` is a ``data:`` URI)."""

    id: str
    src: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class CitationView:
    """How one label is shown: its page image, highlight rectangles and PDF link."""

    page_id: str
    href: str
    rects: tuple[tuple[float, float, float, float], ...]


@dataclass(frozen=True, slots=True)
class ReportMeta:
    """What the report discloses about its run."""

    created: str
    model: str
    generation_model: str
    detail_mode: str
    summary_mode: str
    language: str | None
    questions: tuple[str, ...]
    synthesis_note: str | None = None
    warnings: tuple[str, ...] = ()
    #: the page labels' language (a code of :data:`litdesk.core.report.LABEL_LANGUAGES`)
    labels: str = DEFAULT_LABELS


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _sha(text: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
    )


@cache
def _assets() -> tuple[str, str, jinja2.Template]:
    env = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=False
    )
    return _asset("report.js"), _asset("report.css"), env.from_string(_asset("report.html.jinja"))


def content_security_policy() -> str:
    """The report's CSP: nothing external, the inline script and style by hash."""
    script, css, _ = _assets()
    return (
        f"default-src 'none'; img-src data:; style-src {_sha(css)}; script-src {_sha(script)}; "
        "base-uri 'none'; form-action 'none'"
    )


def _lines(parts: tuple[Part, ...]) -> list[tuple[Part, ...]]:
    """Split parts into lines (bullet points / sentences) for the Compare cells."""
    out: list[list[Part]] = [[]]
    for part in parts:
        if part.labels:
            out[-1].append(part)
            continue
        pieces = part.text.split("\n")
        for i, piece in enumerate(pieces):
            if i:
                out.append([])
            piece = piece.lstrip("-• ").rstrip() if not out[-1] else piece
            if piece:
                out[-1].append(Part(text=piece))
    return [tuple(x) for x in out if any(p.labels or p.text.strip() for p in x)]


def created_words(iso: str, labels: str = DEFAULT_LABELS) -> str:
    """``5 Dec 2026, 12:48 UTC`` for the report's ISO creation time (as stored, UTC) in the
    label language (``5. Dez. 2026, 12:48 UTC``); text that is not a date stays as it is.
    The file is read anywhere, so the zone is named."""
    try:
        at = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    t = report_labels(labels)
    zone = " UTC" if at.utcoffset() is not None and not at.utcoffset() else ""
    month = t["months"].split()[at.month - 1]
    return t["date"].format(day=at.day, month=month, year=at.year, time=f"{at:%H:%M}") + zone


def _unit_words(name: str, t: Mapping[str, str]) -> str:
    """A passage's unit (``question 2``, ``summary: aim``) in the label language."""
    kind, _, rest = name.partition(" ")
    if kind == "question" and rest.isdigit():
        return t["unit_question"].format(n=rest)
    key = rest.strip()
    if kind == "summary:" and f"facet_{key}" in t:
        return t["unit_summary"].format(facet=t[f"facet_{key}"])
    if kind == "synthesis:" and f"section_{key}" in t:
        return t["unit_synthesis"].format(section=t[f"section_{key}"])
    return name


def render_html(
    report: LabelledReport,
    meta: ReportMeta,
    pages: Mapping[str, PageView],
    citations: Mapping[str, CitationView],
    *,
    max_bytes: int = MAX_REPORT_BYTES,
) -> str:
    """The report as one HTML document; raises :class:`ReportTooLarge` over ``max_bytes``."""
    script, css, template = _assets()
    t = report_labels(meta.labels)
    several = len(report.papers) > 1
    letters = report.letters
    titles = {p.file: p.title or p.file for p in report.papers}
    missing = [p.label for p in report.passages if p.label not in citations]
    if missing:
        raise InputError(
            f"no page view for {plural(len(missing), 'label')}: {', '.join(missing)}",
            code="no_page_view",
        )
    cites: dict[str, dict[str, Any]] = {}
    for cp in report.passages:
        view = citations[cp.label]
        if view.page_id not in pages:
            raise InputError(f"label {cp.label} names a missing page image", code="no_page_view")
        name = titles[cp.file]
        who = f"{cp.letter} · {name}" if cp.letter else name
        clipped = " ".join(cp.text.split())
        short = clipped if len(clipped) <= HOVER_CHARS else clipped[:HOVER_CHARS] + " …"
        cites[cp.label] = {
            "href": view.href,
            "page_id": view.page_id,
            "page": cp.page,
            "rects": ";".join(" ".join(f"{v:.5f}" for v in r) for r in view.rects),
            "caption": f"{cp.label} — {who}, {t['page'].format(page=cp.page)}",
            "passage": clipped,
            "hover": f"{who} — {t['page'].format(page=cp.page)}\n{short}",
        }
    questions: list[dict[str, Any]] = []
    for qi, question in enumerate(meta.questions):
        units = []
        for unit, parts in zip(report.units, report.parts, strict=True):
            if unit.kind != "question" or unit.question_index != qi:
                continue
            label = None
            if unit.paper and several:
                label = f"{letters[unit.paper]} · {titles[unit.paper]}"
            flag = None if unit.grounded else t["not_grounded"]
            if unit.extractive and unit.grounded:
                flag = t["extractive_answer"]
            units.append({"paper_label": label, "parts": parts, "flag": flag})
        questions.append({"question": question, "units": units})
    synthesis = [
        {"heading": t[f"section_{u.key}"], "parts": parts}
        for key in SYNTHESIS_SECTIONS
        for u, parts in zip(report.units, report.parts, strict=True)
        if u.kind == "synthesis" and u.key == key
    ]
    summaries: dict[str, dict[str, tuple[bool, tuple[Part, ...]]]] = {}
    for u, parts in zip(report.units, report.parts, strict=True):
        if u.kind == "summary" and u.paper:
            summaries.setdefault(u.paper, {})[u.key] = (u.extractive, parts)
    order = sorted(report.papers, key=lambda p: letters[p.file] or "")
    paper_views = []
    for i, p in enumerate(order):
        own = [c for c in report.passages if c.file == p.file]
        summary = [
            {"heading": t[f"facet_{f}"], "extractive": summaries[p.file][f][0],
             "parts": summaries[p.file][f][1]}
            for f in FACETS
            if f in summaries.get(p.file, {})
        ]  # fmt: skip
        pages_cited = sorted({c.page for c in own})
        paper_views.append(
            {
                "letter": letters[p.file],
                "letter_or_index": letters[p.file] or str(i + 1),
                "title": p.title or p.file,
                "short": (p.title or p.file)[:60],
                "file": p.file,
                "link": p.link or "",
                "doi": p.doi,
                "arxiv": p.arxiv,
                "first_author": p.authors[0] if p.authors else "",
                "read_from_pdf": (
                    t["read_from_pdf"].format(confidence=f"{p.read_confidence:.2f}")
                    if p.read_confidence is not None
                    else ""
                ),
                "summary": summary,
                "passages": [
                    {
                        "label": c.label,
                        "page": c.page,
                        "rank": c.rank,
                        "text": c.text,
                        "units": ", ".join(_unit_words(u, t) for u in c.units),
                    }
                    for c in own
                ],  # fmt: skip
                "pages_cited": ", ".join(str(n) for n in pages_cited),
            }
        )
    compare = []
    if several and summaries:
        for f in FACETS:
            cells = []
            for p in order:
                got = summaries.get(p.file, {}).get(f)
                lines = _lines(got[1]) if got else []
                cells.append({"points": lines[:2], "more": max(0, len(lines) - 2)})
            compare.append({"heading": t[f"facet_{f}"], "cells": cells})
    lead = meta.questions[0] if meta.questions else t["title_no_question"]
    n = len(paper_views)
    html = template.render(
        lang=meta.labels,
        t=t,
        paper_count=f"{n} {t['paper_one'] if n == 1 else t['paper_many']}",
        detail_words=t.get(f"detail_{meta.detail_mode}", meta.detail_mode),
        summary_words=t.get(f"summary_{meta.summary_mode}", meta.summary_mode),
        csp=content_security_policy(),
        css=css,
        script=script,
        title=f"{t['title_prefix']} — {lead[:120]}",
        created=meta.created,
        created_words=created_words(meta.created, meta.labels),
        model=meta.model,
        generation_model=meta.generation_model,
        detail_mode=meta.detail_mode,
        summary_mode=meta.summary_mode,
        language=meta.language or t["language_default"],
        several=several,
        papers=paper_views,
        questions=questions,
        cross_refs=several and any(u.kind == "question" and u.paper is None for u in report.units),
        synthesis=synthesis,
        synthesis_note=meta.synthesis_note,
        compare=compare,
        cites=cites,
        pages=[pages[k] for k in sorted(pages)],
        warnings=list(meta.warnings),
    )
    size = len(html.encode("utf-8"))
    if size > max_bytes:
        raise ReportTooLarge(
            f"the report would be {size} bytes, over the limit of {max_bytes}; "
            "cite fewer pages (fewer papers or questions) or lower the page DPI",
            size=size,
            limit=max_bytes,
        )
    return html
