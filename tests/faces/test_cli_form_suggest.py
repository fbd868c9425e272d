"""``litdesk extract --study S`` in a Study with its own form and ``extract-save --form``
through the CLI against a scripted model server on loopback: nothing sent without
--consent, --json prints the checked values with their quotes and the dropped ones'
warnings, and the reviewed values (one changed with --set) are recorded in the Study."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from tests._model_servers import Scripted, ScriptedModelServer, model_server
from tests.services.assist._extract_kit import the_paper
from typer.testing import CliRunner

from litdesk._settings import get_settings
from litdesk.adapters.store import open_store
from litdesk.core.forms import Form, FormField
from litdesk.faces.cli._app import app
from litdesk.services.studies import SetFormRequest
from litdesk.services.studies._forms import set_form
from litdesk.services.workspace import Workspace

FORM = Form(
    (
        FormField("sample_size", "Sample size", "number"),
        FormField("design", "Design", "choice", options=("RCT", "cohort")),
        FormField("blinded", "Blinded", "yesno"),
        FormField("setting", "Setting"),
    )
)


def _item(value: str, quote: str) -> dict[str, str]:
    return {"value": value, "quote": quote, "block": "abstract"}


ANSWER = {
    "finding": _item("faster clearance", "parasite clearance was faster with artesunate"),
    "fields": {
        "sample_size": _item("120", "120 children"),
        "design": _item("crossover", "than with quinine"),
        "blinded": _item("no", "we gave  artesunate"),
        "setting": _item("Mali", "years in Mali"),
    },
}


@pytest.fixture
def server(tmp_settings, monkeypatch) -> Iterator[ScriptedModelServer]:
    data = tmp_settings.resolved_data_dir()
    with model_server("openai") as srv:
        monkeypatch.setenv("LITDESK_DATA_DIR", str(data))
        monkeypatch.setenv("LITDESK_LLM_BACKEND", srv.kind)
        monkeypatch.setenv("LITDESK_CHAT_MODEL", "scripted-model")
        monkeypatch.setenv("LITDESK_ASSIST_SPACING_SECONDS", "0")
        monkeypatch.setenv("LITDESK_OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("LITDESK_OPENAI_API_KEY", "sk-test-not-a-secret")
        get_settings.cache_clear()
        store = open_store(get_settings())
        ws = Workspace(store)
        ws.create_study("Malaria")
        ws.save_paper(the_paper(), study="Malaria")
        set_form(store, SetFormRequest("Malaria", form=FORM), ws.owner)
        store.dispose()
        yield srv
        get_settings.cache_clear()


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_extract_in_a_study_fills_its_form_and_records_it(server: ScriptedModelServer):
    code, out, _ = invoke("extract", "MED-424242", "--study", "Malaria")
    assert code == 3 and server.requests == []  # no consent: nothing sent
    assert '"sample_size"' in out and "Design" in out  # the form is part of what is sent
    server.script(Scripted(json.dumps(ANSWER)))
    code, out, err = invoke("extract", "MED-424242", "--study", "Malaria", "--consent", "--json")
    assert code == 0, err
    draft = json.loads(out)["draft"]
    assert {k: v["text"] for k, v in draft["form_fields"].items()} == {
        "sample_size": "120",
        "blinded": "no",
        "setting": "Mali",
    }
    assert draft["form_fields"]["setting"]["quote"] == "years in Mali"
    assert draft["warnings"] == ["Design (design) dropped: 'crossover' does not fit the field "
                                 "(choose one of: RCT, cohort)"]  # fmt: skip
    code, _, err = invoke("extract-save", draft["draft_id"], "--reviewed", "--form",
                          "--set", "design=bogus")  # fmt: skip
    assert code != 0 and "Design: choose one of: RCT, cohort" in err
    code, out, err = invoke("extract-save", draft["draft_id"], "--reviewed", "--form",
                            "--set", "design=rct", "--json")  # fmt: skip
    assert code == 0, err
    saved = json.loads(out)
    assert saved["evidence"]["values"] == {
        "sample_size": 120,
        "design": "RCT",
        "blinded": False,
        "setting": "Mali",
    }
    code, out, _ = invoke("evidence", "list", "--study", "Malaria", "--json")
    assert code == 0 and "RCT" in out and len(server.requests) == 1
