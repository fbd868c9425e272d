"""The dedup workflow as one area call, ``app.dedup.run`` (issue 11), and ``litdesk dedup
--explain`` (12), ``app.dedup.explain``."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litdesk._errors import InputError, NotFoundError
from litdesk._settings import Settings
from litdesk.faces.cli import app
from litdesk.services.app import App, open_app_sync
from litdesk.services.dedup import DedupRequest, ExplainRequest, load_decisions

DATA = Path(__file__).parent / "data"
FILES = (str(DATA / "dedup_scopus.ris"), str(DATA / "dedup_pubmed.ris"))

SUPPLEMENT = """TY  - JOUR
ID  - A1
AU  - Novak, J.
TI  - Thrombolysis in wake-up stroke: a registry
JO  - International Journal of Stroke
PY  - 2015
VL  - 10
SP  - S12
DO  - 10.1111/ijs.12479
ER  -

TY  - JOUR
ID  - A2
AU  - Berge, E.
TI  - Mobile stroke units in rural Norway
JO  - International Journal of Stroke
PY  - 2015
VL  - 10
SP  - S13
DO  - 10.1111/ijs.12479
ER  -
"""


def test_area_run_writes_decisions_history_and_merged_records(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("LITDESK_DATABASE_URL", raising=False)
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_path / "data"))
    assert CliRunner().invoke(app, ["study", "new", "aHUS"]).exit_code == 0
    decisions, out = tmp_path / "decisions.json", tmp_path / "merged.ris"
    request = DedupRequest(FILES, decisions_file=str(decisions), study="aHUS", out=str(out))
    with open_app_sync(Settings()) as opened:
        outcome = opened.dedup.run(request, reviewer=lambda *_: "merge", owner="local")
        _rest_of_the_run(request, outcome, decisions, out, opened)


def _rest_of_the_run(request, outcome, decisions, out, app: App) -> None:  # type: ignore[no-untyped-def]
    assert outcome.new_decisions == 1 and outcome.written == str(out)
    assert len(load_decisions(decisions)) == 1
    assert out.read_text(encoding="utf-8").count("TY  - ") == len(outcome.report.result.groups)
    doc = outcome.to_dict()
    assert doc["study"] == "aHUS" and doc["new_decisions"] == 1
    history = app.dedup.history("aHUS", owner="local").entries
    assert [e.kind for e in history] == ["decision", "run"]
    assert history[-1].data["owner"] == "local"
    # the merged file is never replaced silently: refused before any work without force
    with pytest.raises(InputError, match="exists"):
        app.dedup.run(
            request, reviewer=lambda *_: pytest.fail("asked before the -o check"), owner="local"
        )
    # the next run reuses the stored decision: nothing new, no question asked
    again = app.dedup.run(
        dataclasses.replace(request, force=True),
        reviewer=lambda *_: pytest.fail("asked again"),
        owner="local",
    )
    assert again.new_decisions == 0


def test_dedup_request_refuses_an_unknown_output_format_and_no_files() -> None:
    with pytest.raises(InputError) as bad:
        DedupRequest(FILES, to="docx")
    assert bad.value.code == "unsupported"
    with pytest.raises(InputError) as none:
        DedupRequest(())
    assert none.value.code == "no_files"


def test_cli_dedup_imports_no_adapters() -> None:
    source = Path(__file__).parents[3] / "src/litdesk/faces/cli/_dedup.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.append(node.module or "")
        elif isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
    assert names and not any(str(m).startswith("litdesk.adapters") for m in names)


def explain_records(files: tuple[str, ...], a: str, b: str):  # type: ignore[no-untyped-def]
    with open_app_sync(Settings()) as opened:
        return opened.dedup.explain(ExplainRequest(files, a, b), owner=opened.owner)


def test_explain_a_merged_and_a_kept_apart_pair(tmp_path: Path) -> None:
    merged = explain_records(FILES, "P1", "S1")
    assert merged.explanation.same_group and merged.explanation.decision == "merge"
    assert merged.explanation.recorded and merged.explanation.stage == 2
    assert "rule" in merged.explanation.rule
    by_doi = explain_records(FILES, "dedup_pubmed.ris#1", "S2")
    assert by_doi.explanation.stage == 1 and by_doi.explanation.rule == "shared identifier"
    path = tmp_path / "supplement.ris"
    path.write_text(SUPPLEMENT, encoding="utf-8")
    apart = explain_records((str(path),), "A1", "A2")
    assert not apart.explanation.same_group
    (conflict,) = apart.explanation.conflicts
    assert conflict.kind == "shared" and "DOI shared by 2 records" in conflict.message
    assert any("titles disagree" in n for n in apart.explanation.notes)
    doc = apart.to_dict()
    assert doc["a"]["source_id"] == "A1" and doc["conflicts"][0]["members"][1]["source_id"] == "A2"
    with pytest.raises(NotFoundError):
        explain_records((str(path),), "A1", "nope")


def test_cli_json_reports_the_shared_doi_conflict(tmp_path: Path) -> None:
    path = tmp_path / "supplement.ris"
    path.write_text(SUPPLEMENT, encoding="utf-8")
    result = CliRunner().invoke(app, ["dedup", str(path), "--json"])
    doc = json.loads(result.stdout)
    assert doc["counts"]["shared_id_conflicts"] == 1 and len(doc["groups"]) == 2
    (conflict,) = doc["conflicts"]
    assert [m["source_id"] for m in conflict["members"]] == ["A1", "A2"]
    assert conflict["values"] == ["10.1111/ijs.12479"]
    text = CliRunner().invoke(app, ["dedup", str(path)]).output
    assert "conflict: DOI shared by 2 records with different" in text


def test_cli_explain(tmp_path: Path) -> None:
    path = tmp_path / "supplement.ris"
    path.write_text(SUPPLEMENT, encoding="utf-8")
    result = CliRunner().invoke(app, ["dedup", str(path), "--explain", "A1", "A2"])
    assert result.exit_code == 0, result.output
    assert "in different groups" in result.output and "DOI shared by 2 records" in result.output
    doc = json.loads(
        CliRunner().invoke(app, ["dedup", str(path), "--explain", "0", "1", "--json"]).stdout
    )
    assert doc["same_group"] is False and doc["conflicts"][0]["kind"] == "shared"
    missing = CliRunner().invoke(app, ["dedup", str(path), "--explain", "A1", "Z9"])
    assert missing.exit_code == 4
