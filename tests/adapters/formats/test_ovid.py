"""Ovid's own export, written here in the shapes of real exports: Zotero's "OVID Tagged.js"
test cases (BIOSIS Previews, IPSA, Journals@Ovid, Zoological Record, PsycINFO with one-space
tags and indented lines, Books@Ovid), a real Embase export
(knh11545/commandline4expertsearchers) and JabRef's labelled samples (OvidImporterTest*.txt).
The records' words are made up; their layout is the sources'."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats
from litdesk.adapters.formats import _ovid
from litdesk.core.imports import ImportRefused
from litdesk.core.imports._source import default_source

# MEDLINE-like, Embase and BIOSIS records, CRLF as Ovid writes them
TAGGED = """<1. >
VN  - Ovid Technologies
DB  - Ovid MEDLINE(R) ALL <1946 to June 05, 2020>
UI  - 27565858
TI  - Intra-articular injection of stromal cells in knee osteoarthritis.
FA  - Lamo-Espinosa, Jose Maria
FA  - Mora, Gonzalo
AU  - Lamo-Espinosa JM
AU  - Mora G
SO  - Journal of Translational Medicine August 2016;14(1):246-255
IS  - 1479-5876
DO  - https://dx.doi.org/10.1186/s12967-016-0998-2
AB  - BACKGROUND: Stromal cells are an option.
      RESULTS: No adverse effects.
MH  - *Mesenchymal Stem Cell Transplantation/mt [Methods]
MH  - Osteoarthritis, Knee/th [Therapy]
KW  - knee;  cartilage;  stem cells
PT  - Journal Article
PT  - Randomized Controlled Trial
LG  - English
YR  - 2016

<2. >
VN  - Ovid Technologies
DB  - Embase
UI  - 621381829
TI  - Quality of life in a rare disease: A systematic review.
SO  - Proceedings of a Meeting. Conference: a school. Spain. 12 (Supplement 3) (no pagination), 2018. Date of Publication: 2018.
AU  - Behan L.
AU  - Lucas J.S.
IN  - (Behan) A centre, Southampton, United Kingdom
      (Lucas) A school, Cork, Ireland
MH  - *quality of life
MH  - human
IS  - 1753-6561
DO  - http://dx.doi.org/10.1186/s12919-018-0099-8
PT  - Conference Abstract
YR  - 2018

<241. >
VN  - Ovid Technologies
DB  - BIOSIS Previews
AN  - PREV200400473722
AU  - Werner, S. M. [Author, Reprint Author; E-mail: someone@example.org]
AU  - Zhang, Weijia 1,2,+
AU  - Gazic, Barbara MD, PhD *
TI  - Sampling methods compared in mixed hardwood forests
SO  - Forest Ecology & Management. 201(2-3):327-334, November 15, 2004.
PT  - Article
IS  - 0378-1127 (ISSN print)
YR  - 2004
"""


def _load(tmp_path: Path, text: str, name: str = "ovid-export.txt", crlf: bool = True) -> object:
    path = tmp_path / name
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
    return formats.load(path)


def test_tagged_export_every_field_in_its_place(tmp_path: Path) -> None:
    trace = _load(tmp_path, TAGGED)
    assert trace.source.format == "ovid"
    medline, embase, biosis = trace.papers
    assert medline.title == "Intra-articular injection of stromal cells in knee osteoarthritis."
    assert medline.authors == ("Lamo-Espinosa, Jose Maria", "Mora, Gonzalo")  # FA over AU
    assert (medline.journal, medline.year, medline.volume, medline.issue, medline.pages) == (
        "Journal of Translational Medicine",
        2016,
        "14",
        "1",
        "246-255",
    )
    assert (medline.doi, medline.pmid) == ("10.1186/s12967-016-0998-2", "27565858")
    assert (
        medline.abstract == "BACKGROUND: Stromal cells are an option.\nRESULTS: No adverse effects."
    )
    assert medline.keywords == (
        "knee",
        "cartilage",
        "stem cells",
        "*Mesenchymal Stem Cell Transplantation/mt [Methods]",
        "Osteoarthritis, Knee/th [Therapy]",
    )
    assert medline.publication_types == ("Journal Article", "Randomized Controlled Trial")
    first = trace.records[0]
    assert first.source_id == "27565858"
    assert first.extras["IS"] == ["1479-5876"]  # the ISSN, never the issue
    assert first.extras["LG"] == ["English"]
    assert (first.first_line, first.last_line) == (1, 21)
    # Embase: UI is Embase's accession, not a PMID; the issue is a supplement
    assert embase.pmid is None and trace.records[1].source_id == "621381829"
    assert (embase.journal, embase.volume, embase.issue, embase.pages, embase.year) == (
        "Proceedings of a Meeting",
        "12",
        "Supplement 3",
        None,
        2018,
    )
    assert embase.doi == "10.1186/s12919-018-0099-8"
    assert embase.authors == ("Behan L.", "Lucas J.S.")
    assert trace.records[1].extras["IN"] == [
        "(Behan) A centre, Southampton, United Kingdom (Lucas) A school, Cork, Ireland"
    ]
    assert embase.keywords == ("*quality of life", "human")
    # BIOSIS: names without roles, e-mail, affiliation marks and degrees
    assert biosis.authors == ("Werner, S. M.", "Zhang, Weijia", "Gazic, Barbara")
    assert (biosis.journal, biosis.volume, biosis.issue, biosis.pages, biosis.year) == (
        "Forest Ecology & Management",
        "201",
        "2-3",
        "327-334",
        2004,
    )
    assert trace.records[2].source_id == "PREV200400473722"
    assert trace.records[2].extras["IS"] == ["0378-1127 (ISSN print)"]
    assert not trace.notices and not any(r.notices for r in trace.records)


@pytest.mark.parametrize(
    ("so", "expected"),
    [
        # Journals@Ovid (Zotero's test cases)
        ("Acta Chirurgica Belgica November/December 2010;6:611-613", ("Acta Chirurgica Belgica", "6", None, "611-613", 2010)),
        ("A Health & Fitness Journal January/February 2010;14(1):56", ("A Health & Fitness Journal", "14", "1", "56", 2010)),
        # IPSA: the volume before the season; the year as the volume
        ("Journal of Political Studies 12, Winter 2007: 7-14.", ("Journal of Political Studies", "12", None, "7-14", 2007)),
        ("Journal of Current Affairs, 2013(1): 3-28.", ("Journal of Current Affairs", "2013", "1", "3-28", 2013)),
        # BIOSIS, Zoological Record
        ("Official Gazette of Patents. 1288(3), Nov. 16, 2004.", ("Official Gazette of Patents", "1288", "3", None, 2004)),
        ("Hydrobiologia. 2007 15 June; 433-441.", ("Hydrobiologia", None, None, "433-441", 2007)),
        ("Regional Meetings Proceedings. 2005; 9pp..", ("Regional Meetings Proceedings", None, None, None, 2005)),
        # PsycINFO, and JabRef's labelled samples
        ("Behavioural Psychotherapy. Vol.43(5), Sep 2015, pp. 623-634. ", ("Behavioural Psychotherapy", "43", "5", "623-634", 2015)),
        ("Very Long Title. Vol 28(2) April 2015, 103-106.", ("Very Long Title", "28", "2", "103-106", 2015)),
        ("Ecohydrology.   8(6):1048-1064, September 2015.", ("Ecohydrology", "8", "6", "1048-1064", 2015)),
        ("Journal of the American Medical Informatics Association. ", ("Journal of the American Medical Informatics Association", None, None, None, None)),
    ],
)  # fmt: skip
def test_the_source_string_shapes_of_the_real_exports(
    so: str, expected: tuple[object, ...]
) -> None:
    text = f"<1. >\nVN  - Ovid Technologies\nDB  - X\nTI  - T\nSO  - {so}\n"
    paper = formats.loads(text.encode(), path="x.txt").papers[0]
    assert (paper.journal, paper.volume, paper.issue, paper.pages, paper.year) == expected


def test_a_book_chapter_names_its_book_not_its_editors() -> None:
    text = (
        "<7807. >\nVN  - Ovid Technologies\nDB  - BIOSIS Previews\nTI  - A chapter.\n"
        "SO  - Kamp, Roza [Editor, Reprint Author], Calvete, Juan J. [Editor]. Methods in "
        "protein analysis.:371-397, 2004.\nSeries Information:  Principles and Practice.\n"
        "PT  - Book Chapter\n"
    )
    psyc = (  # a file of its own: it writes one space before the hyphen
        "<1. >\nVN - Ovid Technologies\nDB - PsycINFO\nTI - Tackling it. [References].\n\n"
        "YR - 2012\nSO - Neenan, M [Ed]; Palmer, S [Ed]. (2012). Coaching in practice: An "
        "approach. (pp. 11-31). xvii, 254 pp.\nPT - Book\nDT - Chapter\n"
    )
    [biosis] = formats.loads(text.encode(), path="x.txt").papers
    [psycinfo] = formats.loads(psyc.encode(), path="x.txt").papers
    assert (biosis.journal, biosis.pages, biosis.year) == (
        "Methods in protein analysis",
        "371-397",
        2004,
    )
    assert (psycinfo.journal, psycinfo.pages, psycinfo.year) == (
        "Coaching in practice: An approach",
        "11-31",
        2012,
    )
    assert psycinfo.title == "Tackling it."  # the document type after the title goes


def test_psycinfo_indented_lines_one_space_tags_and_blank_lines_inside_a_record() -> None:
    """Zotero's PsycINFO test cases: every line indented by one space, continuation lines
    by more, blank lines inside IN; another file writes ``VN - `` with one space."""
    text = (
        " <7. >\n VN  - Ovid Technologies\n DB  - PsycINFO\n"
        " AN  - Peer Reviewed Journal: 2015-33942-012.\n"
        " TI  - A comparison of reassurance seeking. [References].\n"
        " AU  - Kobori, Osamu\n IN  - Kobori, Osamu: A university\n \n"
        "       Iyo, Masaomi: Another university\n"
        " SO  - Behavioural Psychotherapy. Vol.43(5), Sep 2015, pp. 623-634. \n"
        " DO  - http://dx.doi.org/10.1017/S1352465814000277\n PM  - 24892981\n"
        " MH  - *Major Depression\n YR  - 2015\n \n"
        "Search history below\n"
    )
    trace = formats.loads(text.encode(), path="psyc.txt")
    [paper] = trace.papers
    assert paper.title == "A comparison of reassurance seeking."
    assert (paper.pmid, paper.doi) == ("24892981", "10.1017/s1352465814000277")
    assert trace.records[0].extras["IN"] == [
        "Kobori, Osamu: A university Iyo, Masaomi: Another university"
    ]
    assert trace.records[0].source_id == "Peer Reviewed Journal: 2015-33942-012"
    [skipped] = trace.notices  # the line after the record, not indented: not a value
    assert skipped.kind == "skipped" and skipped.line == 16
    one_space = "<53. >\nVN - Ovid Technologies\nDB - PsycINFO\nTI - A dissertation\n"
    one_space += "JN - Dissertation Abstracts International\nVO - 75\nIP - 2-A(E)\n"
    one_space += "PG - No Pagination Specified\nAU - Sudler, Eric L\n"
    again = formats.loads(one_space.encode(), path="psyc.txt")
    p = again.papers[0]
    assert (p.journal, p.volume, p.issue, p.pages) == (
        "Dissertation Abstracts International",
        "75",
        "2-A(E)",
        None,  # "No Pagination Specified" names no page
    )
    assert p.authors == ("Sudler, Eric L",)


def test_the_labelled_layout_jabref_reads(tmp_path: Path) -> None:
    text = (
        "<8>\nScore\n  *****\nAccession Number\n  00042637-900000000-99667.\nAuthor\n"
        "  Holstiege, Jakob 1;  Mathes, Tim 2;  van Vugt, Arie MD, PhD +\nInstitution\n"
        "  (1)An institute\n  (2)Another institute\nTitle\n"
        "  Effects of decision support systems: a systematic review.[Review]\nSource\n"
        "  Ecohydrology.   8(6):1048-1064, September 2015.\nAbstract\n  Lorem ipsum\n"
        "Author Keywords\n  clinical decision support;  CDSS;  primary care.\n"
        "Language\n  English.\nISSN\n  1067-5027\nDOI Number\n  10.1136/amiajnl-2014-002886\n"
        "Link to the Ovid Full Text or citation\n http://example.org/ovid\n\n"
    )
    trace = _load(tmp_path, text, crlf=False)
    assert trace.source.format == "ovid"
    [record] = trace.records
    paper = record.paper
    assert paper.title == "Effects of decision support systems: a systematic review."
    assert paper.authors == ("Holstiege, Jakob", "Mathes, Tim", "van Vugt, Arie")
    assert (paper.journal, paper.volume, paper.issue, paper.pages, paper.year) == (
        "Ecohydrology",
        "8",
        "6",
        "1048-1064",
        2015,
    )
    assert paper.keywords == ("clinical decision support", "CDSS", "primary care")
    assert paper.doi == "10.1136/amiajnl-2014-002886"
    assert record.source_id == "00042637-900000000-99667"
    assert record.extras["IN"] == ["(1)An institute (2)Another institute"]
    assert record.extras["Score"] == ["*****"]


def test_the_database_is_the_imports_prisma_source(tmp_path: Path) -> None:
    trace = _load(tmp_path, TAGGED)
    label = default_source(trace)
    assert label is not None and label.kind == "database" and label.origin == "file"
    assert label.name == "Ovid MEDLINE(R) + Embase + BIOSIS Previews"
    only_embase = TAGGED.split("<241. >", maxsplit=1)[0].split("<2. >")[1]
    label = default_source(formats.loads(("<2. >" + only_embase).encode(), path="e.txt"))
    assert label is not None and label.name == "Embase"


def test_markers_without_fields_are_reported_and_a_file_of_them_refused() -> None:
    cut = TAGGED + "\n<242. >\n\n<243. >\n"
    trace = formats.loads(cut.encode(), path="x.txt")
    assert len(trace.records) == 3
    [notice] = trace.notices
    assert "5 record markers" in notice.message and "3 records read" in notice.message
    at = TAGGED.count("\n") + 2  # the blank line, then the marker
    assert f"<242> on line {at}" in notice.message and notice.line == at
    with pytest.raises(ImportRefused) as info:
        formats.loads(b"<1. >\n<2. >\n", format="ovid")
    assert info.value.code == "malformed"
    assert "lines 1, 2" in info.value.message


def test_a_record_without_a_marker_starts_at_its_vn_line() -> None:
    text = "VN  - Ovid Technologies\nTI  - One\nVN  - Ovid Technologies\nTI  - Two\n"
    trace = formats.loads(text.encode(), path="x.txt")
    assert [p.title for p in trace.papers] == ["One", "Two"]
    assert [(r.first_line, r.last_line) for r in trace.records] == [(1, 2), (3, 4)]


def test_detection_leaves_ris_and_medline_alone() -> None:
    ris = "TY  - JOUR\nDB  - Ovid MEDLINE(R)\nVN  - Ovid Technologies\nTI  - x\nER  - \n"
    assert formats.detect(ris).name == "ris"
    nbib = "PMID- 1\nTI  - VN  - Ovid Technologies\n"
    assert formats.detect(nbib).name == "medline"
    assert _ovid.sniff("<1. >\nTI  - no VN line\n") == 0
    # XML is still XML; only '<' and a digit is Ovid's marker
    assert formats.detect('<?xml version="1.0"?><xml><records/></xml>').name == "endnote-xml"


@pytest.mark.parametrize(
    "value",
    ["Journal " + "1 " * 20_000, "J. " + "(" * 40_000, "J " + "Jan/" * 20_000, "1(" * 20_000],
)
def test_hostile_source_strings_read_in_linear_time(value: str) -> None:
    text = f"<1. >\nVN  - Ovid Technologies\nTI  - t\nSO  - {value}\nAU  - {'1,' * 30_000}x\n"
    start = time.perf_counter()
    formats.loads(text.encode(), path="x.txt")
    assert time.perf_counter() - start < 2.0


def test_many_records_and_long_continuations_read_in_linear_time() -> None:
    one = TAGGED.split("<2. >", maxsplit=1)[0]
    small = (one * 200).encode()
    big = (one * 2000).encode()
    t0 = time.perf_counter()
    formats.loads(small, path="x.txt")
    t1 = time.perf_counter()
    trace = formats.loads(big, path="x.txt")
    t2 = time.perf_counter()
    assert len(trace.records) == 2000
    assert (t2 - t1) < 30 * max(t1 - t0, 0.01)
    lines = "<1. >\nVN  - Ovid Technologies\nAB  - a\n" + "      more\n" * 20_000
    t3 = time.perf_counter()
    assert formats.loads(lines.encode(), path="x.txt").papers[0].abstract.count("\n") == 20_000
    assert time.perf_counter() - t3 < 5.0


_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1
).map(lambda s: " ".join(s.split()))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            _TEXT.filter(lambda s: s and not s.endswith("]") and not s.startswith('"')),
            st.lists(_TEXT.filter(lambda s: s and ";" not in s), max_size=4),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_titles_and_full_names_read_back(records: list[tuple[str, list[str]]]) -> None:
    text = "".join(
        f"<{i + 1}. >\nVN  - Ovid Technologies\nDB  - Embase\nUI  - {i + 100}\nTI  - {title}\n"
        + "".join(f"FA  - {a}\n" for a in authors)
        + "\n"
        for i, (title, authors) in enumerate(records)
    )
    trace = formats.loads(text.encode(), path="ovid.txt")
    assert trace.source.format == "ovid"
    assert [(p.title, list(p.authors)) for p in trace.papers] == [(t, a) for t, a in records]
    assert [r.source_id for r in trace.records] == [str(i + 100) for i in range(len(records))]


@settings(max_examples=80, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=400))
def test_any_text_after_a_record_start_ends_in_records_or_a_typed_refusal(junk: str) -> None:
    text = "<1. >\nVN  - Ovid Technologies\nTI  - x\nSO  - " + junk + "\n" + junk
    try:
        trace = formats.loads(text.encode("utf-8"), format="ovid")
    except ImportRefused as exc:
        assert exc.code
    else:
        assert trace.records
