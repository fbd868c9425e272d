"""RIS: import of every common dialect and export.

Read: PubMed/EndNote, Scopus, Web of Science, Embase and Ovid, Zotero, Mendeley,
Rayyan (untagged continuation lines), EBSCOhost, Dimensions, Lens, IEEE, JSTOR. Junk
and header lines between records (``Record #1 of 2``, ``Provider: …``, Ovid's numbered
``1.`` lines) are skipped with a notice; mixed CR/LF/CRLF line ends are read; a last
record without ``ER`` is read with an ``unterminated`` notice. Every tag the Paper does
not carry is kept in the record's ``extras``.

Write: ``TY`` (JOUR, UNPB for preprints, BOOK, CHAP, CONF, THES, RPRT, …), ``TI``, one
``AU`` per author, ``JO``, ``PY``, ``VL``, ``IS``, ``SP``/``EP``, ``DO``, ``AN`` (PMID),
``C2`` (PMCID), ``UR`` (arXiv/OpenAlex/source links), ``AB``, ``KW``, ``N1`` (retraction
and retrieval note), ``ID`` (the litdesk id), ``ER``. Line breaks and control characters
inside values are collapsed to spaces, so no value can start a tag line.

The helpers re-exported from ``_ris_base`` (:func:`split_lines`, :func:`build_paper`, …) are
shared by the other tagged formats (MEDLINE, Web of Science).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from litdesk.core.records import Paper

from ._ris_base import (
    _TYPE_CODES,
    PARSER_ID,
    PARSER_VERSION,
    RIS_TYPES,
    _tag_of,
    build_paper,
    clean_value,
    first_year,
    split_lines,
    tag_extras,
    tag_set,
    take_identifier,
)
from ._ris_read import parse, parse_bytes
from ._spec import FormatSpec
from ._tools import zotero_ris_tool

__all__ = [
    "FORMATS",
    "RIS_TYPES",
    "build_paper",
    "clean_value",
    "dumps",
    "first_year",
    "parse",
    "parse_bytes",
    "sniff",
    "split_lines",
    "tag_extras",
    "tag_set",
    "take_identifier",
]


def sniff(head: str) -> int:
    """Confidence that ``head`` is RIS: a ``TY  -`` line and an ``ER  -`` line, or close."""
    lines = split_lines(head[:65536])
    ty = er = tagged = 0
    for line in lines[:4000]:
        tag = _tag_of(line)
        if tag is None:
            continue
        tagged += 1
        if tag[0] == "TY":
            ty += 1
        elif tag[0] == "ER":
            er += 1
    if ty and er:
        return 90
    if ty and tagged >= 2:
        return 70
    if er and tagged >= 3:
        return 50
    return 0


# --------------------------------------------------------------------------------------
# writing


def _type_code(ptype: str) -> str | None:
    low = ptype.strip().lower()
    if low.upper() in RIS_TYPES:
        return low.upper()
    if low in _TYPE_CODES:
        return _TYPE_CODES[low]
    for words, code in _TYPE_WORDS:
        if any(w in low for w in words):
            return code
    return None


_TYPE_WORDS: Final = (
    (("preprint", "posted-content", "posted content"), "UNPB"),
    (("chapter", "book-section", "book section"), "CHAP"),
    (("proceedings", "conference"), "CONF"),
    (("book",), "BOOK"),
    (("thesis", "dissertation"), "THES"),
    (("dataset",), "DATA"),
    (("journal", "article", "review", "letter", "editorial"), "JOUR"),
    (("report",), "RPRT"),
)


def ris_type(paper: Paper) -> str:
    """The RIS ``TY`` for a paper (``UNPB`` for preprints, ``JOUR`` by default)."""
    codes = [c for c in map(_type_code, paper.publication_types) if c]
    if "UNPB" in codes:
        return "UNPB"
    if codes:
        return codes[0]
    if paper.arxiv_id and not paper.journal:
        return "UNPB"
    return "JOUR"


def _line(out: list[str], tag: str, value: str | None) -> None:
    if value is None:
        return
    text = clean_value(value)
    if text:
        out.append(f"{tag}  - {text}")


def dumps(papers: Sequence[Paper], *, abstracts: bool = True) -> str:
    """RIS text for ``papers`` (one record each, ``ER`` after each, LF line ends).

    ``ID`` carries the litdesk id, written once per export so the file re-imports
    without a duplicate-id refusal when the same paper is listed twice.
    """
    out: list[str] = []
    written: set[str] = set()
    for paper in papers:
        out.append(f"TY  - {ris_type(paper)}")
        _line(out, "TI", paper.title)
        for author in paper.authors:
            _line(out, "AU", author)
        _line(out, "JO", paper.journal)
        if paper.year is not None:
            out.append(f"PY  - {paper.year}")
        _line(out, "VL", paper.volume)
        _line(out, "IS", paper.issue)
        if paper.pages:
            sp, sep, ep = paper.pages.partition("-")
            _line(out, "SP", sp if sep and sp.strip() and ep.strip() else paper.pages)
            if sep and sp.strip() and ep.strip():
                _line(out, "EP", ep)
        _line(out, "DO", paper.doi)
        _line(out, "AN", paper.pmid)
        _line(out, "C2", paper.pmcid)
        if paper.arxiv_id:
            _line(out, "UR", f"https://arxiv.org/abs/{paper.arxiv_id}")
        if paper.openalex_id:
            _line(out, "UR", f"https://openalex.org/{paper.openalex_id}")
        _line(out, "UR", paper.source_url)
        if abstracts:
            _line(out, "AB", paper.abstract)
        for keyword in paper.keywords:
            _line(out, "KW", keyword)
        note = []
        if paper.retracted:
            note.append("RETRACTED")
        if paper.retrieved_at:
            note.append(
                f"retrieved {paper.retrieved_at}"
                + (f" from {paper.provider}" if paper.provider else "")
            )
        if note:
            _line(out, "N1", "; ".join(note))
        if paper.id not in written:  # a second copy of a paper gets no ID: ids stay unique
            written.add(paper.id)
            _line(out, "ID", paper.id)
        out.append("ER  - ")
        out.append("")
    return "\n".join(out)


def _dumps(papers: Sequence[Paper]) -> str:
    return dumps(papers)


FORMATS: list[FormatSpec] = [
    FormatSpec(
        name="ris",
        parser_id=PARSER_ID,
        parser_version=PARSER_VERSION,
        description="RIS (PubMed, Scopus, Web of Science, Embase/Ovid, Zotero, EndNote, Mendeley, Rayyan)",
        sniff=sniff,
        parse=parse,
        extensions=("ris", "txt"),
        dumps=_dumps,
        tool=zotero_ris_tool,
    )
]
