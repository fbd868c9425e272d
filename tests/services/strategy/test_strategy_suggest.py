"""Strategy suggestion over both wire protocols (scripted servers on loopback): consent
bound to the exact question, strict parsing of adversarial answers, nothing kept on a
refusal, every call counted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests._model_servers import Scripted, ScriptedModelServer, assist_settings, user_payload

from litdesk.adapters.store import assist_usage, open_store
from litdesk.core.assist import AnswerRefused, ConsentRequired
from litdesk.core.strategy import StrategyInputError, SuggestionRefused, build_query
from litdesk.services.assist import Assistant
from litdesk.services.assist._strategy import suggest_strategy, suggestion_notice

QUESTION = "Does the R21 malaria vaccine protect young children in Africa?"
GOOD = {
    "groups": [
        {"label": "Vaccine", "terms": ["R21", "R21/Matrix-M", "malaria vaccine"]},
        {"label": "Population", "terms": ["children", "infants", "Children"]},
    ]
}


@pytest.fixture
def server(model_server_fixture: ScriptedModelServer) -> ScriptedModelServer:
    return model_server_fixture


@pytest.fixture
def assistant(model_server_fixture: ScriptedModelServer, tmp_path: Path) -> Iterator[Assistant]:
    settings = assist_settings(model_server_fixture, tmp_path / "data")
    store = open_store(settings)
    with Assistant(store, settings) as a:
        yield a
    store.dispose()


def _suggest(a: Assistant, question: str = QUESTION):  # type: ignore[no-untyped-def]
    token = suggestion_notice(a, question).token
    return asyncio.run(suggest_strategy(a, question, owner="local", consent=token))


def test_good_answer_is_kept_unverified_and_the_question_is_sent_as_data(
    assistant: Assistant, server: ScriptedModelServer
) -> None:
    server.script(Scripted(json.dumps(GOOD)))
    view = _suggest(
        assistant, "  Does the R21 malaria vaccine\nprotect young children in Africa?  "
    )
    data = view.to_dict()
    assert [g["terms"] for g in data["groups"]] == [
        ["R21", "R21/Matrix-M", "malaria vaccine"],
        ["children", "infants"],
    ]
    assert data["removed_duplicates"] == ["Children"]
    assert data["warning"].startswith("AI terms are unverified")
    assert data["record"]["model"] and data["record"]["host"] == server.host
    (seen,) = server.requests
    assert user_payload(seen.body) == {"researchQuestion": QUESTION}  # whitespace collapsed
    assert build_query(view.suggestion.groups).query.startswith('("R21" OR')


def test_consent_is_bound_to_the_exact_question(
    assistant: Assistant, server: ScriptedModelServer
) -> None:
    token = suggestion_notice(assistant, QUESTION).token
    with pytest.raises(ConsentRequired) as info:
        asyncio.run(
            suggest_strategy(assistant, QUESTION + " In adults?", owner="local", consent=token)
        )
    assert info.value.code == "consent_stale"
    with pytest.raises(ConsentRequired):
        asyncio.run(suggest_strategy(assistant, QUESTION, owner="local", consent=None))
    with pytest.raises(StrategyInputError):
        suggestion_notice(assistant, "x" * 2_001)
    assert server.requests == []  # nothing was sent


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (
            Scripted(json.dumps({"groups": [{"label": "A", "terms": ["malaria AND vaccine"]}]})),
            SuggestionRefused,
        ),
        (
            Scripted(json.dumps({"groups": [{"label": "A", "terms": ['"malaria"', "(x)"]}]})),
            SuggestionRefused,
        ),
        (Scripted(json.dumps(GOOD | {"note": "verified by experts"})), SuggestionRefused),
        (
            Scripted(json.dumps({"groups": [{"label": "A", "terms": ["x"], "why": "y"}]})),
            SuggestionRefused,
        ),
        (
            Scripted(json.dumps({"groups": [{"label": "A", "terms": ["ok\u0000"]}]})),
            SuggestionRefused,
        ),
        (
            Scripted(
                json.dumps({"groups": [{"label": "A", "terms": [f"t{i}" for i in range(9)]}]})
            ),
            SuggestionRefused,
        ),
        (Scripted("Sure! Here are some concepts: malaria, vaccine."), AnswerRefused),
        (Scripted("", thinking="let me think about concepts…", stop="length"), AnswerRefused),
        (Scripted(json.dumps(GOOD)[:40], stop="length"), AnswerRefused),
        (Scripted(None, refusal="I can't help with that."), AnswerRefused),
        (Scripted("", stop="refusal"), AnswerRefused),
        (Scripted(json.dumps(GOOD, indent=2_000)), AnswerRefused),
        (Scripted(json.dumps(GOOD) + " trailing words"), AnswerRefused),
        (Scripted('{"groups": [], "groups": []}'), AnswerRefused),
    ],
)
def test_adversarial_answers_are_refused_and_counted(
    assistant: Assistant, server: ScriptedModelServer, answer: Scripted, error: type[Exception]
) -> None:
    server.script(answer)
    with pytest.raises(error):
        _suggest(assistant)
    assert len(server.requests) == 1  # one call, no retry
    today = datetime.now(UTC).date().isoformat()
    assert sum(assist_usage(assistant.store, today)["local"].values()) == 1  # it counts


def test_thinking_is_not_parsed_only_the_answer(
    assistant: Assistant, server: ScriptedModelServer
) -> None:
    server.script(Scripted(json.dumps(GOOD), thinking='{"groups": "not this"}'))
    view = _suggest(assistant)
    assert len(view.suggestion.groups) == 2
