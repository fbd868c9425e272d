"""``litdesk study form`` and ``--field key=value`` on the evidence commands, end to end
over a real SQLite store."""

from __future__ import annotations

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.faces.cli import app

ABSTRACT = "In 1,204 adults over 60, aspirin lowered stroke risk (OR 0.82, 95% CI 0.70 to 0.96)."


@pytest.fixture
def run(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.data_dir))
    get_settings.cache_clear()
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, list(args))
        assert result.exit_code == code, (result.output, result.exception)
        return result

    yield invoke
    get_settings.cache_clear()


def test_study_form_show_set_and_field_values(run, tmp_path):
    run("study", "new", "Stroke")
    run(
        "paper",
        "save",
        "--pmid",
        "4242",
        "--title",
        "Aspirin trial",
        "--abstract",
        ABSTRACT,
        "--study",
        "Stroke",
    )
    shown = json.loads(run("study", "form", "Stroke", "--json").stdout)
    assert shown["chosen"] is False and shown["form"]["template"] == "default"
    assert "finding" in run("study", "form", "Stroke").stdout
    out = json.loads(run("study", "form", "Stroke", "--template", "pico", "--json").stdout)
    assert out["chosen"] and out["form"]["revision"] == 1
    assert [f["key"] for f in out["form"]["fields"]][:2] == ["population", "intervention"]
    ev = json.loads(
        run(
            "evidence",
            "add",
            "MED-4242",
            "--passage",
            "aspirin lowered stroke risk",
            "--study",
            "Stroke",
            "--field",
            "population=adults over 60",
            "--field",
            "outcome=stroke",
            "--field",
            "sample_size=1204",
            "--field",
            "effect_value=0.82",
            "--json",
        ).stdout
    )
    assert ev["values"]["sample_size"] == 1204 and ev["recheck"] == "ok"
    bad = run(
        "evidence",
        "add",
        "MED-4242",
        "--passage",
        "aspirin",
        "--study",
        "Stroke",
        "--field",
        "population=p",
        "--field",
        "outcome=o",
        "--field",
        "sample_size=lots",
        "--json",
        code=2,
    )
    assert "sample_size" in bad.stdout
    run("evidence", "add", "MED-4242", "--passage", "aspirin", "--field", "no-equals", code=2)
    up = json.loads(
        run("evidence", "update", ev["id"], "--field", "comparator=placebo", "--json").stdout
    )
    assert up["values"]["comparator"] == "placebo" and up["values"]["sample_size"] == 1204
    rows = list(csv.DictReader(io.StringIO(run("evidence", "export", "--study", "Stroke").stdout)))
    assert rows[0]["comparator"] == "placebo" and rows[0]["effect_value"] == "0.82"
    assert "adults over 60" in run("evidence", "list", "--study", "Stroke").stdout
    # a form of the reviewers' own from a file (what --json shows is accepted back)
    custom = {
        "name": "Mine",
        "fields": [
            {"key": "outcome", "label": "Outcome", "required": True},
            {"key": "blinded", "label": "Blinded", "type": "yesno"},
        ],
    }
    path = tmp_path / "form.json"
    path.write_text(json.dumps(custom))
    out = json.loads(run("study", "form", "Stroke", "--from", str(path), "--json").stdout)
    assert out["form"]["name"] == "Mine" and out["form"]["revision"] == 2
    rows = list(csv.DictReader(io.StringIO(run("evidence", "export", "--study", "Stroke").stdout)))
    assert json.loads(rows[0]["other_fields"])["population"] == "adults over 60"
    path.write_text('{"fields": [{"key": "Bad Key", "label": "x"}]}')
    run("study", "form", "Stroke", "--from", str(path), code=2)
    run("study", "form", "Stroke", "--template", "cochrane", code=2)
    run("study", "form", "Stroke", "--template", "pico", "--from", str(path), code=2)
    run("study", "form", "Nope", code=4)
