"""The report wizard's "answer in the chat only" and "page labels" through the real app on
loopback (the scripted model server answers): the JSON and the form land the questions in
this browser's paper chat as rounds, no report is built; a summary with it is refused in
plain words; a report built with German page labels is served in German."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests._shots import shoot
from tests.faces.web._pdfchat import Site, follow_chat_job, serve_site
from tests.faces.web.test_pdf_chat import wait_for_job

PAPERS = ["gauge.pdf", "wheat.pdf"]
QUESTIONS = ["How was the staff gauge read?", "What happened to the grain yield?"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Iterator[Site]:
    yield from serve_site(tmp_path_factory, fixtures_dir)


def _reports(site: Site) -> list[Path]:
    return sorted(site.data_dir.rglob("*_synthesis_report_*.html"))


def test_the_wizard_offers_both_choices(site: Site) -> None:
    with site.writer() as c:
        page = c.get("/reports/new").text
        assert 'id="tab-output"' in page and ">HTML</button>" in page
        assert 'name="output" value="html" checked' in page
        assert 'name="output" value="chat"' in page and "Answer in the chat only" in page
        assert '<label for="labels">Page labels' in page
        for code, name in (("en", "English"), ("de", "Deutsch"), ("fr", "Français"),
                           ("es", "Español")):  # fmt: skip
            assert re.search(rf'<option value="{code}"[^>]*>{name}</option>', page), code
        assert re.search(r'<option value="en" selected>English', page)


def test_answer_in_the_chat_only_through_the_json_api(site: Site) -> None:
    before = _reports(site)
    with site.writer() as c:
        body = {"papers": PAPERS, "questions": QUESTIONS, "output": "chat"}
        plan = c.post("/api/v1/reports/plan", json=body).json()
        assert plan["units"] == 2 and any("chat only" in n for n in plan["notes"])
        queued = c.post("/api/v1/reports/build", json=body)
        assert queued.status_code == 202, queued.text
        job = queued.json()
        assert job["output"] == "chat" and job["page"] == "/chat"
        assert job["questions"] == QUESTIONS
        done = follow_chat_job(c, job["id"])
        assert done["state"] == "done" and done["round"] == 2, done
        chat = c.get("/api/v1/chat").json()
        assert chat["scope"] == {"papers": PAPERS, "whole_library": False}
        assert [r["question"] for r in chat["rounds"]] == QUESTIONS
        gauge = chat["rounds"][0]
        assert gauge["grounded"] and gauge["model"] == "scripted-model"
        cite = gauge["citations"][0]
        assert cite["file"] == "gauge.pdf" and cite["page"] == 2  # page-exact
        assert cite["viewer"].startswith("/library/pdf/")
        page = c.get("/chat").text
        assert all(q in page for q in QUESTIONS) and 'class="card answer-card"' in page
        assert c.get("/api/v1/reports").json()["reports"] == []  # nothing built
    assert _reports(site) == before  # no HTML file


def test_the_form_lands_on_the_chat_page_and_a_summary_is_refused(site: Site) -> None:
    with site.writer() as c:
        token = c.headers.pop("x-csrf-token")
        form = {
            "csrf_token": token, "scope": "papers", "papers": ["wheat.pdf"],
            "questions": "What reduced the grain yield?\n\nWhat was measured?",
            "summary": "none", "output": "chat", "labels": "en",
        }  # fmt: skip
        sent = c.post("/reports/build", data=form)
        assert sent.status_code == 303, sent.text
        assert re.fullmatch(r"/chat#job-[0-9a-f]{32}", sent.headers["location"])
        job_id = sent.headers["location"].rsplit("-", 1)[1]
        page = c.get("/chat").text
        if f'data-job="{job_id}"' in page:  # in flight: both questions named
            assert "Answering 2 questions" in page and "What was measured?" in page
        deadline = time.monotonic() + 120
        while f'data-job="{job_id}"' in page:  # without JavaScript: look again
            assert time.monotonic() < deadline
            time.sleep(0.2)
            page = c.get("/chat").text
        assert "What reduced the grain yield?" in page and "What was measured?" in page
        assert "Now asking: wheat.pdf" in page
        refused = c.post("/reports/build", data=form | {"summary": "bullets"})
        assert refused.status_code == 400
        assert "A summary needs the HTML report" in refused.text
        assert "ReportInputError" not in refused.text
        plan = c.post(
            "/api/v1/reports/plan",
            json={"papers": PAPERS, "questions": QUESTIONS, "output": "chat", "synthesis": True},
            headers={"x-csrf-token": token},
        )
        assert plan.status_code == 400 and plan.json()["code"] == "chat_only"
        assert "A synthesis needs the HTML report" in plan.json()["message"]
        no_csrf = c.post(
            "/reports/build", data={k: v for k, v in form.items() if k != "csrf_token"}
        )
        assert no_csrf.status_code == 403


def test_a_report_with_german_page_labels(site: Site) -> None:
    with site.writer() as c:
        body = {"papers": ["gauge.pdf"], "questions": QUESTIONS[:1], "labels": "de"}
        job = wait_for_job(c, c.post("/api/v1/reports/build", json=body).json()["id"])
        assert job["status"] == "done", job
        html = c.get(job["result"]["open"]).text
        assert '<html lang="de">' in html and ">Fragen<" in html and ">Über diesen Bericht<" in html
        assert ">Questions<" not in html and "About this report" not in html
        bad = c.post("/api/v1/reports/build", json=body | {"labels": "Klingon"})
        assert bad.status_code == 400 and bad.json()["code"] == "labels"
        assert "English (en), Deutsch (de), Français (fr), Español (es)" in bad.json()["message"]


@pytest.mark.slow
def test_the_wizard_in_the_browser_answers_in_the_chat(browser: Any, site: Site) -> None:
    """Chromium: the two new choices (screenshots), a summary chosen with the chat said
    plainly before it runs, then the questions answered as chat rounds on the chat page."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(site.base + "/reports/new")
    page.check("input[name=scope][value=papers]")
    for name in PAPERS:
        page.check(f"input[name=papers][value='{name}']")
    page.click("#tab-questions")
    page.fill("#questions", "\n".join(QUESTIONS))
    page.click("#tab-language")
    page.select_option("#labels", "de")
    expect(page.locator("#labels")).to_have_value("de")
    shoot(page, "wizard-page-labels.png")
    page.click("#tab-output")
    expect(page.locator("#build")).to_have_text("Build the report")
    page.check("input[name=output][value=chat]")
    expect(page.locator("#build")).to_have_text("Ask in the chat")
    expect(page.locator("#plan-notes")).to_contain_text("answered in the chat only")
    shoot(page, "wizard-answer-in-chat.png")
    page.click("#tab-summary")
    page.check("input[name=summary][value=bullets]")
    expect(page.locator("#plan-notes")).to_contain_text("A summary needs the HTML report")
    shoot(page, "wizard-chat-with-summary.png")
    page.check("input[name=summary][value=none]")
    expect(page.locator("#plan-notes")).not_to_contain_text("needs the HTML report")
    page.click("#build")
    expect(page).to_have_url(re.compile(r"/chat(\?round=\d+)?#(job|round)-"), timeout=120_000)
    expect(page.locator("article.answer-card")).to_have_count(2, timeout=120_000)
    for question in QUESTIONS:
        expect(page.locator("article.answer-card", has_text=question)).to_have_count(1)
    shoot(page, "chat-after-wizard.png", full_page=True)
    # the plan refused the summary with the chat (400, said in the wizard): nothing else
    assert [p for p in problems if "status of 400" not in p] == [], problems
    context.close()
