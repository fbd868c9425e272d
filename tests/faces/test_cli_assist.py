"""``litdesk extract``, ``extract-save`` and ``extract-provenance`` end to end through the
CLI against a scripted model server on loopback (both wire protocols): the notice shows
what is sent and where, nothing is sent without --consent, the draft is saved only after
--reviewed, and the key never appears in any output."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from tests._model_servers import (
    SECRET_ANTHROPIC_KEY,
    SECRET_OPENAI_KEY,
    Scripted,
    ScriptedModelServer,
    model_server,
    user_payload,
)
from tests.services.assist._extract_kit import ABSTRACT, answer, the_paper
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.store import open_store
from litdesk.faces.cli._app import app
from litdesk.services.workspace import Workspace

GOOD = {
    "method": ("oral artesunate", "we gave artesunate 4 mg/kg", "abstract"),
    "finding": ("faster clearance", "parasite clearance was faster with artesunate", "abstract"),
    "limitations": ("made up", "the sample was small", "abstract"),
}


@pytest.fixture(params=["openai", "anthropic"])
def server(request, tmp_settings, monkeypatch) -> Iterator[ScriptedModelServer]:
    data = tmp_settings.resolved_data_dir()
    with model_server(request.param) as srv:
        monkeypatch.setenv("LITDESK_DATA_DIR", str(data))
        monkeypatch.setenv("LITDESK_LLM_BACKEND", srv.kind)
        monkeypatch.setenv("LITDESK_CHAT_MODEL", "scripted-model")
        monkeypatch.setenv("LITDESK_ASSIST_SPACING_SECONDS", "0")
        if srv.kind == "openai":
            monkeypatch.setenv("LITDESK_OPENAI_BASE_URL", srv.base_url)
            monkeypatch.setenv("LITDESK_OPENAI_API_KEY", SECRET_OPENAI_KEY)
        else:
            monkeypatch.setenv("LITDESK_ANTHROPIC_BASE_URL", srv.base_url)
            monkeypatch.setenv("LITDESK_ANTHROPIC_API_KEY", SECRET_ANTHROPIC_KEY)
        get_settings.cache_clear()
        store = open_store(get_settings())
        Workspace(store).save_paper(the_paper())
        store.dispose()
        yield srv
        get_settings.cache_clear()


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    for secret in (SECRET_ANTHROPIC_KEY, SECRET_OPENAI_KEY):
        assert secret not in result.stdout and secret not in result.stderr
    return result.exit_code, result.stdout, result.stderr


def test_without_consent_shows_notice_and_sends_nothing(server: ScriptedModelServer):
    code, out, err = invoke("extract", "MED-424242")
    assert code == 3
    assert server.host in out and "local model" in out
    assert "parasite clearance was faster" in out  # the text that would be sent
    assert "--consent" in err
    assert server.requests == []
    code, out, _ = invoke("extract", "MED-424242", "--json")
    assert code == 3
    body = json.loads(out)
    assert body["code"] == "consent_required"
    assert body["details"]["preview"]["consent"]["host"] == server.host
    assert server.requests == []


def test_extract_review_save_and_provenance(server: ScriptedModelServer):
    server.script(Scripted(answer(GOOD)))
    code, out, err = invoke("extract", "MED-424242", "--consent")
    assert code == 0, err
    assert "Suggested evidence" in out and "not saved" in out
    assert "limitations dropped" in out  # the fabricated quote
    draft_id = next(w for w in out.split() if w.startswith("ad-")).rstrip(")")
    assert user_payload(server.requests[0].body)["blocks"][0]["text"] == ABSTRACT

    code, _, err = invoke("extract-save", draft_id)
    assert code == 3 and "--reviewed" in err
    code, out, err = invoke(
        "extract-save", draft_id, "--reviewed", "--set", "method=artesunate 4 mg/kg", "--json"
    )
    assert code == 0, err
    saved = json.loads(out)
    assert saved["evidence"]["method"] == "artesunate 4 mg/kg"
    assert saved["provenance"]["fields"]["method"]["edited"] is True
    assert "limitations" not in saved["provenance"]["fields"]
    code, out, err = invoke("extract-provenance", saved["evidence_id"], "--json")
    assert code == 0, err
    prov = json.loads(out)
    assert prov["ok"] and prov["call"]["host"] == server.host
    code, _, err = invoke("extract-save", draft_id, "--reviewed")
    assert code == 3 and "already saved" in err


def test_refusal_is_reported_and_nothing_saved(server: ScriptedModelServer):
    server.script(Scripted("", thinking="only thoughts"))
    code, out, err = invoke("extract", "MED-424242", "--consent", "--json")
    assert code == 3
    assert json.loads(out)["code"] == "hidden_reasoning_only"
    assert "only hidden reasoning" in err


def test_bad_arguments(server: ScriptedModelServer):
    code, _, err = invoke("extract", "MED-424242", "--section", "Results", "--consent")
    assert code == 2 and "--source fulltext" in err
    code, _, err = invoke("extract", "MED-999", "--consent")
    assert code == 4 and "save it first" in err
    code, _, err = invoke("extract-save", "ad-nope", "--reviewed", "--set", "colour=red")
    assert code == 2
    assert server.requests == []


def test_no_model_backend_configured(tmp_settings, monkeypatch):
    monkeypatch.setenv("LITDESK_DATA_DIR", str(tmp_settings.resolved_data_dir()))
    get_settings.cache_clear()
    store = open_store(get_settings())
    Workspace(store).save_paper(the_paper())
    store.dispose()
    try:
        code, _, err = invoke("extract", "MED-424242", "--consent")
    finally:
        get_settings.cache_clear()
    assert code == 6 and "LITDESK_LLM_BACKEND" in err


def test_assist_check_reports_thinking_behaviour(server: ScriptedModelServer):
    code, out, err = invoke("assist-check")
    assert code == 3 and "--consent" in err and server.requests == []
    server.script(
        Scripted('{"echo": "litdesk-check-7"}', thinking="pondering"),
        Scripted("", stop="length", thinking="pondering at length"),
        Scripted('{"echo": "something else"}'),
    )
    code, out, err = invoke("assist-check", "--consent", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["ok"] and "with hidden reasoning" in report["verdict"]
    assert report["call"]["reasoning"] is True and report["call"]["host"] == server.host
    code, out, _ = invoke("assist-check", "--consent", "--json")
    assert code == 3 and json.loads(out)["code"] == "hidden_reasoning_only"
    code, out, _ = invoke("assist-check", "--consent")
    assert code == 3 and "did not echo" in out
    assert len(server.requests) == 3
