"""Dialects of the databases' own exports, as the databases write them (hand-written here, in
tmp_path or as text): ProQuest's and the Cochrane Library's accession numbers, the Cochrane
Library's one-line keywords, Ovid's "No pagination specified", EBSCOhost's one-page
ranges, PubMed's CSV export (volume, issue and pages only in its Citation column)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from litdesk.adapters import formats


def loads(text: str, path: str) -> formats.ParseResult:  # type: ignore[name-defined]
    return formats.loads(text.encode("utf-8"), path=path)


def ris(*records: str) -> str:
    return "".join(f"TY  - JOUR\n{body.strip()}\nER  - \n\n" for body in records)


PROQUEST = """
T1  - Treatment of Knee Osteoarthritis With Allogeneic Bone Marrow Mesenchymal Stem Cells
AN  - 1700478722
JF  - Transplantation
AU  - Vega, Aurelio
PY  - 2015
SP  - 1681
EP  - 1690
DO  - https://doi.org/10.1097/TP.0000000000000678
UR  - https://www.proquest.com/scholarly-journals/treatment-knee/docview/1700478722/se-2?accountid=1
DB  - MEDLINE®
"""


def test_proquest_accession_number_is_not_a_pmid() -> None:
    """ProQuest's AN is its document id, also in its MEDLINE® database: read as a PMID it
    made a second paper of the same DOI that a Study refused ("pmid differs")."""
    trace = loads(ris(PROQUEST), path="proquest.ris")
    paper = trace.papers[0]
    assert paper.pmid is None
    assert paper.doi == "10.1097/tp.0000000000000678"
    assert paper.id.startswith("DOI-")
    assert "AN  - 1700478722" in trace.records[0].raw  # the raw record keeps it
    # the ProQuest name alone (no link) is enough
    no_link = PROQUEST.replace("UR  - ", "N1  - ").replace("DB  - MEDLINE®", "DB  - ProQuest")
    assert loads(ris(no_link), path="p.ris").papers[0].pmid is None


@settings(max_examples=60, deadline=None)
@given(
    an=st.integers(1, 10**11).map(str),
    db=st.sampled_from(["MEDLINE®", "Publicly Available Content Database; ProQuest Central"]),
    link=st.booleans(),
)
def test_an_of_a_proquest_record_is_never_a_pmid(an: str, db: str, link: bool) -> None:
    url = f"UR  - https://www.proquest.com/docview/{an}/abstract" if link else ""
    if not link and "ProQuest" not in db:
        url = f"L2  - https://search.proquest.com/docview/{an}"
    body = f"TI  - A title\nAN  - {an}\n{url}\nDB  - {db}"
    assert loads(ris(body), path="p.ris").papers[0].pmid is None


@settings(max_examples=60, deadline=None)
@given(pmid=st.integers(1, 10**8).map(str), db=st.sampled_from(["", "Ovid MEDLINE(R) ALL", "NLM"]))
def test_a_pubmed_accession_number_is_still_a_pmid(pmid: str, db: str) -> None:
    """Ovid MEDLINE and EndNote's PubMed records give the PMID as AN; nothing else changed."""
    dbline = f"DB  - {db}" if db else ""
    url = f"UR  - https://ovidsp.ovid.com/ovidweb.cgi?T=JS&AN={pmid}"
    body = f"TI  - A title\nAN  - {pmid}\n{dbline}\n{url}"
    assert loads(ris(body), path="o.ris").papers[0].pmid == pmid


COCHRANE = """
ID  - CN-01198765
AU  - Lamo-Espinosa, J. M.
TI  - Intra-articular injection of mesenchymal stem cells in knee osteoarthritis
JO  - Journal of translational medicine
PY  - 2016
KW  - *Mesenchymal Stem Cell Transplantation; Aged; Humans; Osteoarthritis, Knee [*therapy]
DO  - 10.1186/s12967-016-0998-2
AN  - EMBASE 612209871
AN  - PUBMED 27565858
UR  - https://www.cochranelibrary.com/central/doi/10.1002/central/CN-01198765/full
"""


def test_cochrane_central_pubmed_accession_and_one_line_keywords() -> None:
    paper = loads(ris(COCHRANE), path="central.ris").papers[0]
    assert paper.pmid == "27565858"  # "AN  - PUBMED …", whichever AN line it is
    assert paper.keywords == (
        "*Mesenchymal Stem Cell Transplantation",
        "Aged",
        "Humans",
        "Osteoarthritis, Knee [*therapy]",
    )
    embase_only = COCHRANE.replace("AN  - PUBMED 27565858\n", "")
    assert loads(ris(embase_only), path="c.ris").papers[0].pmid is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abcdefghij ,-*[]", min_size=1, max_size=12).map(str.strip), max_size=6))
def test_keywords_one_per_line_or_on_one_line_read_alike(words: list[str]) -> None:
    words = [w for w in words if w]
    per_line = "\n".join(f"KW  - {w}" for w in words)
    one_line = f"KW  - {'; '.join(words)}" if words else ""
    a = loads(ris(f"TI  - T\n{per_line}"), path="a.ris").papers[0].keywords
    b = loads(ris(f"TI  - T\n{one_line}"), path="b.ris").papers[0].keywords
    assert a == b == tuple(words)


def test_ovid_no_pagination_specified_is_no_pages() -> None:
    """Ovid PsycINFO writes "No pagination specified" as SP "No" and EP "Specified"."""
    trace = loads(ris("TI  - T\nSP  - No\nEP  - Specified"), path="psyc.ris")
    assert trace.papers[0].pages is None
    [notice] = [n for n in trace.records[0].notices if n.kind == "dropped_field"]
    assert "No-Specified" in notice.message and notice.field == "pages"
    kept = loads(ris("TI  - T\nSP  - xii\nEP  - xv"), path="r.ris").papers[0]
    assert kept.pages == "xii-xv"  # pages without digits are still pages


def test_ebscohost_one_page_range_is_one_page() -> None:
    one = loads(ris("TI  - T\nSP  - 246\nEP  - 246"), path="e.ris").papers[0]
    two = loads(ris("TI  - T\nSP  - 246\nEP  - 250"), path="e.ris").papers[0]
    assert (one.pages, two.pages) == ("246", "246-250")


PUBMED_CSV_HEADER = (
    "PMID,Title,Authors,Citation,First Author,Journal/Book,Publication Year,Create Date,"
    "PMCID,NIHMS ID,DOI\n"
)


def test_pubmed_csv_export_volume_issue_pages_from_its_citation(tmp_path: Path) -> None:
    path = tmp_path / "csv-kneeosteoa-set.csv"
    path.write_text(
        PUBMED_CSV_HEADER
        + '25822648,"Treatment of Knee Osteoarthritis","Vega A, Martín-Ferrero MA",'
        '"Transplantation. 2015 Aug;99(8):1681-90. doi: 10.1097/TP.0000000000000678.",'
        "Vega A,Transplantation,2015,2015/04/01,,,10.1097/TP.0000000000000678\n"
        '26769876,"A BMJ paper","Smith J","BMJ. 2016 Jan 14;352:i6. doi: 10.1136/bmj.i6.",'
        "Smith J,BMJ,2016,2016/01/15,,,10.1136/bmj.i6\n"
        '38012345,"Ahead of print","Doe A","Nature. 2024 Jan 3. doi: 10.1038/x. Online ahead of '
        'print.",Doe A,Nature,2024,2024/01/03,,,10.1038/x\n',
        encoding="utf-8",
    )
    trace = formats.load(path)
    got = [(p.volume, p.issue, p.pages) for p in trace.papers]
    assert got == [("99", "8", "1681-90"), ("352", None, "i6"), (None, None, None)]
    assert trace.papers[0].authors == ("Vega A", "Martín-Ferrero MA")
    assert trace.records[0].extras["Citation"][0].startswith("Transplantation. 2015")
    assert "Citation -> volume, issue, pages" in trace.notices[0].message


@settings(max_examples=80, deadline=None)
@given(
    volume=st.integers(1, 999).map(str),
    issue=st.none() | st.integers(1, 52).map(str),
    pages=st.sampled_from(["246", "1681-90", "e0123456", "CD012345", "S12-S14"]),
    date=st.sampled_from(["2016", "2016 Aug", "2016 Aug 26", "2014 Jul-Aug", "2019 Winter"]),
)
def test_pubmed_citation_property(volume: str, issue: str | None, pages: str, date: str) -> None:
    cite = f"J Test. {date};{volume}{f'({issue})' if issue else ''}:{pages}. doi: 10.1/x."
    text = PUBMED_CSV_HEADER + f'1,"A title","Doe A","{cite}",Doe A,J Test,2016,,,,\n'
    paper = loads(text, path="csv-x-set.csv").papers[0]
    assert (paper.volume, paper.issue, paper.pages) == (volume, issue, pages)


def test_a_volume_column_wins_over_the_citation() -> None:
    text = "Title,Volume,Citation\nA title,7,J. 2016;14(1):246.\n"
    paper = loads(text, path="t.csv").papers[0]
    assert (paper.volume, paper.issue, paper.pages) == ("7", None, None)
