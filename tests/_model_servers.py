"""Scripted model servers on loopback (real HTTP, real wire formats) for AI-assistance tests.

* ``ScriptedModelServer("openai")`` — an OpenAI-compatible ``POST /v1/chat/completions``
  (what Ollama, llama.cpp and vLLM speak); litdesk's ``OpenAICompatBackend`` talks to it
  through the official ``openai`` SDK with ``base_url``.
* ``ScriptedModelServer("anthropic")`` — the Anthropic Messages ``POST /v1/messages``;
  ``AnthropicBackend`` talks to it through the official ``anthropic`` SDK with an explicit
  loopback base URL.

Each answer is a :class:`Scripted` (visible text, stop kind, hidden reasoning, refusal,
HTTP status, a delay or a gate to hold the reply), given as a queue (``script``) or as a
function of the request body (``respond_with``) — so a test can quote the paper text it
was sent, or fabricate a quote. Every request is recorded (path, headers, JSON body).

Use :func:`model_server` as a context manager, or the ``model_server`` fixture (both wire
protocols), and :func:`assist_settings` for settings pointing litdesk at the server.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

__all__ = [
    "SECRET_ANTHROPIC_KEY",
    "SECRET_OPENAI_KEY",
    "Kind",
    "Scripted",
    "ScriptedModelServer",
    "SeenRequest",
    "assist_settings",
    "model_server",
    "model_server_fixture",
    "user_payload",
]

Kind = Literal["openai", "anthropic"]
Stop = Literal["end", "length", "refusal"]
SECRET_ANTHROPIC_KEY = "sk-ant-TESTSECRET-4f1c9a77e2d0b6"
SECRET_OPENAI_KEY = "sk-openai-TESTSECRET-91be02d7"


@dataclass(frozen=True, slots=True)
class Scripted:
    """One scripted answer, independent of the wire protocol."""

    text: str | None = ""
    stop: Stop = "end"
    thinking: str | None = None  # hidden reasoning (thinking block / reasoning_content)
    think_tags: bool = False  # openai: put the reasoning inline as <think>…</think>
    refusal: str | None = None  # openai: message.refusal
    status: int = 200
    error_body: dict[str, Any] | None = None
    delay: float = 0.0
    gate: threading.Event | None = None  # hold the reply until set (cancellation tests)


@dataclass(frozen=True, slots=True)
class SeenRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class _State:
    kind: Kind
    queue: deque[Scripted] = field(default_factory=deque)
    respond: Callable[[dict[str, Any]], Scripted] | None = None
    seen: list[SeenRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    max_in_flight: int = 0


def _openai_payload(s: Scripted, model: str) -> dict[str, Any]:
    content = s.text
    if s.think_tags and s.thinking:
        content = f"<think>{s.thinking}</think>{s.text or ''}"
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if s.thinking and not s.think_tags:
        message["reasoning_content"] = s.thinking
    if s.refusal is not None:
        message["refusal"] = s.refusal
    finish = {"end": "stop", "length": "length", "refusal": "content_filter"}[s.stop]
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
    }


def _anthropic_payload(s: Scripted, model: str) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    if s.thinking is not None:
        blocks.append({"type": "thinking", "thinking": s.thinking, "signature": "c2lnbmF0dXJl"})
    if s.text:
        blocks.append({"type": "text", "text": s.text})
    stop = {"end": "end_turn", "length": "max_tokens", "refusal": "refusal"}[s.stop]
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 50},
    }


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    path_ok = "/v1/chat/completions" if state.kind == "openai" else "/v1/messages"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            with state.lock:
                state.seen.append(SeenRequest(self.path, dict(self.headers.items()), body))
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
                if state.respond is not None:
                    scripted: Scripted | None = None
                elif state.queue:
                    scripted = state.queue.popleft()
                else:
                    scripted = Scripted(status=500, error_body={"error": "script exhausted"})
            try:
                if scripted is None:
                    assert state.respond is not None
                    scripted = state.respond(body)
                if self.path.split("?")[0] != path_ok:
                    scripted = Scripted(status=404, error_body={"error": "no such path"})
                if scripted.gate is not None:
                    scripted.gate.wait(30)
                if scripted.delay:
                    time.sleep(scripted.delay)
                model = str(body.get("model", "scripted-model"))
                if scripted.status != 200:
                    payload = scripted.error_body or {
                        "type": "error",
                        "error": {"type": "api_error", "message": "scripted failure"},
                    }
                elif state.kind == "openai":
                    payload = _openai_payload(scripted, model)
                else:
                    payload = _anthropic_payload(scripted, model)
                data = json.dumps(payload).encode()
                self.send_response(scripted.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)  # the client may have gone (a cancelled call)
            finally:
                with state.lock:
                    state.in_flight -= 1

        def log_message(self, *args: object) -> None:
            pass

    return Handler


class ScriptedModelServer:
    """A loopback model server of one wire protocol (start with :func:`model_server`)."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self._state = _State(kind)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self._state))
        self._httpd.daemon_threads = True
        # shutdown() waits for serve_forever's next poll: 0.05 s, not the default 0.5 s, per
        # server stopped (one a test: ~0.45 s of wall each, issue 26)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What litdesk is configured with (the SDKs append their paths)."""
        root = f"http://127.0.0.1:{self.port}"
        return root + "/v1" if self.kind == "openai" else root

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def script(self, *answers: Scripted) -> None:
        """Answer the next requests with ``answers``, in order."""
        with self._state.lock:
            self._state.respond = None
            self._state.queue.extend(answers)

    def respond_with(self, fn: Callable[[dict[str, Any]], Scripted]) -> None:
        """Answer every request with ``fn(request body)``."""
        with self._state.lock:
            self._state.respond = fn
            self._state.queue.clear()

    @property
    def requests(self) -> list[SeenRequest]:
        with self._state.lock:
            return list(self._state.seen)

    @property
    def max_in_flight(self) -> int:
        return self._state.max_in_flight

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@contextmanager
def model_server(kind: Kind) -> Iterator[ScriptedModelServer]:
    server = ScriptedModelServer(kind)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["openai", "anthropic"])
def model_server_fixture(request: pytest.FixtureRequest) -> Iterator[ScriptedModelServer]:
    """A scripted server of each wire protocol in turn."""
    with model_server(request.param) as server:
        yield server


def assist_settings(server: ScriptedModelServer, data_dir: Path, **extra: Any) -> Any:
    """Settings pointing litdesk's generation and chat roles at ``server`` (secret keys
    set, spacing 0 unless given); a SQLite store of theirs not made yet is a copy of the
    migrated template (``tests/_store_template.py``)."""
    from litdesk import Settings
    from tests._store_template import ensure_sqlite_at_head

    values: dict[str, Any] = {
        "data_dir": data_dir,
        "llm_backend": server.kind,
        "chat_model": "scripted-model",
        "assist_spacing_seconds": 0,
    }
    if server.kind == "openai":
        values["openai_base_url"] = server.base_url
        values["openai_api_key"] = SECRET_OPENAI_KEY
    else:
        values["anthropic_base_url"] = server.base_url
        values["anthropic_api_key"] = SECRET_ANTHROPIC_KEY
    values.update(extra)
    settings = Settings(**values)
    # its store at the newest migration (a copy of the template), unless one is there
    ensure_sqlite_at_head(settings.resolved_database_url())
    return settings


def user_payload(body: dict[str, Any]) -> Any:
    """The JSON user message litdesk sent (either wire protocol)."""
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content)
            return json.loads(content)
    raise AssertionError("no user message in the request")
