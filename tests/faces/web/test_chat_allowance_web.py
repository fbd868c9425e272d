"""The paper chat's model calls in the allowance, through the web face (a scripted
OpenAI-compatible model server on loopback): beyond the day's chat allowance a question
is refused with 429 and Retry-After (JSON), or the chat page again with the question kept
in its box and the reason shown (the form without JavaScript); no round is recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.faces.web._pdfchat import GERMAN, ScriptedModel, Site, serve_site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Iterator[Site]:
    yield from serve_site(tmp_path_factory, fixtures_dir, chat_daily_requests=3)


def test_a_question_beyond_the_chat_allowance_is_refused_and_kept(site: Site) -> None:
    with site.writer() as c:
        c.post("/api/v1/chat/scope", json={"papers": ["gauge.pdf", "wheat.pdf"]})
        ScriptedModel.seen.clear()
        first = c.post("/api/v1/chat/ask", json={"question": GERMAN})  # variant + answer
        assert first.status_code == 200, first.text
        assert len(ScriptedModel.seen) == 2
        refused = c.post("/api/v1/chat/ask", json={"question": "How was the gauge read?"})
        assert refused.status_code == 429, refused.text
        body = refused.json()
        assert body["error"] == "AllowanceRefused" and body["code"] == "daily_limit"
        assert "not answered" in body["message"]
        assert int(refused.headers["retry-after"]) >= 1
        assert len(ScriptedModel.seen) == 3  # the refused call never reached the model

        token = c.headers.pop("x-csrf-token")
        question = "Where was the <b>camera</b> mounted?"
        page = c.post("/chat/ask", data={"csrf_token": token, "question": question})
        assert page.status_code == 429 and "retry-after" in page.headers
        assert 'id="ask-refused"' in page.text and "allowance of 3 model calls" in page.text
        assert 'value="Where was the &lt;b&gt;camera&lt;/b&gt; mounted?"' in page.text
        assert "<b>camera</b>" not in page.text  # kept as text, never as HTML
        assert len(ScriptedModel.seen) == 3
        session = c.get("/api/v1/chat").json()
        assert session["questions"] == [GERMAN]  # the refused questions left no round
