"""A Study's evidence and notes as files people read: the evidence table as spreadsheet-safe
CSV (one column per field of the Study's form, the passage and how it was checked, the PDF it
was checked on) and the review notebook as Markdown. The Study ZIP (:mod:`._exports`) holds
both."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from typing import Any, Final

from litdesk import __version__
from litdesk.core.evidence import (
    EVIDENCE_FIELDS,
    Annotation,
    Evidence,
    csv_cell,
    evidence_headline,
    evidence_values,
    md_blockquote,
    md_escape,
)
from litdesk.core.forms import Form, default_form, shown_values, value_text
from litdesk.core.records import Paper
from litdesk.core.words import when

from ._results import EvidenceView, NoteView, now_iso

__all__ = [
    "CSV_COLUMNS",
    "OTHER_FIELDS",
    "PDF_COLUMNS",
    "SUBJECTS_COLUMN",
    "evidence_csv",
    "notebook_markdown",
]

_ID_COLUMNS: Final = ("evidence_id", "paper_id", "title", "year", "doi", "pmid", "pmcid")
_PASSAGE_COLUMNS: Final = (
    "passage",
    "source",
    "location",
    "section",
    "block_id",
    "source_url",
    "licence",
    "retrieved_at",
    "verification",
    "recheck",
    "created_at",
)
#: For a record saved from a reviewed assistant draft: the model and each field's
#: original suggestion (empty for a record written by hand).
_ASSISTED_COLUMNS: Final = ("model", *(f"suggested_{name}" for name, _ in EVIDENCE_FIELDS))
#: The columns of the default form's evidence CSV (as before Studies chose forms).
CSV_COLUMNS: Final = (
    *_ID_COLUMNS,
    *(name for name, _ in EVIDENCE_FIELDS),
    *_PASSAGE_COLUMNS,
    *_ASSISTED_COLUMNS,
)
#: Values of fields the Study's form no longer has, as a JSON object ("not in the form").
OTHER_FIELDS: Final = "other_fields"


# --- evidence CSV and notebook ---------------------------------------------------------


#: the evidence CSV's column of linked subjects (present when a record has one)
SUBJECTS_COLUMN: Final = "subjects"
#: the evidence CSV's columns of the PDF a passage was checked on (present when a record
#: comes from a PDF; its ``location`` then reads "From the PDF, page N (checked)")
PDF_COLUMNS: Final = ("pdf_file", "pdf_page", "pdf_sha256")
#: the evidence CSV's column of the account that recorded each record (present on a team
#: server, where records have one: two reviewers extracting the same paper)
RECORDED_BY_COLUMN: Final = "recorded_by"


def evidence_csv(views: Iterable[EvidenceView], form: Form | None = None) -> str:
    """The evidence table as formula-safe CSV: one column per field of the Study's form
    (the default six without one), then the passage columns, the model and each field's
    original suggestion (assisted records); values of fields the form
    no longer has go to an ``other_fields`` column (a JSON object), present when a
    record has such values or the form is not the default; the linked subjects to a
    ``subjects`` column, present when a record has one; who recorded each to a
    ``recorded_by`` column, present when a record names its account (a team server)."""
    form = form or default_form()
    rows = list(views)
    keys = form.keys
    extras = [{k: v for k, v in evidence_values(v.evidence).items() if k not in keys} for v in rows]
    columns = (*_ID_COLUMNS, *keys, *_PASSAGE_COLUMNS, *_ASSISTED_COLUMNS)
    if form.template != "default" or any(extras):
        columns = (*columns, OTHER_FIELDS)
    if any(v.subjects for v in rows):  # the linked subjects, as "label (mesh:D003920)"
        columns = (*columns, SUBJECTS_COLUMN)
    if any(v.evidence.pdf for v in rows):
        columns = (*columns, *PDF_COLUMNS)
    if any(v.recorded_by for v in rows):  # a team: who recorded each (dual extraction)
        columns = (*columns, RECORDED_BY_COLUMN)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns)
    for v, extra in zip(rows, extras, strict=True):
        ev, p, ctx = v.evidence, v.paper, v.evidence.context
        row: dict[str, object] = {
            "evidence_id": v.id,
            "paper_id": ev.paper_id,
            "title": p.title if p else "",
            "year": p.year if p else "",
            "doi": p.doi if p else "",
            "pmid": p.pmid if p else "",
            "pmcid": p.pmcid if p else "",
            "passage": ev.passage,
            "source": ev.source,
            "location": "; ".join(x for x in (ev.pdf.label(), ev.location) if x)
            if ev.pdf
            else ev.location,  # a PDF passage: its page in words first
            "section": ctx.section if ctx else "",
            "block_id": ctx.block_id if ctx else "",
            "source_url": ctx.url if ctx else "",
            "licence": ctx.licence if ctx else "",
            "retrieved_at": ctx.retrieved_at if ctx else (p.retrieved_at if p else ""),
            "verification": ev.verification,
            "recheck": v.recheck,
            "created_at": ev.created_at,
            OTHER_FIELDS: json.dumps(extra, ensure_ascii=False) if extra else "",
            SUBJECTS_COLUMN: "; ".join(f"{s.label} ({s.key})" for s in v.subjects),
            "model": v.assisted.model if v.assisted else "",
            "pdf_file": ev.pdf.file if ev.pdf else "",
            "pdf_page": ev.pdf.page if ev.pdf else "",
            "pdf_sha256": ev.pdf.sha256 if ev.pdf else "",
            RECORDED_BY_COLUMN: v.recorded_by or "",
        }
        for name, _ in EVIDENCE_FIELDS:
            row[f"suggested_{name}"] = v.assisted.suggestions.get(name) if v.assisted else ""
        values = evidence_values(ev)
        for key in keys:
            value = values.get(key)
            row[key] = value_text(value) if value is not None else None
        writer.writerow([csv_cell(row[c]) for c in columns])
    return buf.getvalue()


def _md_url(url: str) -> str:
    """An autolink when the URL cannot break out of it, else escaped text."""
    if any(c in url for c in "<>\\`") or any(c.isspace() for c in url):
        return md_escape(url)
    return f"<{url}>"


def _source_lines(paper: Paper, anchor_ctx: Any, source: str, retrieved: str | None) -> list[str]:
    if source == "fulltext" and anchor_ctx is not None:
        parts = [
            f"Source: full text {anchor_ctx.pmcid}, paragraph {md_escape(anchor_ctx.block_id)}"
        ]
        if anchor_ctx.section:
            parts.append(f"section {md_escape(anchor_ctx.section)}")
        lines = [", ".join(parts) + f" — {_md_url(anchor_ctx.url)}"]
        lic = md_escape(anchor_ctx.licence) if anchor_ctx.licence else "licence not stated"
        if anchor_ctx.licence_url:
            lic += f" ({_md_url(anchor_ctx.licence_url)})"
        lines.append(f"Licence: {lic}")
        if anchor_ctx.retrieved_at:
            lines.append(f"Retrieved: {anchor_ctx.retrieved_at}")
        return lines
    if source == "external":
        return ["Source: external passage (to verify)"]
    out = [f"Source: abstract of {paper.id}"]
    if retrieved:
        out.append(f"Retrieved: {retrieved}")
    return out


def notebook_markdown(
    title: str,
    papers: Iterable[Paper],
    notes: Iterable[NoteView],
    evidence: Iterable[EvidenceView],
    form: Form | None = None,
) -> str:
    """The review notebook: per paper, its highlights/comments and evidence (its values
    in the Study's form's order, then those not in the current form), with passages as
    block quotes, their sources, retrieval dates and licences."""
    form = form or default_form()
    by_paper_notes: dict[str, list[NoteView]] = {}
    for n in notes:
        by_paper_notes.setdefault(n.annotation.paper_id, []).append(n)
    by_paper_ev: dict[str, list[EvidenceView]] = {}
    for e in evidence:
        by_paper_ev.setdefault(e.evidence.paper_id, []).append(e)
    out = [
        f"# Review notebook: {md_escape(title)}",
        "",
        f"Exported {now_iso()} by litdesk {__version__}.",
        "",
    ]
    for paper in papers:
        pn, pe = by_paper_notes.get(paper.id, []), by_paper_ev.get(paper.id, [])
        if not pn and not pe:
            continue
        out += [f"## {md_escape(paper.title or paper.id)}", ""]
        meta = [", ".join(f"{k}: {v}" for k, v in paper.identifiers().items())]
        if paper.journal or paper.year:
            meta.append(" ".join(str(x) for x in (paper.journal, paper.year) if x))
        out += [md_escape("; ".join(meta)), ""]
        for n in pn:
            _note_md(out, paper, n.annotation, n.notice)
        for e in pe:
            _evidence_md(out, paper, e.evidence, e.recheck, form)
    return "\n".join(out).rstrip() + "\n"


def _note_md(out: list[str], paper: Paper, note: Annotation, notice: str | None) -> None:
    written = when(note.created_at, relative=False)
    out.append(f"### {'Highlight' if note.anchor else 'Comment'} ({written})")
    out.append("")
    if note.anchor is not None:
        a = note.anchor
        out += [md_blockquote(a.text), ""]
        out += [line + "  " for line in _source_lines(paper, a.context, a.source, a.retrieved_at)]
        out.append("")
    if note.comment:
        out += [md_escape(note.comment), ""]
    if notice:
        out += [f"*Notice: {md_escape(notice)}*", ""]


def _evidence_md(out: list[str], paper: Paper, ev: Evidence, recheck: str, form: Form) -> None:
    out += [f"### Evidence: {md_escape(evidence_headline(ev)[:120])}", ""]
    for shown in shown_values(form, evidence_values(ev)):
        label = md_escape(shown["label"])
        if not shown["in_form"]:
            label += " (not in the current form)"
        text = shown["text"]
        out.append(f"- **{label}:** {md_escape(text) if text else '*not extracted*'}")
    out.append("")
    out += [md_blockquote(ev.passage), ""]
    if ev.pdf is not None:
        src = [f"Source: {ev.pdf.label()} — {md_escape(ev.pdf.file)}, sha256 {ev.pdf.sha256[:12]}"]
    else:
        src = _source_lines(paper, ev.context, ev.source, paper.retrieved_at)
    if ev.location:
        src.append(f"Location: {md_escape(ev.location)}")
    if recheck not in ("ok", "needs_verification"):
        src.append(f"Check: {md_escape(recheck)}")
    out += [line + "  " for line in src]
    out.append("")
