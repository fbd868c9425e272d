"""Papers from PDFs, offline: generated PDFs end to end, and the real fixture PDFs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests._paper_pdf import make_paper

from litdesk._errors import InputError
from litdesk.core.pdfmeta import normalise_title
from litdesk.services.pdfmeta import read_pdf_meta


def test_a_generated_paper_is_read_field_by_field(tmp_path: Path) -> None:
    meta = read_pdf_meta(
        make_paper(
            tmp_path / "paper.pdf",
            meta_title="Seasonal recharge of alluvial aquifers in a semi-arid basin",
            doi="10.5555/basin.2019.12",
        )
    )
    assert meta.title is not None and meta.title.confidence >= 0.9
    assert meta.title.value == "Seasonal Recharge of Alluvial Aquifers in a Semi-Arid Basin"
    assert meta.authors is not None
    assert meta.authors.value == ("Maria Lopez", "John K. Smith", "Wei Chen")
    assert meta.year is not None and meta.year.value == 2019
    assert meta.venue is not None and meta.venue.value == "Journal of Basin Hydrology"
    assert meta.doi is not None and meta.doi.value == "10.5555/basin.2019.12"
    assert {f["source"] for f in meta.to_dict().values() if isinstance(f, dict)} == {
        "read from the PDF"
    }


def test_a_cover_page_and_a_margin_stamp(tmp_path: Path) -> None:
    path = make_paper(
        tmp_path / "preprint.pdf",
        cover=True,
        banner=None,
        copyright_line=None,
        margin_stamp="arXiv:2101.01234v2 [physics.geo-ph] 4 Jan 2021",
    )
    meta = read_pdf_meta(path)
    assert meta.title is not None and meta.title.value.startswith("Seasonal Recharge")
    assert meta.arxiv is not None and meta.arxiv.value == "2101.01234"
    assert meta.year is not None and (meta.year.value, meta.year.how) == (
        2021,
        "the arXiv identifier",
    )


def test_a_file_that_is_not_a_pdf_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text("just some notes")
    with pytest.raises(InputError):
        read_pdf_meta(path)


def _manifest(fixtures: Path) -> dict[str, dict[str, str]]:
    rows: dict[str, dict[str, str]] = {}
    head: list[str] | None = None
    for raw in (fixtures / "pdf" / "MANIFEST.md").read_text().splitlines():
        if not raw.startswith("|") or raw.startswith("|---"):
            continue
        cells = [c.strip() for c in raw.strip().strip("|").split("|")]
        if head is None:
            head = cells
        else:
            rows[cells[0]] = dict(zip(head, cells, strict=False))
    return rows


@pytest.mark.fixtures
def test_fixture_pdfs_titles_and_ids_match_the_manifest(fixtures_dir: Path) -> None:
    rows = _manifest(fixtures_dir)
    with_text = [name for name, row in rows.items() if row["text layer"] == "yes"]
    assert len(with_text) >= 15
    wrong: list[str] = []
    for name in with_text:
        row = rows[name]
        meta = read_pdf_meta(fixtures_dir / "pdf" / name)
        title = meta.title.value if meta.title else ""
        if normalise_title(title) != normalise_title(row["printed title"]):
            wrong.append(f"{name}: title {title!r}")
        printed_doi = row["DOI found (p1-2)"].split(";")[0]
        doi = re.sub(r"\s*\(p\d\)$", "", printed_doi) if printed_doi != "none" else None
        if doi and (meta.doi is None or meta.doi.value != doi.lower()):
            wrong.append(f"{name}: doi {meta.doi}")
        printed_arxiv = row["arXiv id found (p1-2)"]
        if printed_arxiv != "none" and (
            meta.arxiv is None or not printed_arxiv.startswith(meta.arxiv.value)
        ):
            wrong.append(f"{name}: arXiv {meta.arxiv}")
        if meta.authors is None or meta.year is None:
            wrong.append(f"{name}: no authors or year")
    assert wrong == []


@pytest.mark.fixtures
def test_fixture_files_that_are_not_readable_are_refused(fixtures_dir: Path) -> None:
    for name, code in (
        ("encrypted_libreoffice_password.pdf", "encrypted"),
        ("broken_unreadablemetadata.pdf", "broken"),
    ):
        with pytest.raises(InputError) as err:
            read_pdf_meta(fixtures_dir / "pdf" / name)
        assert err.value.code == code
    scan = read_pdf_meta(fixtures_dir / "pdf" / "scanned_no_text_cermine_simple.pdf")
    assert scan.title is None and "title" in scan.missing
