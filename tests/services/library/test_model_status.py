"""The model status against loopback servers speaking Ollama's and the OpenAI API's wire
formats: a model pulled or not, a server down, a key refused; the options named; the key
sent only to its own server and never shown."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import SecretStr

from litdesk import Settings
from litdesk.services.library import model_status

KEY = "sk-loopback-secret-123456"


class Models:
    def __init__(self) -> None:
        self.auth: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                outer.auth.append(self.headers.get("authorization"))
                if self.path == "/api/tags":
                    body = {"models": [{"name": "llama3.1:8b"}, {"name": "qwen3:latest"}]}
                    status = 200
                elif self.path == "/v1/models":
                    if self.headers.get("authorization") not in (None, f"Bearer {KEY}"):
                        status, body = 401, {"error": "bad key"}
                    else:
                        status, body = 200, {"data": [{"id": "qwen3"}, {"id": "llama3.1:8b"}]}
                else:
                    status, body = 404, {}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def models() -> Iterator[Models]:
    m = Models()
    try:
        yield m
    finally:
        m.server.shutdown()
        m.server.server_close()


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def _roles(settings: Settings) -> dict[str, Any]:
    return {r["role"]: r for r in model_status(settings, check=True).to_dict()["roles"]}


def test_defaults_need_nothing_reachable(tmp_settings: Settings) -> None:
    status = model_status(tmp_settings, check=True)
    roles = {r.role: r for r in status.roles}
    assert status.ready and roles["embedder"].backend == "wordllama+use-m3"
    assert roles["chat"].model == "extractive" and roles["chat"].options == []


def test_ollama_embedder_not_pulled_and_chat_model_listed(
    tmp_settings: Settings, models: Models
) -> None:
    s = tmp_settings.model_copy(
        update={
            "embedder": "ollama:nomic-embed-text",
            "llm_backend": "openai",
            "chat_model": "qwen3",
            "openai_base_url": models.base + "/v1",
        }
    )
    roles = _roles(s)
    emb, chat = roles["embedder"], roles["chat"]
    assert emb["reachable"] is True and emb["ready"] is False
    assert emb["options"][0] == "ollama pull nomic-embed-text"
    assert chat["reachable"] and chat["ready"] and chat["options"] == []
    assert models.auth == [None, None]  # no key configured: none sent


def test_servers_down_and_a_refused_key_name_the_options(
    tmp_settings: Settings, models: Models
) -> None:
    down = tmp_settings.model_copy(
        update={
            "embedder": "ollama:nomic-embed-text",
            "llm_backend": "openai",
            "chat_model": "qwen3",
            "openai_base_url": _closed_port() + "/v1",
        }
    )
    roles = _roles(down)
    assert roles["embedder"]["reachable"] is False
    assert "ollama pull nomic-embed-text" in roles["embedder"]["options"][0]
    chat = roles["chat"]
    assert chat["reachable"] is False and chat["ready"] is False
    assert chat["options"][0] == "ollama pull qwen3 (with a local Ollama)"
    assert any("Anthropic key" in o for o in chat["options"])
    assert any(o.startswith("extractive mode") for o in chat["options"])

    wrong = tmp_settings.model_copy(
        update={
            "llm_backend": "openai",
            "chat_model": "qwen3",
            "openai_base_url": models.base + "/v1",
            "openai_api_key": SecretStr("sk-wrong-key-000000"),
        }
    )
    chat = _roles(wrong)["chat"]
    assert chat["reachable"] and not chat["ready"] and "refused the API key" in chat["detail"]
    right = wrong.model_copy(update={"openai_api_key": SecretStr(KEY)})
    text = json.dumps(model_status(right, check=True).to_dict())
    assert KEY not in text and "sk-wrong" not in text
    assert models.auth[-1] == f"Bearer {KEY}"  # sent to its own server only


def test_anthropic_without_a_key_and_unchecked_status(tmp_settings: Settings) -> None:
    s = tmp_settings.model_copy(update={"llm_backend": "anthropic", "chat_model": "claude-x"})
    chat = _roles(s)["chat"]
    assert chat["ready"] is False and chat["detail"] == "no Anthropic API key is set"
    unchecked = model_status(
        s.model_copy(update={"llm_backend": "openai", "chat_model": "q"}), check=False
    )
    assert unchecked.roles[1].reachable is None and unchecked.roles[1].detail == "not checked yet"
