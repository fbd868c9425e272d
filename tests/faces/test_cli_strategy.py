"""``litdesk strategy build``: the built query, per-provider requests and refusals, errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from litdesk.core.query import parse_query
from litdesk.core.search import PROVIDERS
from litdesk.faces.cli._app import app

runner = CliRunner()


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command opens the app: a data dir of its own, never the user's default one
    (another checkout's migration there made every command fail)."""
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.resolved_data_dir()))


def test_build_json_compiles_for_every_provider_and_names_refusals() -> None:
    result = runner.invoke(
        app,
        [
            "strategy",
            "build",
            "--group",
            "malaria|Plasmodium infection",
            "-g",
            "vaccine|RTS,S",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["query"] == '("malaria" OR "Plasmodium infection") AND ("vaccine" OR "RTS,S")'
    assert [t.text for t in parse_query(data["query"]).terms] == [
        "malaria",
        "Plasmodium infection",
        "vaccine",
        "RTS,S",
    ]
    assert list(data["providers"]) == list(PROVIDERS)
    assert data["providers"]["crossref"]["refused"].startswith("Crossref has no Boolean search")
    pubmed = data["providers"]["pubmed"]
    assert '"malaria"[All Fields] OR "Plasmodium infection"[All Fields]' in pubmed["executed_query"]
    assert pubmed["url"].startswith("https://eutils.ncbi.nlm.nih.gov/")


def test_build_text_output_and_escaped_bar() -> None:
    result = runner.invoke(app, ["strategy", "build", "-g", r"either\|or|neither", "-g", "x-ray"])
    assert result.exit_code == 0, result.output
    assert '("either|or" OR "neither") AND "x-ray"' in result.stdout
    assert "crossref: refused" in result.stdout


def test_duplicates_are_named() -> None:
    result = runner.invoke(app, ["strategy", "build", "-g", "Tumour|TUMOUR|tumor", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["groups"][0]["terms"] == ["Tumour", "tumor"]
    assert data["removed_duplicates"] == ["TUMOUR"]


def test_too_many_groups_is_an_input_error() -> None:
    args = ["strategy", "build"] + [a for i in range(7) for a in ("-g", f"t{i}")] + ["--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    err = json.loads(result.stdout)
    assert err["code"] == "groups"
    assert "at most 6 concept groups" in err["message"]


def test_empty_term_and_control_character_refused() -> None:
    result = runner.invoke(app, ["strategy", "build", "-g", "a||b"])
    assert result.exit_code == 2
    assert "term 2 of group 1 is empty" in result.stderr
    result = runner.invoke(app, ["strategy", "build", "-g", "a\x07b"])
    assert result.exit_code == 2
    assert "U+0007" in result.stderr
