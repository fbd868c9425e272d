"""Chat backends over a real loopback HTTP server (OpenAI-compatible and Anthropic wire)."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from litdesk._errors import ConfigError
from litdesk.adapters.llm import (
    THINKING_BUDGET,
    AnthropicBackend,
    ChatBackend,
    ChatRequest,
    HiddenReasoningOnly,
    ModelError,
    NoModelBackend,
    OpenAICompatBackend,
    close_idle_clients,
    make_backend,
    openai_tls_context,
    shared_clients,
)
from litdesk.core.library import Excerpt, check_answer


class _Server(BaseHTTPRequestHandler):
    reply: ClassVar[dict[str, Any]] = {}
    status: ClassVar[int] = 200
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization"),
             "x-api-key": self.headers.get("x-api-key"), "headers": dict(self.headers),
             "port": self.client_address[1]}
        )  # fmt: skip
        payload = json.dumps(type(self).reply).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    _Server.seen = []
    _Server.status = 200
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def _openai_reply(content: str | None, finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "local-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _anthropic_reply(blocks: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 7},
    }


def test_openai_compatible_round_trip(server: str) -> None:
    _Server.reply = _openai_reply("<think>hidden plan</think>Cameras were used [1].")
    backend = OpenAICompatBackend(base_url=server + "/v1", model="local-model", api_key="sk-secret")
    assert isinstance(backend, ChatBackend)
    reply = backend.complete(ChatRequest("rule", "question", max_tokens=300))
    assert reply.text == "Cameras were used [1]."
    assert reply.usage == {"input": 10, "output": 5}
    sent = _Server.seen[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["max_tokens"] == 300 and "reasoning_effort" not in sent["body"]
    assert sent["body"]["messages"][0] == {"role": "system", "content": "rule"}
    assert sent["auth"] == "Bearer sk-secret"


def test_openai_thinking_adds_budget(server: str) -> None:
    _Server.reply = _openai_reply("ok [1]")
    backend = OpenAICompatBackend(base_url=server + "/v1", model="m")
    backend.complete(ChatRequest("s", "u", max_tokens=500, thinking="medium"))
    body = _Server.seen[0]["body"]
    assert body["max_tokens"] == 500 + THINKING_BUDGET["medium"] == 4596
    assert body["reasoning_effort"] == "medium"


def test_openai_hidden_reasoning_only_is_a_typed_error(server: str) -> None:
    _Server.reply = _openai_reply("<think>thinking and thinking", finish="length")
    backend = OpenAICompatBackend(base_url=server + "/v1", model="m")
    with pytest.raises(HiddenReasoningOnly, match="only hidden reasoning"):
        backend.complete(ChatRequest("s", "u", thinking="high"))


def test_openai_http_error_no_retry_no_secret(server: str) -> None:
    _Server.status = 503
    _Server.reply = {"error": {"message": "overloaded"}}
    backend = OpenAICompatBackend(base_url=server + "/v1", model="m", api_key="sk-topsecret")
    with pytest.raises(ModelError) as info:
        backend.complete(ChatRequest("s", "u"))
    assert "503" in info.value.message and "topsecret" not in info.value.message
    assert len(_Server.seen) == 1  # max_retries=0


def test_openai_unreachable_is_typed() -> None:
    backend = OpenAICompatBackend(base_url="http://127.0.0.1:9/v1", model="m", timeout=2)
    with pytest.raises(ModelError):
        backend.complete(ChatRequest("s", "u"))


def test_anthropic_sdk_round_trip_with_thinking(server: str) -> None:
    _Server.reply = _anthropic_reply(
        [
            {"type": "thinking", "thinking": "hmm", "signature": "x"},
            {"type": "text", "text": "Yes [2]."},
        ]
    )
    backend = AnthropicBackend(api_key="ak-secret", model="claude-test", base_url=server)
    reply = backend.complete(ChatRequest("rule", "q", max_tokens=1000, thinking="low"))
    assert reply.text == "Yes [2]." and reply.stop_reason == "end_turn"
    sent = _Server.seen[0]
    assert sent["path"] == "/v1/messages"
    assert sent["body"]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert sent["body"]["max_tokens"] == 3048
    assert sent["body"]["system"] == "rule"
    # the SDK sends the key as x-api-key or as a bearer token, depending on its version
    assert "ak-secret" in (sent["x-api-key"] or "") + (sent["auth"] or "")


def test_anthropic_hidden_reasoning_and_errors(server: str) -> None:
    _Server.reply = _anthropic_reply(
        [{"type": "thinking", "thinking": "long", "signature": "x"}], stop="max_tokens"
    )
    backend = AnthropicBackend(api_key="ak-secret", model="claude-test", base_url=server)
    with pytest.raises(HiddenReasoningOnly):
        backend.complete(ChatRequest("s", "u", thinking="high"))
    _Server.status = 500
    _Server.reply = {"type": "error", "error": {"type": "api_error", "message": "boom"}}
    with pytest.raises(ModelError) as info:
        backend.complete(ChatRequest("s", "u"))
    assert "ak-secret" not in str(info.value)
    assert len(_Server.seen) == 2


def test_no_model_backend_is_extractive_and_gated() -> None:
    excerpts = (
        Excerpt(1, "a.pdf", 1, "of a cut sentence. First one. Third one. Cameras were used."),
        Excerpt(2, "b.pdf", 2, "Other [7] text."),
    )
    reply = NoModelBackend().complete(ChatRequest("s", "u", excerpts, question="Which cameras?"))
    # leading fragment dropped; the sentence sharing a word with the question is kept;
    # reading order
    assert reply.text == "- First one. Cameras were used. [1]\n- Other text. [2]"
    assert check_answer(reply.text, 2).cited == (1, 2)


def test_make_backend_config_errors() -> None:
    assert make_backend("none").name == "none"
    with pytest.raises(ConfigError):
        make_backend("gpt")
    with pytest.raises(ConfigError):
        make_backend("anthropic", model="m")
    with pytest.raises(ConfigError):
        make_backend("openai")
    with pytest.raises(ConfigError):
        NoModelBackend().complete(ChatRequest("s", "u", thinking="huge"))  # type: ignore[arg-type]


class _KeepAlive(_Server):
    protocol_version = "HTTP/1.1"  # connections kept open between requests


def test_anthropic_backends_of_one_configuration_share_one_client() -> None:
    """A backend is made per AI-assistance request: they borrow one SDK client (one
    connection pool) per key, URL and timeout, so consecutive calls reuse a connection;
    closing a backend gives the client back, the shutdown closes idle clients only."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _KeepAlive)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}"
    _Server.seen, _Server.status = [], 200
    _Server.reply = _anthropic_reply([{"type": "text", "text": "Yes [1]."}])
    close_idle_clients()
    held = shared_clients()  # by the backends other tests made and did not close
    try:
        made = []
        for _ in range(3):  # one backend per request, closed after it, as the services do
            backend = AnthropicBackend(api_key="ak-one", model="claude-test", base_url=url)
            made.append(backend._client)
            assert backend.complete(ChatRequest("s", "u")).text == "Yes [1]."
            backend.close()
            backend.close()  # once only
        assert made[0] is made[1] is made[2]
        assert len({seen["port"] for seen in _Server.seen}) == 1  # one connection for all
        other = AnthropicBackend(api_key="ak-two", model="claude-test", base_url=url)
        assert other._client is not made[0] and shared_clients() == held + 2  # another key
        assert close_idle_clients() == 1  # ak-one's; ak-two's is held
        assert not other._client.is_closed() and made[0].is_closed()
        assert other.complete(ChatRequest("s", "u")).text == "Yes [1]."
        other.close()
        again = AnthropicBackend(api_key="ak-one", model="claude-test", base_url=url)
        assert again._client is not made[0] and not again._client.is_closed()  # a new one
        assert again.complete(ChatRequest("s", "u")).text == "Yes [1]."
        again.close()
    finally:
        close_idle_clients()
        srv.shutdown()
        srv.server_close()
    assert shared_clients() == held


def test_closing_an_openai_backend_under_a_running_call_lets_the_call_finish() -> None:
    """A cancelled job stops waiting for its call and closes the backend while the call
    still runs in another thread: the pool is closed when the call returns (closing it
    under the blocked read left that read hanging until the timeout), and no new call
    starts on the closed backend."""
    from tests._model_servers import Scripted, model_server

    gate = threading.Event()
    with model_server("openai") as srv:
        srv.script(Scripted("Held [1].", gate=gate))
        backend = OpenAICompatBackend(base_url=srv.base_url, model="m", timeout=60)
        got: list[str] = []
        call = threading.Thread(
            target=lambda: got.append(backend.complete(ChatRequest("s", "u")).text)
        )
        call.start()
        deadline = time.monotonic() + 10
        while not srv.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert srv.requests, "the call never reached the server"
        backend.close()  # the caller gave up; the call is still under way
        assert not backend._client.is_closed()
        with pytest.raises(ModelError, match="closed"):
            backend.complete(ChatRequest("s", "u"))
        started = time.monotonic()
        gate.set()
        call.join(10)
        assert not call.is_alive() and time.monotonic() - started < 5
        assert got == ["Held [1]."]
        assert backend._client.is_closed()
        assert len(srv.requests) == 1


def test_openai_backends_share_one_tls_context_and_keep_their_own_key(server: str) -> None:
    """A backend is made per request; each made its SDK client's TLS context anew (the CA
    bundle read again: about 35 ms of CPU). Now every OpenAI client of the process has the
    one context, made by the SDK's own HTTP library, while each keeps its key and pool."""
    _Server.seen, _Server.status = [], 200
    _Server.reply = _openai_reply("Yes [1].")
    one = OpenAICompatBackend(base_url=server + "/v1", model="m", api_key="sk-one")
    two = OpenAICompatBackend(base_url=server + "/v1", model="m", api_key="sk-two")
    try:
        pools = [b._client._client._transport._pool for b in (one, two)]
        assert pools[0] is not pools[1]  # a pool per client
        assert pools[0]._ssl_context is pools[1]._ssl_context is openai_tls_context()
        assert openai_tls_context().verify_mode == ssl.CERT_REQUIRED
        assert openai_tls_context().check_hostname
        assert one.complete(ChatRequest("s", "u")).text == "Yes [1]."
        assert two.complete(ChatRequest("s", "u")).text == "Yes [1]."
        assert [seen["auth"] for seen in _Server.seen] == ["Bearer sk-one", "Bearer sk-two"]
    finally:
        one.close()
        two.close()
