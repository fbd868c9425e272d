"""The guarded model call over real loopback HTTP (both wire protocols, official SDKs):
consent, allowance (counting, release, spacing, in flight, fail closed), model
behaviour (thinking, length stop, refusal, hidden reasoning only) and credentials."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests._model_servers import (
    SECRET_ANTHROPIC_KEY,
    SECRET_OPENAI_KEY,
    Scripted,
    ScriptedModelServer,
    assist_settings,
    model_server,
)

from litdesk._errors import ConfigError, InputError
from litdesk.adapters.llm import AnthropicBackend, check_anthropic_base_url
from litdesk.adapters.store import allowance_owner, assist_usage, open_store
from litdesk.core.assist import AnswerRefused, ConsentRequired
from litdesk.services.assist import (
    AllowanceRefused,
    Assistant,
    AssistUnavailable,
    ModelCall,
    assist_backend,
)

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}

ANN = allowance_owner("ann")  # the allowance is kept under the hash of the account id


def _call(user: str = '{"blocks": ["some paper text"]}') -> ModelCall:
    return ModelCall("test", "rules", user, SCHEMA, "answer", 500, 10_000)


@pytest.fixture
def made() -> Iterator[list[Assistant]]:
    out: list[Assistant] = []
    yield out
    for a in out:
        a.close()
        a.store.dispose()


@pytest.fixture
def make(made, tmp_path):
    def _make(server: ScriptedModelServer, where: Path | None = None, **extra) -> Assistant:
        settings = assist_settings(server, (where or tmp_path) / "data", **extra)
        a = Assistant(open_store(settings), settings)
        made.append(a)
        return a

    return _make


def _today(a: Assistant) -> dict[str, dict[str, int]]:
    from datetime import UTC, datetime

    return assist_usage(a.store, datetime.now(UTC).date().isoformat())


def test_consent_required_before_anything_is_sent(model_server_fixture, tmp_path, make):
    server = model_server_fixture
    a = make(server)
    with pytest.raises(ConsentRequired) as err:
        asyncio.run(a.call(_call(), owner="ann", consent=None))
    assert server.host in err.value.message  # the notice names the host
    other = a.notice(_call("different text").user).token
    with pytest.raises(ConsentRequired) as stale:
        asyncio.run(a.call(_call(), owner="ann", consent=other))
    assert stale.value.code == "consent_stale"
    assert server.requests == [] and _today(a) == {}


def test_answer_text_only_thinking_is_set_aside(model_server_fixture, tmp_path, make):
    server = model_server_fixture
    a = make(server, thinking="low")
    server.script(Scripted('{"answer": "ok"}', thinking="let me think {not json"))
    notice = a.notice(_call().user)
    assert notice.local and notice.host == server.host
    answer = asyncio.run(a.call(_call(), owner="ann", consent=notice.token))
    assert json.loads(answer.text) == {"answer": "ok"}
    assert answer.record.reasoning is True
    assert answer.record.host == server.host and answer.record.model
    sent = server.requests[0].body
    if server.kind == "anthropic":
        assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert sent["output_config"]["format"]["schema"] == SCHEMA
        assert sent["max_tokens"] == 500 + 2048
    else:
        assert sent["response_format"]["json_schema"]["schema"] == SCHEMA
        assert sent["reasoning_effort"] == "low"
    assert _today(a) == {ANN: {"ok": 1}}


def test_think_tags_inline_are_removed(tmp_path, make):
    with model_server("openai") as server:
        a = make(server)
        server.script(Scripted('{"answer": "x"}', thinking="{bad", think_tags=True))
        answer = asyncio.run(a.call(_call(), owner="o", consent=a.notice(_call().user).token))
        assert answer.text == '{"answer": "x"}' and answer.record.reasoning


@pytest.mark.parametrize(
    ("scripted", "code"),
    [
        (Scripted('{"answer": "trunc', stop="length"), "length_stop"),
        (Scripted("", stop="length", thinking="thinking all along"), "hidden_reasoning_only"),
        (Scripted("", thinking="thought, then nothing"), "hidden_reasoning_only"),
        (Scripted("", stop="refusal"), "model_refusal"),
        (Scripted("", stop="end"), "empty_answer"),
    ],
)
def test_unusable_answers_are_refused_and_counted(
    model_server_fixture, tmp_path, scripted, code, make
):
    server = model_server_fixture
    a = make(server)
    server.script(scripted)
    with pytest.raises(AnswerRefused) as err:
        asyncio.run(a.call(_call(), owner="ann", consent=a.notice(_call().user).token))
    assert err.value.code == code
    if code == "hidden_reasoning_only":
        assert "only hidden reasoning" in err.value.message
    assert _today(a) == {ANN: {"failed": 1}}  # failed calls count


def test_openai_refusal_field(tmp_path, make):
    with model_server("openai") as server:
        a = make(server)
        server.script(Scripted('{"answer": "x"}', refusal="I can't help with that"))
        with pytest.raises(AnswerRefused) as err:
            asyncio.run(a.call(_call(), owner="o", consent=a.notice(_call().user).token))
        assert err.value.code == "model_refusal"


def test_http_error_counts_and_no_retry(model_server_fixture, tmp_path, make):
    server = model_server_fixture
    a = make(server)
    server.script(Scripted(status=529), Scripted('{"answer": "never"}'))
    from litdesk.adapters.llm import ModelError

    with pytest.raises(ModelError) as err:
        asyncio.run(a.call(_call(), owner="ann", consent=a.notice(_call().user).token))
    assert "529" in err.value.message
    assert len(server.requests) == 1  # no automatic retry
    assert _today(a) == {ANN: {"failed": 1}}


def test_allowances_per_owner_total_and_spacing(tmp_path, make):
    with model_server("openai") as server:
        a = make(server, assist_daily_requests=3, assist_owner_daily_requests=2)
        server.respond_with(lambda body: Scripted('{"answer": "ok"}'))
        token = a.notice(_call().user).token

        def go(owner: str) -> str:
            try:
                asyncio.run(a.call(_call(), owner=owner, consent=token))
            except AllowanceRefused as exc:
                return exc.code
            return "ok"

        assert [go("ann"), go("ann"), go("ann")] == ["ok", "ok", "owner_daily_limit"]
        assert [go("bob"), go("bob")] == ["ok", "daily_limit"]
        assert len(server.requests) == 3
        spaced = make(server, tmp_path / "b", assist_spacing_seconds=600)
        asyncio.run(spaced.call(_call(), owner="cat", consent=token))
        with pytest.raises(AllowanceRefused) as soon:
            asyncio.run(spaced.call(_call(), owner="cat", consent=token))
        assert soon.value.code == "too_soon" and soon.value.details["retry_after"] > 500


def test_the_allowance_s_spacing_and_utc_day_follow_the_assistant_s_clock(tmp_path):
    """Spacing and the daily allowance are judged on the clock the assistant was given: the
    spacing passes and a new UTC day starts when that clock says so, without waiting."""
    from datetime import UTC, datetime

    from litdesk import ManualClock

    clock = ManualClock(datetime(2031, 3, 1, 23, 40, tzinfo=UTC))
    with model_server("openai") as server:
        settings = assist_settings(
            server, tmp_path / "data", assist_owner_daily_requests=2, assist_spacing_seconds=300
        )
        server.respond_with(lambda body: Scripted('{"answer": "ok"}'))
        store = open_store(settings)
        with Assistant(store, settings, clock=clock) as a:
            token = a.notice(_call().user).token

            def go() -> str:
                try:
                    asyncio.run(a.call(_call(), owner="ann", consent=token))
                except AllowanceRefused as exc:
                    return exc.code
                return "ok"

            assert go() == "ok"
            clock.advance(299)
            assert go() == "too_soon"
            clock.advance(2)  # 23:45:01
            assert go() == "ok"
            clock.advance(301)
            assert go() == "owner_daily_limit"  # two today already (23:50:02, UTC)
            clock.advance(600)  # 00:00:02 on 2 March: a new day
            assert go() == "ok"
            assert assist_usage(store, "2031-03-01") == {allowance_owner("ann"): {"ok": 2}}
            assert assist_usage(store, "2031-03-02") == {allowance_owner("ann"): {"ok": 1}}
            assert len(server.requests) == 3
        store.dispose()


def test_refused_preflight_releases_the_reservation(tmp_path, make):
    with model_server("openai") as server:
        a = make(server, assist_daily_requests=1, assist_spacing_seconds=600)
        token = a.notice(_call().user).token

        def refuse() -> None:
            raise InputError("a later check refuses", code="later")

        with pytest.raises(InputError):
            asyncio.run(a.call(_call(), owner="ann", consent=token, preflight=refuse))
        assert _today(a) == {} and server.requests == []
        server.script(Scripted('{"answer": "ok"}'))  # the one daily call is still there,
        asyncio.run(a.call(_call(), owner="ann", consent=token))  # and no spacing was taken
        assert _today(a) == {ANN: {"ok": 1}}


def test_one_call_in_flight_per_owner_and_cancel_counts(tmp_path, make):
    with model_server("openai") as server:
        a = make(server)
        gate = threading.Event()
        server.script(Scripted('{"answer": "slow"}', gate=gate))
        token = a.notice(_call().user).token

        async def scenario() -> str:
            first = asyncio.create_task(a.call(_call(), owner="ann", consent=token))
            while not server.requests:
                await asyncio.sleep(0.01)
            try:
                await a.call(_call(), owner="ann", consent=token)
            except AllowanceRefused as exc:
                code = exc.code
            first.cancel()
            with pytest.raises(asyncio.CancelledError):
                await first
            gate.set()  # the server answers later; nobody is listening any more
            return code

        assert asyncio.run(scenario()) == "in_flight"
        assert _today(a) == {ANN: {"cancelled": 1}}  # a cancelled call counts


def test_store_unreadable_fails_closed(tmp_path, make):
    with model_server("openai") as server:
        a = make(server)
        with a.store.write() as conn:
            conn.execute(sa.text("DROP TABLE assist_calls"))
        with pytest.raises(AllowanceRefused) as err:
            asyncio.run(a.call(_call(), owner="ann", consent=a.notice(_call().user).token))
        assert err.value.code == "store_unavailable"
        assert server.requests == []


def test_no_backend_is_unavailable(tmp_settings):
    with pytest.raises(AssistUnavailable):
        assist_backend(tmp_settings, "generation")


def test_generation_role_has_its_own_backend(tmp_path):
    with model_server("openai") as chat, model_server("anthropic") as gen:
        settings = assist_settings(
            chat,
            tmp_path,
            generation_backend="anthropic",
            generation_model="gen-model",
            anthropic_base_url=gen.base_url,
            anthropic_api_key=SECRET_ANTHROPIC_KEY,
        )
        c = assist_backend(settings, "chat")
        g = assist_backend(settings, "generation")
        assert c.host == chat.host
        assert (g.name, g.host, g.model) == ("anthropic", gen.host, "gen-model")
        for b in (c, g):
            b.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "url",
    ["http://api.example.com", "ftp://127.0.0.1", "http://10.0.0.5:8080", "https://u:p@x.com"],
)
def test_anthropic_base_url_refused(url: str):
    with pytest.raises(ConfigError) as err:
        check_anthropic_base_url(url)
    assert "p@" not in err.value.message


def test_anthropic_key_never_follows_environment_base_url(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://attacker.example")
    backend = AnthropicBackend(api_key=SECRET_ANTHROPIC_KEY, model="m")
    assert backend.host == "api.anthropic.com"
    backend.close()
    assert check_anthropic_base_url("https://proxy.example/v1") == "https://proxy.example/v1"


def test_credentials_never_in_logs_errors_or_store(model_server_fixture, tmp_path, caplog, make):
    server = model_server_fixture
    secret = SECRET_ANTHROPIC_KEY if server.kind == "anthropic" else SECRET_OPENAI_KEY
    a = make(server)
    token = a.notice(_call().user).token
    server.script(
        Scripted('{"answer": "ok"}'),
        Scripted(status=401, error_body={"error": {"message": f"bad key {secret}"}}),
    )
    caplog.set_level(logging.DEBUG)
    asyncio.run(a.call(_call(), owner="ann", consent=token))
    from litdesk.adapters.llm import ModelError

    with pytest.raises(ModelError) as err:
        asyncio.run(a.call(_call(), owner="ann", consent=token))
    sent = {k.lower(): v for k, v in server.requests[0].headers.items()}
    auth = sent.get("x-api-key", "") + sent.get("authorization", "")
    assert secret in auth  # it does reach its own (explicit) host
    assert secret not in err.value.message and secret not in json.dumps(err.value.to_dict())
    assert secret not in caplog.text
    assert all(secret not in str(r.args) for r in caplog.records)
    with a.store.read() as conn:
        for table in ("assist_calls", "assist_drafts", "assist_provenance"):
            rows = conn.execute(sa.text(f"SELECT * FROM {table}")).all()
            assert secret not in repr(rows)
