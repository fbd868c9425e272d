"""Plain-text PDFs for the library's tests, made with fpdf2 once per content.

fpdf2 lays a page out in Python (~36 ms of CPU a page of these texts): a test that writes
the same PDF as the one before gets the bytes made for it, and a test that needs many
distinct PDFs (an index still running when it is interrupted or killed) gets one made and
numbered copies of it (:func:`numbered_pdfs`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from fpdf import FPDF

__all__ = ["numbered_pdfs", "pdf_bytes", "write_pdf"]

#: what begins each page of a numbered PDF, before its number is set
_MARK = b"(Paper 000. "


@functools.cache
def pdf_bytes(pages: tuple[str, ...], *, compress: bool = True) -> bytes:
    """A PDF of ``pages`` (Helvetica 11, one text a page)."""
    pdf = FPDF()
    pdf.set_compression(compress)
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def write_pdf(path: Path, pages: Sequence[str]) -> Path:
    """``path`` a PDF of ``pages`` (its folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pdf_bytes(tuple(pages)))
    return path


def numbered_pdfs(
    folder: Path, name: str, count: int, pages: Sequence[str], *, first: int = 0
) -> list[Path]:
    """``count`` distinct PDFs ``name.format(n)`` (``n`` from ``first``) in ``folder``, each
    page beginning
    "Paper NNN. " (``n``, three digits) then the page's text: one PDF laid out, its text
    stream left uncompressed, and the number written into each copy (three digits for
    three: the cross-reference offsets stay right)."""
    template = pdf_bytes(tuple(f"Paper 000. {text}" for text in pages), compress=False)
    if template.count(_MARK) != len(pages):
        raise AssertionError("the page's first line is not where the number is written")
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for n in range(first, first + count):
        path = folder / name.format(n)
        path.write_bytes(template.replace(_MARK, b"(Paper %03d. " % n))
        out.append(path)
    return out
