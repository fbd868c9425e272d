"""The source an export file states (issue 28): the database its format is the export of,
or the database its RIS records name (DB, else DP), checked against real exports; the
names and kinds a user states, validated."""

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
    "ris/citesource__20221207_gambling-harms_psycinfo_124.ris": "APA PsycInfo",  # DB psyh
    "ris/citesource__econlit_3.ris": "EconLit",  # DB ecn (EBSCOhost)
    "ris/citesource__medline_84.ris": "Ovid MEDLINE(R)",  # its segments and years as one
    "ris/asreview__pubmed_endnote.txt": "PubMed",  # DP NLM
    "ris/colrev__jstor_ris.ris": "JSTOR",
    "medline/reflib__blue-light.nbib": "PubMed",
    "medline/revtools__restoration_pubmed.nbib": "PubMed",
    "wos/revtools__restoration_WoS.ciw": "Web of Science",
    "wos/wosfile__wos_plaintext.txt": "Web of Science",
    "wos/wosfile__wos_tab_delimited_win_utf8.txt": "Web of Science",
    "scopus-csv/litstudy__scopus.csv": "Scopus",
}
#: exports that name no database: counted by their file name, as before
SILENT = (
    "ris/citesource__20221207_gambling-harms_pubmed_176.ris",
    "ris/citesource__wos_278.ris",
    "ris/asysd__zotero_export.ris",
    "scopus-csv/other__asreview_embase.csv",  # an Embase CSV reads as plain CSV
    "bibtex/colrev__scopus_bib.bib",
)


@pytest.mark.parametrize(("name", "source"), sorted(STATED.items()))
def test_the_source_a_file_states(fixtures_dir: Path, name: str, source: str) -> None:
    label = default_source(formats.load(fixtures_dir / "bib" / name))
    assert label == SourceLabel(source, "database", "file")


@pytest.mark.parametrize("name", SILENT)
def test_a_file_that_names_no_source(fixtures_dir: Path, name: str) -> None:
    assert default_source(formats.load(fixtures_dir / "bib" / name)) is None


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
