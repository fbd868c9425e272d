"""``litdesk import … --study`` over databases' own exports written as they write them: a
ProQuest record of a paper Ovid MEDLINE also gave is saved (its AN, ProQuest's document id,
was read as a PMID and the record refused: "pmid differs"), and both count as one paper."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

OVID = """TY  - JOUR
DB  - Ovid MEDLINE(R) ALL
AN  - 25822648
T1  - Treatment of Knee Osteoarthritis With Allogeneic Bone Marrow Mesenchymal Stem Cells.
A1  - Vega, Aurelio
Y1  - 2015//
JF  - Transplantation
SP  - 1681
EP  - 90
DO  - https://dx.doi.org/10.1097/TP.0000000000000678
ER  -
"""

PROQUEST = """TY  - JOUR
T1  - Treatment of Knee Osteoarthritis With Allogeneic Bone Marrow Mesenchymal Stem Cells
AN  - 1700478722
JF  - Transplantation
AU  - Vega, Aurelio
PY  - 2015
SP  - 1681
EP  - 1690
DO  - https://doi.org/10.1097/TP.0000000000000678
UR  - https://www.proquest.com/scholarly-journals/treatment/docview/1700478722/se-2?accountid=1
DB  - MEDLINE®
ER  -
"""


@pytest.fixture
def cli(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: object, code: int = 0):
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def test_proquest_and_ovid_records_of_one_paper_are_both_saved(cli, tmp_path) -> None:
    ovid, proquest = tmp_path / "ovid.ris", tmp_path / "proquest.ris"
    ovid.write_text(OVID, encoding="utf-8")
    proquest.write_text(PROQUEST, encoding="utf-8")
    out = json.loads(cli("import", ovid, proquest, "--study", "Knee", "--json").stdout)
    assert out["records_saved"] == 2 and out["papers_created"] == 1
    assert [f["records_refused"] for f in out["files"]] == [[], []]
    shown = json.loads(cli("study", "show", "Knee", "--json").stdout)
    assert [p["id"] for p in shown["papers"]] == ["MED-25822648"]


def test_cochrane_plain_text_and_ovid_tagged_text_are_imported_into_a_study(cli, tmp_path) -> None:
    central = tmp_path / "citation-export.txt"
    central.write_text(
        "Record #1 of 1\nID: CN-01087654\nAU: Vega A\nTI: Treatment of knee osteoarthritis\n"
        "SO: Transplantation\nYR: 2015\nDOI: 10.1097/TP.0000000000000678\nPM: PUBMED 25822648\n",
        encoding="utf-8",
    )
    ovid = tmp_path / "ovid.cgi"
    ovid.write_text(
        "<1. >\r\nVN  - Ovid Technologies\r\nDB  - Ovid MEDLINE(R) ALL <1946 to 2020>\r\n"
        "UI  - 25822648\r\nTI  - Treatment of knee osteoarthritis\r\nAU  - Vega A\r\n"
        "SO  - Transplantation August 2015;99(8):1681-1690\r\nYR  - 2015\r\n",
        encoding="utf-8",
    )
    read = json.loads(cli("import", ovid, "--json").stdout)
    [imported] = read["imports"]
    assert imported["source"]["format"] == "ovid"
    [record] = imported["records"]
    assert record["paper"]["pmid"] == "25822648" and record["paper"]["volume"] == "99"
    out = cli("import", central, ovid, "--study", "Knee", "--json")
    got = json.loads(out.stdout)
    assert got["records_saved"] == 2 and got["papers_created"] == 1 and not got["refused"]
    sources = {f["path"]: f["source"] for f in got["files"]}
    assert sources[str(ovid)] == {"name": "Ovid MEDLINE(R)", "kind": "database", "origin": "file"}
    shown = json.loads(cli("study", "show", "Knee", "--json").stdout)
    assert [p["id"] for p in shown["papers"]] == ["MED-25822648"]
    read = json.loads(cli("import", central, "--json").stdout)
    assert read["imports"][0]["source"]["format"] == "cochrane-txt"
