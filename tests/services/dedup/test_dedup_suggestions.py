"""Issue 30 in the service: other tools' duplicate flags are suggestions with their source
(never merges), versions are linked by record references in the JSON outcome, and a
translated title recorded in the file is compared."""

from __future__ import annotations

from pathlib import Path

from litdesk.services.dedup import dedup_files

CSV = """ID,title,author,year,journal,volume,number,pages,duplicate_record_id
r1,Editor's comments,"Straub, D. W.",2009,MIS Quarterly,33,1,iii-vi,
r2,Editor's comments,"Straub, D. W.",2009,MIS Quarterly,33,2,iii-v,r1
r3,Eculizumab in atypical haemolytic uraemic syndrome: a cohort,"Licht, C.",2013,Kidney International,87,,1061-1073,
r4,Eculizumab in atypical haemolytic uraemic syndrome: a cohort,"Licht, C.",2013,Kidney Int,87,,1061-73,r3
r5,Something else entirely,"Doe, J.",2001,Other,1,1,1-2,r99
"""

RIS = """TY  - UNPB
TI  - Minimum wages and employment in small firms: evidence from a natural experiment
AU  - Card, D.
AU  - Krueger, A. B.
PY  - 2019
T2  - NBER Working Paper Series
ER  -

TY  - JOUR
TI  - Minimum wages and employment in small firms: evidence from a natural experiment
AU  - Card, D.
AU  - Krueger, A. B.
PY  - 2020
JO  - American Economic Review
VL  - 110
IS  - 4
SP  - 1019
EP  - 1056
DO  - 10.1257/aer.20180001
ER  -
"""


def test_duplicate_record_id_column_is_a_suggestion_not_a_merge(tmp_path: Path) -> None:
    path = tmp_path / "flags.csv"
    path.write_text(CSV, encoding="utf-8")
    report = dedup_files([path], auto_only=True)
    # r2 is flagged a duplicate of r1 by the other tool, but it is another issue's column
    assert report.result.groups == [[0], [1], [2, 3], [4]]
    doc = report.to_dict()
    assert doc["counts"]["suggested_duplicates"] == 3
    got = [
        (s["record"]["source_id"], s["of"] and s["of"]["source_id"], s["value"], s["litdesk"])
        for s in doc["suggestions"]
    ]
    assert got == [
        ("r2", "r1", "r1", "different groups"),
        ("r4", "r3", "r3", "same group"),
        ("r5", None, "r99", "single"),  # names no record of the file: kept as said
    ]
    assert {s["source"] for s in doc["suggestions"]} == {"column 'duplicate_record_id'"}
    vetoed = next(p for p in doc["pairs"] if p["a"]["source_id"] == "r1")
    assert vetoed["decision"] == "review" and vetoed["reason"].startswith("vetoed: different")


def test_versions_are_in_the_json_outcome(tmp_path: Path) -> None:
    path = tmp_path / "wp.ris"
    path.write_text(RIS, encoding="utf-8")
    report = dedup_files([path], auto_only=True)
    assert report.result.groups == [[0], [1]]
    (version,) = report.to_dict()["versions"]
    assert version["relation"] == "preprint"
    assert version["primary"]["index"] == 1 and version["version"]["index"] == 0
    assert report.result.counts["versions"] == 1


def test_translated_title_in_the_file_is_compared(tmp_path: Path) -> None:
    common = "AU  - Meier, K.\nPY  - 2010\nJO  - Der Nervenarzt\nVL  - 81\nSP  - 1001\nEP  - 1008\n"
    (tmp_path / "a.ris").write_text(
        "TY  - JOUR\nTI  - [Treatment of stroke in old age]\n"
        "TT  - Behandlung des Schlaganfalls im Alter\n" + common + "ER  - \n",
        encoding="utf-8",
    )
    (tmp_path / "b.ris").write_text(
        "TY  - JOUR\nTI  - Behandlung des Schlaganfalls im Alter\n" + common + "ER  - \n",
        encoding="utf-8",
    )
    report = dedup_files([tmp_path / "a.ris", tmp_path / "b.ris"], auto_only=True)
    assert report.result.groups == [[0, 1]]


def test_cli_versions_csv_json_and_explain_of_a_veto(tmp_path: Path) -> None:
    import csv
    import json

    from typer.testing import CliRunner

    from litdesk.faces.cli import app

    ris, flags = tmp_path / "wp.ris", tmp_path / "flags.csv"
    ris.write_text(RIS, encoding="utf-8")
    flags.write_text(CSV, encoding="utf-8")
    out = tmp_path / "versions.csv"
    result = CliRunner().invoke(app, ["dedup", str(ris), "--versions", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["versions"][0]["relation"] == "preprint"
    with out.open(encoding="utf-8", newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    assert row["relation"] == "preprint" and row["primary_index"] == "1"
    assert row["version_index"] == "0" and row["primary_title"].startswith("Minimum wages")
    # --explain shows the veto that kept two issues' columns apart
    why = CliRunner().invoke(app, ["dedup", str(flags), "--explain", "r1", "r2", "--json"])
    doc = json.loads(why.stdout)
    assert doc["decision"] == "review" and doc["same_group"] is False
    assert doc["rule"].startswith("vetoed: different issues of volume 33 (1 vs 2)")
    assert doc["evidence"]["vetoes"] == ["different issues of volume 33 (1 vs 2)"]
    text = CliRunner().invoke(app, ["dedup", str(flags)]).output
    assert "merges vetoed" in text and "other tools' duplicate flags" in text
