"""A preview shows what a model call would send, where and to which model, and its consent
token — without doing the call's work: no backend is built for it (no SDK imported, no
client, no TLS context; walk 12 measured 2.7–3.2 s for a worker's first preview, almost
all of it the openai SDK's import and its TLS context). The notice names the same host,
backend and model as the backend the call then builds, and the call accepts its token."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests._model_servers import Scripted, ScriptedModelServer, assist_settings
from tests.services.assist._extract_kit import the_paper

from litdesk.services.app import open_app
from litdesk.services.assist import EvidenceAssistant, EvidenceSource
from litdesk.services.assist import _call as call_module
from litdesk.services.workspace import Workspace

PAPER = "MED-424242"
ANSWER = (
    '{"question": {"value": "", "quote": "", "block": ""},'
    ' "population": {"value": "", "quote": "", "block": ""},'
    ' "method": {"value": "", "quote": "", "block": ""},'
    ' "intervention": {"value": "", "quote": "", "block": ""},'
    ' "finding": {"value": "Artesunate cleared parasites faster", "quote":'
    ' "parasite clearance was faster with artesunate than with\\nquinine", "block": "abstract"},'
    ' "limitations": {"value": "", "quote": "", "block": ""}}'
)


def test_a_preview_builds_no_backend_and_its_token_is_the_calls(
    model_server_fixture: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = model_server_fixture
    server.script(Scripted(ANSWER))
    built: list[str] = []
    make = call_module.make_backend

    def counted(kind: str, **kw: Any) -> Any:
        built.append(kind)
        return make(kind, **kw)

    monkeypatch.setattr(call_module, "make_backend", counted)
    settings = assist_settings(server, tmp_path / "data")

    async def go() -> tuple[Any, Any, list[str], Any]:
        async with open_app(settings) as app:
            ws = Workspace(app.providers.store, owner=app.owner)
            ws.create_study("Malaria")
            ws.save_paper(the_paper(), study="Malaria")
            source = EvidenceSource(PAPER, "abstract", None, None)
            first = await app.assist.evidence_preview(source, owner=app.owner)
            again = await app.assist.evidence_preview(source, owner=app.owner)
            before_call = list(built)
            ea = EvidenceAssistant(app.providers, owner=app.owner)
            try:
                draft = await ea.suggest(PAPER, consent=first.notice.token)
                backend = ea.assistant.backend
                named = (backend.name, backend.host, backend.model)
            finally:
                ea.close()
            return first, again, before_call, (draft, named)

    first, again, before_call, (draft, named) = asyncio.run(go())
    assert before_call == []  # two previews, no backend built
    assert built == [server.kind]  # the call builds it, once
    notice = first.notice
    assert (notice.backend, notice.host, notice.model) == named
    assert notice.host == server.host and notice.model == "scripted-model"
    assert again.notice.token == notice.token
    assert draft.to_dict()["fields"]["finding"]["value"] == "Artesunate cleared parasites faster"
    assert len(server.requests) == 1


def test_a_preview_without_a_model_says_so_before_anything_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settings' checks are the backend's: no model configured, a model without its
    key, a key's base URL in plain http off loopback — each refused as before
    (AssistUnavailable / ConfigError), nothing built."""
    from litdesk import Settings
    from litdesk._errors import ConfigError
    from litdesk.services.assist import AssistUnavailable

    def refuse(kind: str, **kw: Any) -> Any:
        raise AssertionError("a preview built a backend")

    monkeypatch.setattr(call_module, "make_backend", refuse)
    none = Settings(data_dir=tmp_path / "a", llm_backend="none")
    with pytest.raises(AssistUnavailable):
        call_module.assist_target(none, "generation")
    keyless = Settings(data_dir=tmp_path / "b", llm_backend="anthropic", chat_model="m")
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        call_module.assist_target(keyless, "generation")
    plain_http = Settings(
        data_dir=tmp_path / "c", llm_backend="anthropic", chat_model="m",
        anthropic_api_key="sk-ant-not-real", anthropic_base_url="http://example.org/v1",
    )  # fmt: skip
    with pytest.raises(ConfigError, match="https, or http on loopback"):
        call_module.assist_target(plain_http, "chat")
