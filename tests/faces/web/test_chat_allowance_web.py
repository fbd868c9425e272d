"""The paper chat's model calls in the allowance, through the web face (a scripted
OpenAI-compatible model server on loopback): beyond the day's chat allowance a question's
job ends refused — its code, message and Retry-After seconds in the job (JSON), or the
chat page with the question back in its box and the reason shown (the form without
JavaScript); no round is recorded and the refused call never reaches the model."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.faces.web._pdfchat import GERMAN, ScriptedModel, Site, ask_chat, serve_site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Iterator[Site]:
    yield from serve_site(tmp_path_factory, fixtures_dir, chat_daily_requests=3)


def test_a_question_beyond_the_chat_allowance_is_refused_and_kept(site: Site) -> None:
    with site.writer() as c:
        c.post("/api/v1/chat/scope", json={"papers": ["gauge.pdf", "wheat.pdf"]})
        ScriptedModel.seen.clear()
        first = ask_chat(c, GERMAN)  # variant + answer
        assert first["state"] == "done" and first["round"] == 1, first
        assert len(ScriptedModel.seen) == 2
        refused = ask_chat(c, "How was the gauge read?")
        assert refused["state"] == "failed" and refused["code"] == "daily_limit", refused
        assert refused["round"] is None and refused["answer"] is None
        assert "not answered" in refused["message"]
        assert isinstance(refused["retry_after"], int) and refused["retry_after"] >= 1
        assert len(ScriptedModel.seen) == 3  # the refused call never reached the model

        token = c.headers.pop("x-csrf-token")
        question = "Where was the <b>camera</b> mounted?"
        asked = c.post("/chat/ask", data={"csrf_token": token, "question": question})
        assert asked.status_code == 303, asked.text
        deadline = time.monotonic() + 60
        page = c.get("/chat")
        while 'id="ask-refused"' not in page.text:  # in flight: look again
            assert "Answering:" in page.text and time.monotonic() < deadline
            time.sleep(0.2)
            page = c.get("/chat")
        assert "allowance of 3 model calls" in page.text
        assert 'value="Where was the &lt;b&gt;camera&lt;/b&gt; mounted?"' in page.text
        assert "<b>camera</b>" not in page.text  # kept as text, never as HTML
        assert len(ScriptedModel.seen) == 3
        session = c.get("/api/v1/chat").json()
        assert session["questions"] == [GERMAN]  # the refused questions left no round
        assert session["job"]["state"] == "failed" and session["job"]["question"] == question
