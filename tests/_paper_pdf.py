"""Article-like PDFs made with fpdf2 for the metadata reader's tests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fpdf import FPDF

__all__ = ["BODY", "make_paper"]

BODY = (
    "Groundwater levels were logged hourly at forty wells across the basin. "
    "The seasonal signal dominated the record in every aquifer we sampled. "
) * 6


def make_paper(
    path: Path,
    *,
    title: str = "Seasonal Recharge of Alluvial Aquifers in a Semi-Arid Basin",
    authors: str = "Maria Lopez1, John K. Smith2* and Wei Chen1",
    banner: str | None = "Journal of Basin Hydrology (2019) 12, 101-115",
    copyright_line: str | None = "Copyright (c) 2019 The Authors. Published by the Basin Press.",
    meta_title: str | None = None,
    meta_author: str | None = None,
    cover: bool = False,
    margin_stamp: str | None = None,
    doi: str | None = None,
) -> Path:
    """A two-page paper: banner (8 pt), title (20 pt), authors (12 pt), affiliation and
    copyright (8 pt), abstract and body (10 pt); optionally a cover page before it, a
    rotated stamp in the left margin and a DOI line."""
    pdf = FPDF(format="A4")
    pdf.set_creation_date(dt.datetime(2021, 3, 4, tzinfo=dt.UTC))
    if meta_title is not None:
        pdf.set_title(meta_title)
    if meta_author is not None:
        pdf.set_author(meta_author)
    if cover:
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.set_xy(20, 30)
        pdf.cell(0, 6, "Technical Report Series of the River Laboratory")
        pdf.set_xy(20, 60)
        pdf.set_font("Helvetica", size=9)
        pdf.multi_cell(170, 5, "DISCLAIMER. This report is distributed as received. " * 4)
    pdf.add_page()
    if margin_stamp:
        pdf.set_font("Helvetica", size=14)
        with pdf.rotation(90, x=12, y=200):
            pdf.text(12, 200, margin_stamp)
    if banner:
        pdf.set_font("Helvetica", size=8)
        pdf.set_xy(20, 12)
        pdf.cell(0, 4, banner)
    pdf.set_font("Helvetica", style="B", size=20)
    pdf.set_xy(20, 35)
    pdf.multi_cell(170, 9, title)
    pdf.set_font("Helvetica", size=12)
    pdf.set_x(20)
    pdf.multi_cell(170, 6, authors)
    pdf.set_font("Helvetica", size=8)
    pdf.set_x(20)
    pdf.multi_cell(170, 4, "1 Department of Earth Sciences, University of Nowhere, Utopia")
    if copyright_line:
        pdf.set_x(20)
        pdf.multi_cell(170, 4, copyright_line)
    if doi:
        pdf.set_x(20)
        pdf.multi_cell(170, 4, f"https://doi.org/{doi}")
    pdf.ln(6)
    pdf.set_font("Helvetica", style="B", size=11)
    pdf.set_x(20)
    pdf.cell(0, 6, "Abstract")
    pdf.ln(8)
    pdf.set_font("Helvetica", size=10)
    pdf.set_x(20)
    pdf.multi_cell(170, 5, BODY)
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(20, 20)
    pdf.multi_cell(170, 5, BODY)
    pdf.output(str(path))
    return path
