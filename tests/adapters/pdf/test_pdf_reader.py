"""pypdfium2 reader: real fixtures (MANIFEST.md facts) and exact fpdf2-made PDFs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.adapters.pdf import PdfExcluded, extract, file_sha256, passage_boxes, read_pages
from litdesk.adapters.pdf._reader import _find_passage
from litdesk.core.library import chunk_pages

# (file, pages, DOI found on p1-2, arXiv id found on p1-2) from fixtures/pdf/MANIFEST.md
MANIFEST = [
    ("hindawi_rrp_2010_157939.pdf", 6, "10.1155/2010/157939", None),
    ("plosone_2018_0197919.pdf", 21, "10.1371/journal.pone.0197919", None),
    ("clinsci_2014_cs20130403.pdf", 13, "10.1042/cs20130403", None),
    ("bmc_jtmo_2010_datta_partial.pdf", 4, None, None),
    ("peerj_cs_2017_118.pdf", 16, "10.7717/peerj-cs.118", None),
    ("arxiv_2501.10120v1_pasa.pdf", 15, None, "2501.10120"),
    ("arxiv_1504.06236v2.pdf", 17, None, "1504.06236"),
    ("arxiv_0908.0054v1.pdf", 4, None, "0908.0054"),
    ("arxiv_hep-ph_9412269.pdf", 18, None, "hep-ph/9412269"),
    ("arxiv_2302.07302v1_citesee.pdf", 15, "10.1145/3544548.3580847", "2302.07302"),
    ("arxiv_2206.10883v3_multilexsum.pdf", 37, None, "2206.10883"),
    ("acl_2020_main_207_specter.pdf", 13, None, None),
    ("naacl_2018_N18-3011.pdf", 8, None, None),
    ("scielo_transinf_2023_pt.pdf", 13, "10.1590/2318-0889202335e227169", None),
    ("scielo_transinf_2021_es.pdf", 11, "10.1590/2318-0889202133e200057", None),
    ("scanned_ocr_zfn_1999.pdf", 2, None, None),
]
EXCLUDED = [
    ("scanned_no_text_cermine_simple.pdf", "no_text"),
    ("encrypted_libreoffice_password.pdf", "encrypted"),
    ("broken_unreadablemetadata.pdf", "broken"),
]


@pytest.mark.fixtures
@pytest.mark.parametrize(("name", "pages", "doi", "arxiv"), MANIFEST)
def test_real_pdfs_pages_text_layer_ids(
    fixtures_dir: Path, name: str, pages: int, doi: str | None, arxiv: str | None
) -> None:
    text = extract(fixtures_dir / "pdf" / name)
    assert text.page_count == pages == len(text.pages)
    assert text.text_layer
    assert text.ids.doi == doi
    assert text.ids.arxiv == arxiv
    for chunk in chunk_pages(text.pages):
        assert 1 <= chunk.page <= pages
        assert chunk.text in text.pages[chunk.page - 1]


@pytest.mark.fixtures
@pytest.mark.parametrize(("name", "code"), EXCLUDED)
def test_real_pdfs_excluded_with_reason(fixtures_dir: Path, name: str, code: str) -> None:
    with pytest.raises(PdfExcluded) as info:
        extract(fixtures_dir / "pdf" / name)
    assert info.value.code == code
    assert name in info.value.message


@pytest.mark.fixtures
def test_real_reference_list_cut_but_appendix_kept(fixtures_dir: Path) -> None:
    text = extract(fixtures_dir / "pdf" / "arxiv_2206.10883v3_multilexsum.pdf")
    assert text.references_cut is not None and text.references_cut[0] == 10
    assert all(not p for p in text.pages[10:15])  # pages 11-15: the reference list
    assert "Multi-LexSum release" in text.pages[15]  # appendix on page 16 is kept
    plos = extract(fixtures_dir / "pdf" / "plosone_2018_0197919.pdf")
    assert plos.references_cut is not None and plos.references_cut[0] >= 17
    assert "heat stress" in " ".join(plos.pages[:3]).lower()


def _pdf(path: Path, pages: list[str], *, encrypt: bool = False) -> Path:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    if encrypt:
        pdf.set_encryption(owner_password="owner", user_password="user")
    pdf.output(str(path))
    return path


BODY = "Sediment cores were taken at twelve stations along the estuary in 2019. " * 12


def test_made_pdf_exact_pages_ids_and_reference_cut(tmp_path: Path) -> None:
    path = _pdf(
        tmp_path / "made.pdf",
        [
            "A Study of Estuary Sediments\ndoi: 10.5555/made.2024.001\n" + BODY,
            BODY,
            BODY + "\nReferences\n" + "Smith J (2001) Mud. Journal 3:1-2.\n" * 10,
            "Jones K (2011) Sand. Journal 4:5-6.\n" * 30,
        ],
    )
    text = extract(path)
    assert text.page_count == 4
    assert text.ids.doi == "10.5555/made.2024.001" and text.ids.doi_page == 1
    assert text.references_cut == (3, text.references_cut[1])
    assert "Smith" not in text.pages[2] and text.pages[3] == ""
    assert "estuary" in text.pages[2]
    assert read_pages(path)[3].count("Jones") == 30


def test_made_pdf_without_text_is_excluded(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "blank.pdf", ["", "", "short"])
    with pytest.raises(PdfExcluded) as info:
        extract(path)
    assert info.value.code == "no_text"


def test_encrypted_and_empty_and_garbage(tmp_path: Path) -> None:
    with pytest.raises(PdfExcluded) as info:
        extract(_pdf(tmp_path / "enc.pdf", [BODY], encrypt=True))
    assert info.value.code == "encrypted"
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(PdfExcluded) as info:
        extract(empty)
    assert info.value.code == "empty"
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 100)
    with pytest.raises(PdfExcluded) as info:
        extract(junk)
    assert info.value.code == "broken"


def test_passage_boxes_locate_the_passage(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "boxes.pdf", [BODY, "The second page says hello to the reader."])
    boxes = passage_boxes(path, 2, "says hello to the reader")
    assert len(boxes) == 1
    left, bottom, right, top = boxes[0]
    assert right > left and top > bottom and top < 842
    many = passage_boxes(path, 1, BODY[:400])
    assert len(many) >= 2  # spans several lines
    assert all(b[1] < a[1] for a, b in zip(many, many[1:], strict=False))  # lines go down
    with pytest.raises(PdfExcluded) as info:
        passage_boxes(path, 2, "not on this page at all")
    assert info.value.code == "not_found"
    with pytest.raises(PdfExcluded):
        passage_boxes(path, 3, "hello")


@pytest.mark.fixtures
@pytest.mark.parametrize(
    ("name", "page", "quote"),
    [
        # pdfium marks "ingre-⏎dient" as ingre\ufffedient: the word is read joined
        ("acl_2020_main_207_specter.pdf", 1, "a critical ingredient for natural"),
        # ... and "document-⏎level" as a compound keeps its hyphen
        ("acl_2020_main_207_specter.pdf", 2, "suite for document-level embeddings in"),
        ("plosone_2018_0197919.pdf", 7, "changed with P < 0.05"),
        ("plosone_2018_0197919.pdf", 1, "(35:28 ± 0.08˚C)"),
    ],
)
def test_real_pdf_passage_found_across_hyphenated_breaks(
    fixtures_dir: Path, name: str, page: int, quote: str
) -> None:
    assert passage_boxes(fixtures_dir / "pdf" / name, page, quote)


@pytest.mark.fixtures
@pytest.mark.parametrize(
    ("name", "page", "quote"),
    [
        ("plosone_2018_0197919.pdf", 7, "changed with P > 0.05"),  # the page: P < 0.05
        ("plosone_2018_0197919.pdf", 1, "(35:28 ± 008˚C)"),  # the page: 0.08
        ("plosone_2018_0197919.pdf", 1, "(35:28 ± 0.08˚C."),  # the page: )
        ("acl_2020_main_207_specter.pdf", 1, "a critical ingredients for natural"),
    ],
)
def test_real_pdf_altered_passage_is_not_found(
    fixtures_dir: Path, name: str, page: int, quote: str
) -> None:
    """Only whitespace, hyphenated breaks, ligatures and typographic quotes/dashes are
    ignored: another sign, digit or punctuation mark is another passage (before, a
    letters-and-digits-only fallback found each of these)."""
    with pytest.raises(PdfExcluded) as info:
        passage_boxes(fixtures_dir / "pdf" / name, page, quote)
    assert info.value.code == "not_found"


@pytest.mark.parametrize(
    ("raw", "quote", "found"),
    [
        ("the ﬁrst ﬂow\r\nof data", "the first flow of data", True),  # ligatures
        ("an inter-\r\naction term", "an interaction term", True),
        ("a long-\r\nterm study", "a long-term study", True),
        ("a long-\r\nterm study", "a long- term study", True),  # as laid out
        ("a soft\u00ad\r\nhyphen", "a softhyphen", True),
        ("pdfium's mark\x02\r\ner", "pdfium's marker", True),
        ("it “works” – well", 'it "works" - well', True),  # typographic quotes, dash
        ("M ´ exico", "M ´ exico", True),  # NFKC expands ´ to a space and an accent
        ("P < 0.05 was", "P > 0.05 was", False),
        ("dose 0.5 mg", "dose 05 mg", False),
        ("a long-\r\nterm study", "a longterm", True),
        ("a word", "", False),
    ],
)
def test_find_passage_ignores_layout_only(raw: str, quote: str, found: bool) -> None:
    span = _find_passage(raw, quote)
    assert (span is not None) is found
    if span is not None:
        start, end = span
        assert raw[start] == quote.lstrip()[0] or raw[start] in "ﬁﬂ"


def test_file_sha256(tmp_path: Path) -> None:
    p = tmp_path / "a.bin"
    p.write_bytes(b"abc")
    assert file_sha256(p) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=3000))
def test_garbage_bytes_never_crash(tmp_path: Path, data: bytes) -> None:
    p = tmp_path / "fuzz.pdf"
    p.write_bytes(b"%PDF-1.4\n" + data)
    try:
        text = extract(p)
    except PdfExcluded as exc:
        assert exc.code in {"broken", "no_text", "empty", "encrypted"}
    else:
        assert text.page_count >= 1
