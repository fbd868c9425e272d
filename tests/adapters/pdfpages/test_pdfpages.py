"""Cited pages rendered once, passage boxes at the passage's real position."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from fpdf import FPDF
from PIL import Image

from litdesk._errors import InputError
from litdesk.adapters.pdf import read_pages
from litdesk.adapters.pdfpages import PageRenderError, highlight, render_pages
from litdesk.core.library import normalise_text

PASSAGE = "The staff gauge was read every ten minutes from the bridge camera."


def make_pdf(path: Path) -> Path:
    pdf = FPDF(format="A4")  # 210 x 297 mm
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.set_xy(20, 30)
    pdf.cell(0, 8, "First page: nothing to see here.")
    pdf.add_page()
    pdf.set_xy(20, 30)
    pdf.cell(0, 8, "Second page opening line.")
    pdf.set_xy(30, 150)  # the passage sits about half way down, indented 30 mm
    pdf.multi_cell(80, 7, PASSAGE)  # wraps onto several lines
    pdf.output(str(path))
    return path


def test_render_each_page_once_as_jpeg(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "gauge.pdf")
    pages = render_pages([(pdf, 2), (pdf, 2), (pdf, 1)], dpi=60)
    assert sorted(pages) == [(pdf, 1), (pdf, 2)]
    page = pages[(pdf, 2)]
    assert page.data_uri.startswith("data:image/jpeg;base64,")
    img = Image.open(io.BytesIO(base64.b64decode(page.data_uri.split(",", 1)[1])))
    assert img.size == (page.width_px, page.height_px)
    assert abs(page.width_pt - 595.28) < 0.5 and abs(page.height_pt - 841.89) < 0.5
    assert abs(page.width_px - 595.28 * 60 / 72) <= 1


def test_passage_boxes_cover_the_passage_lines(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "gauge.pdf")
    page = render_pages([(pdf, 2)])[(pdf, 2)]
    # the chunk text is whitespace-normalised; line breaks in the PDF differ
    hl = highlight(pdf, 2, "  The staff gauge was read\nevery ten   minutes from the bridge camera. ",
                   page.width_pt, page.height_pt)  # fmt: skip
    assert hl.found and len(hl.rects) >= 2  # one rectangle per wrapped line
    xs = [r[0] for r in hl.rects]
    ys = [r[1] for r in hl.rects]
    assert all(abs(x - 30 / 210) < 0.02 for x in xs)
    assert abs(min(ys) - 150 / 297) < 0.02
    assert ys == sorted(ys)
    assert all(r[0] + r[2] <= (30 + 80) / 210 + 0.01 for r in hl.rects)
    # a passage from another page is not found: no highlight, a note instead
    miss = highlight(pdf, 1, PASSAGE, page.width_pt, page.height_pt)
    assert not miss.found and miss.rects == () and "not found" in miss.notes[0]


def test_errors_are_typed(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "gauge.pdf")
    with pytest.raises(PageRenderError) as info:
        render_pages([(pdf, 3)])
    assert info.value.code == "no_page"
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4 garbage")
    with pytest.raises(PageRenderError):
        render_pages([(bad, 1)])
    with pytest.raises(InputError):
        render_pages([(pdf, 1)], dpi=1000)


def test_real_pdf_page_and_passage(fixtures_dir: Path) -> None:
    pdf = fixtures_dir / "pdf" / "naacl_2018_N18-3011.pdf"
    page = render_pages([(pdf, 1)], dpi=72)[(pdf, 1)]
    assert abs(page.width_px - page.width_pt) <= 1 and abs(page.height_px - page.height_pt) <= 1
    assert page.height_px > page.width_px > 500  # a portrait page at 72 dpi
    text = normalise_text(read_pages(pdf)[0])
    start = text.index("Construction of the Literature Graph")
    hl = highlight(pdf, 1, text[start : start + 120], page.width_pt, page.height_pt)
    assert hl.found
    # the title is at the top of page 1
    assert hl.rects[0][1] < 0.2
    assert all(0 <= v <= 1 for r in hl.rects for v in r)
