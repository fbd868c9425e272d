"""``litdesk strategy suggest`` and ``litdesk study summary`` against a scripted
OpenAI-compatible server on loopback: the notice (text and host) is shown, nothing is sent
without --consent, refusals exit 3, --save keeps a report and writes its offline HTML."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._model_servers import (
    SECRET_OPENAI_KEY,
    Scripted,
    ScriptedModelServer,
    model_server,
    user_payload,
)
from typer.testing import CliRunner

from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.faces.cli._app import app
from litdesk.services.workspace import Workspace

runner = CliRunner()
ABSTRACT = "Bed nets treated with chlorfenapyr halved malaria incidence in the second year."


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedModelServer]:
    with model_server("openai") as s:
        for key, value in {
            "LITDESK_DATA_DIR": str(tmp_path / "data"),
            "LITDESK_LLM_BACKEND": "openai",
            "LITDESK_CHAT_MODEL": "scripted-model",
            "LITDESK_OPENAI_BASE_URL": s.base_url,
            "LITDESK_OPENAI_API_KEY": SECRET_OPENAI_KEY,
            "LITDESK_ASSIST_SPACING_SECONDS": "0",
        }.items():
            monkeypatch.setenv(key, value)
        yield s


def test_suggest_needs_consent_and_shows_what_and_where(server: ScriptedModelServer) -> None:
    result = runner.invoke(app, ["strategy", "suggest", "Do treated bed nets reduce malaria?"])
    assert result.exit_code == 3, result.output
    assert (
        server.host in result.stdout
        and '{"researchQuestion": "Do treated bed nets' in result.stdout
    )
    assert "consent is required" in result.stderr
    assert server.requests == []


def test_suggest_prints_groups_and_the_build_command(server: ScriptedModelServer) -> None:
    server.script(
        Scripted(
            json.dumps(
                {
                    "groups": [
                        {"label": "Nets", "terms": ["bed nets", "ITN|LLIN"]},
                        {"label": "Outcome", "terms": ["malaria incidence"]},
                    ]
                }
            )
        )
    )
    result = runner.invoke(app, ["strategy", "suggest", "Do nets work?", "--consent", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["warning"].startswith("AI terms are unverified")
    assert (
        data["build_command"]
        == "litdesk strategy build --group 'bed nets|ITN\\|LLIN' --group 'malaria incidence'"
    )
    build = runner.invoke(
        app,
        [
            "strategy",
            "build",
            "--group",
            "bed nets|ITN\\|LLIN",
            "--group",
            "malaria incidence",
            "--json",
        ],
    )
    assert json.loads(build.stdout)["query"] == '("bed nets" OR "ITN|LLIN") AND "malaria incidence"'
    assert SECRET_OPENAI_KEY not in result.output + result.stderr


def test_suggest_refusal_exits_3(server: ScriptedModelServer) -> None:
    server.script(Scripted(json.dumps({"groups": [{"label": "A", "terms": ["nets OR bednets"]}]})))
    result = runner.invoke(app, ["strategy", "suggest", "Do nets work?", "--consent"])
    assert result.exit_code == 3
    assert "Boolean operator" in result.stderr


def _study(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'data' / 'litdesk.sqlite3'}")
    ws = Workspace(store)
    ws.create_study("Nets")
    p = ws.save_paper(
        make_paper(doi="10.5555/nets.1", title="Chlorfenapyr nets", abstract=ABSTRACT)
    ).paper
    ws.add_to_study("Nets", p.id)
    store.dispose()


def test_study_summary_save_and_html(server: ScriptedModelServer, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    _study(tmp_path)
    sources = runner.invoke(app, ["study", "summary", "Nets", "--sources", "--json"])
    assert sources.exit_code == 0, sources.output
    assert [s["id"] for s in json.loads(sources.stdout)["sources"]] == ["S1", "S2"]

    def answer(body: dict[str, Any]) -> Scripted:
        sent = user_payload(body)
        assert [s["id"] for s in sent["sources"]] == ["S2"]  # S1 deselected
        return Scripted(
            json.dumps(
                {
                    "overview": [
                        {
                            "text": "Nets halved incidence.",
                            "citations": [{"source": "S2", "quote": "halved malaria incidence"}],
                        }
                    ],
                    "findings": [
                        {
                            "text": "Made up.",
                            "citations": [{"source": "S9", "quote": "halved malaria incidence"}],
                        }
                    ],
                    "gaps": [],
                    "next_steps": [],
                }
            )
        )

    server.respond_with(answer)
    out = tmp_path / "report.html"
    result = runner.invoke(
        app,
        [
            "study",
            "summary",
            "Nets",
            "--focus",
            "handover",
            "--deselect",
            "S1",
            "--consent",
            "--save",
            "-o",
            str(out),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["report_id"].startswith("rep_")
    assert [p["text"] for p in data["sections"]["overview"]] == ["Nets halved incidence."]
    assert data["sections"]["findings"] == [] and data["citations_rejected"] == 1
    html = out.read_text(encoding="utf-8")
    assert "Nets halved incidence." in html and "default-src &#x27;none&#x27;" in html
    assert server.host in result.stderr  # the notice went to stderr beside the JSON


def test_study_summary_bad_focus(server: ScriptedModelServer) -> None:
    result = runner.invoke(app, ["study", "summary", "Nets", "--focus", "poetry", "--consent"])
    assert result.exit_code == 2
    assert "--focus is one of overview, evidence, handover" in result.stderr
