"""The first pages' lines with font size and position, and the document info (pypdfium2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF
from tests._paper_pdf import make_paper

from litdesk.adapters.pdf import PdfExcluded
from litdesk.adapters.pdfhead import read_head


def test_lines_carry_their_size_and_position(tmp_path: Path) -> None:
    head = read_head(make_paper(tmp_path / "p.pdf", meta_title="Seasonal recharge"))
    assert head.page_count == 2 and len(head.page_sizes) == 2
    texts = [x.text for x in head.lines if x.page == 1]
    assert texts[:3] == [
        "Journal of Basin Hydrology (2019) 12, 101-115",
        "Seasonal Recharge of Alluvial Aquifers in a",
        "Semi-Arid Basin",
    ]
    by_text = {x.text: x for x in head.lines}
    banner, title = by_text[texts[0]], by_text[texts[1]]
    authors = by_text["Maria Lopez1, John K. Smith2* and Wei Chen1"]
    # 8 pt banner < 12 pt authors < 20 pt title, in the same proportions
    assert banner.size < authors.size < title.size
    assert title.size / banner.size == pytest.approx(20 / 8, rel=0.1)
    assert banner.top > title.top > authors.top  # y grows up the page
    assert head.info["Title"] == "Seasonal recharge"
    assert "CreationDate" in head.info
    assert any("Groundwater levels" in t for t in head.texts[1].splitlines())


def test_pages_limits_what_is_read(tmp_path: Path) -> None:
    head = read_head(make_paper(tmp_path / "p.pdf"), pages=1)
    assert {x.page for x in head.lines} == {1} and head.page_count == 2


def test_a_rotated_margin_stamp_is_not_a_line_but_stays_in_the_text(tmp_path: Path) -> None:
    stamp = "arXiv:2101.01234v2 [physics.geo-ph] 4 Jan 2021"
    head = read_head(make_paper(tmp_path / "p.pdf", margin_stamp=stamp))
    assert all("arXiv" not in x.text for x in head.lines)
    assert all(len(x.text) > 1 or x.text.isalnum() for x in head.lines)
    assert "2101.01234" in head.texts[0]


def test_a_page_rotated_by_a_quarter_turn_reads_along_its_lines(tmp_path: Path) -> None:
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=20)
    with pdf.rotation(90, x=100, y=250):
        pdf.text(100, 250, "A Title Set Sideways")
    pdf.set_font("Helvetica", size=10)
    with pdf.rotation(90, x=130, y=250):
        pdf.text(130, 250, "and its smaller first line")
    path = tmp_path / "sideways.pdf"
    pdf.output(str(path))
    lines = read_head(path).lines
    assert [x.text for x in lines] == ["A Title Set Sideways", "and its smaller first line"]
    assert lines[0].size > 1.5 * lines[1].size


def test_unreadable_files_are_refused_with_a_reason(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a pdf\n")
    with pytest.raises(PdfExcluded) as err:
        read_head(broken)
    assert err.value.code == "broken"
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "secret")
    pdf.set_encryption(owner_password="owner", user_password="user")
    locked = tmp_path / "locked.pdf"
    pdf.output(str(locked))
    with pytest.raises(PdfExcluded) as err:
        read_head(locked)
    assert err.value.code == "encrypted"
    with pytest.raises(PdfExcluded) as err:
        read_head(tmp_path / "missing.pdf")
    assert err.value.code == "unreadable"
