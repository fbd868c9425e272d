"""The source an export file states (issue 28): the database its format is the export of,
or the database its RIS records name (DB, else DP), checked against real exports; a
reference manager's export (Zotero, JabRef, EndNote, known by the file's own markers) is
no database: another method named after the tool and the file, unless every record still
names its database; the names and kinds a user states, validated."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk.adapters import formats
from litdesk.core.imports import SourceLabel, SourceLabelInvalid, default_source, source_label

pytestmark = pytest.mark.fixtures

#: real exports (``$LITDESK_FIXTURES/bib``) → the source their file states
STATED = {
    "ris/asreview__embase.ris": "Embase",  # each record's first DB (some add Medline)
    "ris/asreview__scopus.ris": "Scopus",
    "ris/revtools__restoration_scopus.ris": "Scopus",
    "ris/citesource__20221207_gambling-harms_scopus_255.ris": "Scopus",
    # passed through Zotero (its tag order), every record keeping its database's DB
    "ris/citesource__20221207_gambling-harms_psycinfo_124.ris": "APA PsycInfo",  # DB psyh
    "ris/citesource__econlit_3.ris": "EconLit",  # DB ecn (EBSCOhost)
    "ris/citesource__medline_84.ris": "Ovid MEDLINE(R)",  # segments and years as one (Zotero)
    "ris/asreview__pubmed_endnote.txt": "PubMed",  # DP NLM
    "ris/colrev__jstor_ris.ris": "JSTOR",
    "medline/reflib__blue-light.nbib": "PubMed",
    "medline/revtools__restoration_pubmed.nbib": "PubMed",
    "wos/revtools__restoration_WoS.ciw": "Web of Science",
    "wos/wosfile__wos_plaintext.txt": "Web of Science",
    "wos/wosfile__wos_tab_delimited_win_utf8.txt": "Web of Science",
    "scopus-csv/litstudy__scopus.csv": "Scopus",
    # no DB/DP: the marks the database leaves on each record of its RIS export
    "ris/citesource__wos_278.ris": "Web of Science",  # AN  - WOS:000491685000028
    "ris/asysd__wos_test.ris": "Web of Science",  # the same, CR line ends
    "ris/asreview__web_of_science.txt": "Web of Science",
    "ris/citesource__20221207_gambling-harms_lens_49.ris": "The Lens",  # UR https://lens.org/…
    "ris/asreview___baseline.ris": "The Lens",  # ASReview's baseline: 100 records from The Lens
    "ris/citesource__Dimensions_246.ris": "Dimensions",  # UR https://app.dimensions.ai/…
    "ris/asreview__ovid_psycinfo.ris": "APA PsycInfo",  # L2 ovidsp.ovid.com/…&D=psyc16
}
#: exports that name no database: counted by their file name, as before
SILENT = (
    "ris/litstudy__example.ris",  # IEEE Xplore's layout, no mark of it
    "scopus-csv/other__asreview_embase.csv",  # an Embase CSV reads as plain CSV
    "bibtex/colrev__scopus_bib.bib",
    "bibtex/asysd__zotero_export.bib",  # Zotero's BibTeX carries no marker of Zotero
)
#: reference managers' exports (their own markers) whose records do not all name a database
TOOL_EXPORTS = {
    "ris/asysd__zotero_export.ris": "Zotero",
    "ris/asreview__pubmed_zotero.ris": "Zotero",
    "ris/citesource__20221207_gambling-harms_pubmed_176.ris": "Zotero",  # PubMed via Zotero
    "bibtex/bbt__jabref_groups_717_3.8.bib": "JabRef",
    "dedup/iebh_copper__endnote.xml": "EndNote",  # 214 of 505 records name no database
}
#: databases' own exports: no tool
NO_TOOL = (
    "ris/citesource__econlit_3.ris",  # EBSCOhost's own layout (AU AD T1 JO Y1 …)
    "ris/asreview__embase.ris",
    "ris/asreview__scopus.ris",
    "ris/citesource__20221207_gambling-harms_scopus_255.ris",
    "ris/citesource__wos_278.ris",
    "ris/colrev__jstor_ris.ris",
    "ris/colrev__psycinfo_ris.ris",
    "ris/asreview__ovid_psycinfo.ris",
    "ris/citesource__Dimensions_246.ris",
    "ris/citesource__20221207_gambling-harms_lens_49.ris",
    "ris/colrev__ieee_ris.ris",
    "bibtex/colrev__scopus_bib.bib",
    "bibtex/colrev__ebsco_bib.bib",
)


@pytest.mark.parametrize(("name", "source"), sorted(STATED.items()))
def test_the_source_a_file_states(fixtures_dir: Path, name: str, source: str) -> None:
    label = default_source(formats.load(fixtures_dir / "bib" / name))
    assert label == SourceLabel(source, "database", "file")


@pytest.mark.parametrize("name", SILENT)
def test_a_file_that_names_no_source(fixtures_dir: Path, name: str) -> None:
    assert default_source(formats.load(fixtures_dir / "bib" / name)) is None


@pytest.mark.parametrize(("name", "tool"), sorted(TOOL_EXPORTS.items()))
def test_a_reference_managers_export_is_another_method(
    fixtures_dir: Path, name: str, tool: str
) -> None:
    trace = formats.load(fixtures_dir / "bib" / name)
    assert trace.source.tool == tool
    file = name.rsplit("/", 1)[-1]
    assert default_source(trace) == SourceLabel(f"{tool} export: {file}", "other", "file")


@pytest.mark.parametrize("name", NO_TOOL)
def test_a_databases_export_names_no_tool(fixtures_dir: Path, name: str) -> None:
    assert formats.load(fixtures_dir / "bib" / name).source.tool is None


#: a Zotero RIS export as Zotero writes it (RIS.js's tag order, DA as YYYY/MM/DD/), each
#: record's DP its "Library Catalog": where the item was captured, not where it was searched
ZOTERO = """TY  - JOUR
TI  - Treatment of knee osteoarthritis with allogeneic bone marrow mesenchymal stem cells
AU  - Vega, Aurelio
AU  - Martín-Ferrero, Miguel Angel
T2  - Transplantation
AB  - Background.
DA  - 2015/08//
PY  - 2015
DO  - 10.1097/TP.0000000000000678
DP  - PubMed
VL  - 99
IS  - 8
SP  - 1681
EP  - 1690
J2  - Transplantation
LA  - eng
UR  - https://pubmed.ncbi.nlm.nih.gov/26125133/
Y2  - 2024/05/02/09:41:11
KW  - Humans
ER  -

TY  - JOUR
TI  - Intra-articular injection of mesenchymal stem cells in knee osteoarthritis
AU  - Lamo-Espinosa, José María
T2  - Journal of Translational Medicine
DA  - 2016/08/26/
PY  - 2016
DO  - 10.1186/s12967-016-0998-2
DP  - BioMed Central
VL  - 14
SP  - 246
ER  -

"""


def test_a_zotero_export_counts_its_catalogs_as_no_database() -> None:
    trace = formats.loads(ZOTERO.replace("\n", "\r\n").encode(), path="/tmp/My Library.ris")
    assert trace.source.tool == "Zotero"
    assert default_source(trace) == SourceLabel("Zotero export: My Library.ris", "other", "file")
    # the same records with the database each came from (Zotero's Archive, RIS DB)
    named = ZOTERO.replace("Y2  - ", "DB  - Embase\nY2  - ").replace(
        "SP  - 246\n", "SP  - 246\nDB  - MEDLINE\n"
    )
    label = default_source(formats.loads(named.encode(), path="lib.ris"))
    assert label == SourceLabel("Embase + MEDLINE", "database", "file")
    # one record without its database: the file counts as the tool's export
    partly = ZOTERO.replace("Y2  - ", "DB  - Embase\nY2  - ")
    assert default_source(formats.loads(partly.encode(), path="x.ris")).kind == "other"
    # an unknown tag breaks Zotero's layout: a database's export, its DP named as before
    swapped = ZOTERO.replace("TI  - Treatment", "XX  - x\nTI  - Treatment")
    plain = formats.loads(swapped.encode(), path="db.ris")
    assert plain.source.tool is None
    assert default_source(plain) == SourceLabel("PubMed + BioMed Central", "database", "file")


def test_the_zotero_layout_needs_every_record_and_its_date() -> None:
    undated = ZOTERO.replace("DA  - 2015/08//\n", "").replace("DA  - 2016/08/26/\n", "")
    assert formats.loads(undated.encode(), path="a.ris").source.tool is None
    # a record out of Zotero's order (PY before DA) is not Zotero's
    out_of_order = ZOTERO.replace("DA  - 2016/08/26/\nPY  - 2016", "PY  - 2016\nDA  - 2016/08/26/")
    assert formats.loads(out_of_order.encode(), path="b.ris").source.tool is None


def test_a_tools_name_with_control_characters_in_the_file_name() -> None:
    trace = formats.loads(ZOTERO.encode(), path="dir/evil\u2028name\t.ris")
    label = default_source(trace)
    assert label is not None and label.name == "Zotero export: evil name .ris"


COCHRANE = """Record #1 of 3
ID: CN-01198765
TI: Intra-articular injection of mesenchymal stem cells in knee osteoarthritis
YR: 2016
US: https://www.cochranelibrary.com/central/doi/10.1002/central/CN-01198765/full


Record #2 of 3
ID: CN-01087654
TI: Treatment of knee osteoarthritis with allogeneic mesenchymal stem cells
YR: 2015


Record #3 of 3
ID: CD012345
TI: Stem cells for knee osteoarthritis (a Cochrane review)
YR: 2020
US: https://www.cochranelibrary.com/cdsr/doi/10.1002/14651858.CD012345/full
"""


def test_the_cochrane_librarys_text_names_its_database() -> None:
    trace = formats.loads(COCHRANE.encode(), path="citation-export.txt")
    assert trace.source.format == "cochrane-txt"
    assert default_source(trace) == SourceLabel(
        "Cochrane CENTRAL + Cochrane Database of Systematic Reviews", "database", "file"
    )
    central = COCHRANE.partition("Record #3")[0].replace(" of 3", " of 2")
    label = default_source(formats.loads(central.encode(), path="central.txt"))
    assert label == SourceLabel("Cochrane CENTRAL", "database", "file")


def test_mixed_databases_and_registers_by_name() -> None:
    ris = "".join(
        f"TY  - JOUR\nTI  - Trial {i}\nDB  - {db}\nER  - \n\n"
        for i, db in enumerate(["Embase", "Embase", "Ovid MEDLINE(R) <2010 to 2011>"])
    )
    label = default_source(formats.loads(ris.encode(), path="mixed.ris"))
    assert label is not None and label.name == "Embase + Ovid MEDLINE(R)"
    reg = "TY  - JOUR\nTI  - A trial\nDB  - ClinicalTrials.gov\nER  - \n"
    label = default_source(formats.loads(reg.encode(), path="ct.ris"))
    assert label == SourceLabel("ClinicalTrials.gov", "register", "file")


def test_stated_names_and_kinds() -> None:
    assert source_label(None, None) is None
    assert source_label("  Web  of Science ", None) == SourceLabel("Web of Science", "database")
    assert source_label("WHO ICTRP", None) == SourceLabel("WHO ICTRP", "register")
    assert source_label("Citation searching", "OTHER") == SourceLabel("Citation searching", "other")
    assert source_label(None, "other", fallback="refs.ris") == SourceLabel("refs.ris", "other")
    for name, kind, words in (
        ("Embase", "website", "not one of database, register, other"),
        ("Em\u2028base", None, "control characters"),
        ("x" * 201, None, "at most 200"),
        (None, "other", "name the source"),
    ):
        with pytest.raises(SourceLabelInvalid, match=words):
            source_label(name, kind)
    stored = SourceLabel("Embase", "database", "file").to_dict()
    assert SourceLabel.from_dict(stored) == SourceLabel("Embase", "database", "file")
    assert SourceLabel.from_dict({"name": "x", "kind": "bogus"}) is None
    assert SourceLabel.from_dict(None) is None


def _ris(*records: str) -> str:
    return "".join(
        f"TY  - JOUR\nTI  - Record {i}\n{body}ER  - \n\n" for i, body in enumerate(records)
    )


def test_a_databases_marks_name_it_on_half_the_records_or_more() -> None:
    """A RIS file without DB/DP is named by the marks its database leaves on each record
    (The Lens's and Dimensions' record pages, Web of Science's accession, Ovid's record
    link) when they are on at least half its records; fewer: named by its file, as before."""
    lens = "UR  - https://lens.org/001-257-578-706-377\n"
    wos = "AN  - WOS:000491685000028\n"
    ovid = "L2  - http://ovidsp.ovid.com/ovidweb.cgi?T=JS&PAGE=reference&D=emed23&AN=1\n"
    bare = "PY  - 2020\n"
    assert default_source(formats.loads(_ris(lens, lens, bare).encode(), path="a.ris")) == (
        SourceLabel("The Lens", "database", "file")
    )
    assert default_source(formats.loads(_ris(lens, bare, bare).encode(), path="b.ris")) is None
    mixed = formats.loads(_ris(wos, wos, ovid, bare).encode(), path="c.ris")
    assert default_source(mixed) == SourceLabel("Web of Science + Embase", "database", "file")
    # a record's DB/DP still wins over its marks
    named = formats.loads(_ris("DB  - Scopus\n" + lens, lens).encode(), path="d.ris")
    assert default_source(named) == SourceLabel("Scopus + The Lens", "database", "file")
    # not the database's own mark: an accession of another shape, a look-alike host, a
    # link that is no Ovid link, an Ovid code no review database has
    others = (
        "AN  - WOS:12345\n",
        "UR  - https://lens.org.example.com/001\n",
        "L2  - http://example.com/ovid.com/x?D=psyc16\n",
        "L2  - http://ovidsp.ovid.com/ovidweb.cgi?D=zzzz1\n",
        "L2  - http://[ovid.com/x?D=psyc\n",
    )
    for body in others:
        assert default_source(formats.loads(_ris(body).encode(), path="e.ris")) is None, body


def test_a_tools_export_of_lens_records_is_still_the_tools() -> None:
    """Zotero keeps the record's page (UR) of the catalog it captured from: that is not
    where the reviewers searched, so the marks are not read in a tool's export."""
    page = "UR  - https://lens.org/001-257-578-706-377\n"
    lens = ZOTERO.replace("UR  - https://pubmed.ncbi.nlm.nih.gov/26125133/\n", page).replace(
        "SP  - 246\n", "SP  - 246\n" + page
    )
    trace = formats.loads(lens.encode(), path="lib.ris")
    assert trace.source.tool == "Zotero"
    assert default_source(trace) == SourceLabel("Zotero export: lib.ris", "other", "file")
    # the same records in a database's own layout: their DP wins over the marks
    swapped = lens.replace("TI  - Treatment", "XX  - x\nTI  - Treatment")
    plain = formats.loads(swapped.encode(), path="l.ris")
    assert plain.source.tool is None
    assert default_source(plain) == SourceLabel("PubMed + BioMed Central", "database", "file")


def test_the_marks_are_read_in_linear_time() -> None:
    """Hostile links and accessions (long runs of the characters the marks look for) are
    read at once."""
    import time

    n = 200_000
    body = (
        "L2  - http://ovidsp.ovid.com/" + "?&" * n + "\n"
        "AN  - WOS:" + "0" * n + "\n"
        "UR  - https://lens.org" + "/" * n + "\n"
    )
    trace = formats.loads(_ris(body, body).encode(), path="h.ris")
    start = time.process_time()
    assert default_source(trace) is None  # none of them is the database's mark
    assert time.process_time() - start < 1.0
