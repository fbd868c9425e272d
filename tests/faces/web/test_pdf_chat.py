"""PDF viewer and paper chat over the HTTP API of a real server on loopback: a temporary
library of small PDFs (plus real ones from ``$LITDESK_FIXTURES/pdf``) and a scripted
OpenAI-compatible model server on loopback (real HTTP)."""

from __future__ import annotations

import io
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from tests.faces.web._pdfchat import (
    GAUGE,
    GAUGE_AT,
    GERMAN,
    GERMAN_VARIANT,
    MODEL,
    REAL_PDFS,
    WEIR_QUESTION,
    ScriptedModel,
    Site,
    ask_chat,
    serve_site,
    sha,
)

from litdesk.faces.web.routes.reports import BACK_LINK, with_way_back


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Iterator[Site]:
    yield from serve_site(tmp_path_factory, fixtures_dir)


def wait_for_job(c: httpx.Client, job_id: str, timeout: float = 240) -> dict[str, Any]:
    """Poll the job until it has ended (generous: both cores may be busy)."""
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = c.get(f"/api/v1/reports/jobs/{job_id}").json()
        if job["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


def test_viewer_page_data_image_and_passage_boxes(site: Site) -> None:
    gauge = sha(site.folder / "gauge.pdf")
    with site.client() as c:
        got = c.get(f"/api/v1/library/pdf/{gauge}", params={"page": 2, "passage": GAUGE})
        assert got.status_code == 200, got.text
        view = got.json()
        assert view["file"] == "gauge.pdf" and view["pages"] == 2
        assert view["previous"] == 1 and view["next"] is None and view["found"] is True
        x, y, w, h = view["rects"][0]
        assert abs(x - GAUGE_AT[0] / 210) < 0.02 and abs(y - GAUGE_AT[1] / 297) < 0.02
        assert 0.15 < w < 0.4 and 0 < h < 0.05
        image = c.get(view["image"])
        assert image.status_code == 200 and image.headers["content-type"] == "image/jpeg"
        with Image.open(io.BytesIO(image.content)) as im:
            assert im.size == (view["width_px"], view["height_px"])
            assert abs(im.size[0] - 210 / 25.4 * 96) < 2  # 100 % zoom is 96 dpi
        renders = site.app.state.app.library.renders
        again = c.get(view["image"])
        assert again.content == image.content
        assert site.app.state.app.library.renders == renders  # served from the cache
        big = c.get(f"/api/v1/library/pdf/{gauge}", params={"page": 2, "zoom": 200}).json()
        assert big["width_px"] > 1.9 * view["width_px"] and big["rects"] == []
        # a passage not on the page: the page is shown, the failure said
        other = c.get(f"/api/v1/library/pdf/{gauge}", params={"page": 1, "passage": GAUGE})
        assert other.json()["found"] is False and other.json()["notes"]
        html = c.get(f"/library/pdf/{gauge}", params={"page": 2, "passage": GAUGE}).text
        assert 'id="page-image"' in html and 'class="pdf-mark"' in html
        assert "Previous page" in html and "not located" not in html


def test_viewer_refusals(site: Site, tmp_path: Path) -> None:
    gauge = sha(site.folder / "gauge.pdf")
    outside = tmp_path / "outside.pdf"
    shutil.copy(site.folder / "wheat.pdf", outside)
    with outside.open("ab") as fh:
        fh.write(b"\n% another file\n")
    with site.client() as c:
        unknown = c.get(f"/api/v1/library/pdf/{sha(outside)}")
        assert unknown.status_code == 404 and unknown.json()["code"] == "pdf_not_found"
        assert str(outside) not in unknown.text
        assert c.get("/api/v1/library/pdf/..%2f..%2fetc%2fpasswd").status_code in (404, 422)
        assert c.get("/api/v1/library/pdf/ABC").status_code == 422
        assert c.get(f"/api/v1/library/pdf/{gauge}", params={"page": 9}).json()["code"] == (
            "no_page"
        )
        bad_zoom = c.get(f"/api/v1/library/pdf/{gauge}", params={"zoom": 333})
        assert bad_zoom.status_code == 400 and bad_zoom.json()["code"] == "zoom"
        long = c.get(f"/api/v1/library/pdf/{gauge}", params={"passage": "x" * 4001})
        assert long.status_code == 422
        assert c.get(f"/library/pdf/{gauge}/page/3.jpg").status_code == 400


def test_scope_is_kept_per_browser_session_and_unknown_names_are_refused(site: Site) -> None:
    with site.writer() as c, site.writer() as other:
        start = c.get("/api/v1/chat").json()
        assert start["scope"]["whole_library"] is True and start["rounds"] == []
        assert set(start["library"]) >= {"gauge.pdf", "wheat.pdf", "injected.pdf", *REAL_PDFS}
        refused = c.post("/api/v1/chat/scope", json={"papers": ["gauge.pdf", "nope.pdf"]})
        assert refused.status_code == 404 and refused.json()["code"] == "unknown_papers"
        assert "nope.pdf" in refused.json()["message"]
        assert "The library has:" in refused.json()["message"]
        assert "wheat.pdf" in refused.json()["message"]  # the real list
        assert c.get("/api/v1/chat").json()["scope"]["whole_library"] is True  # unchanged
        kept = c.post("/api/v1/chat/scope", json={"papers": ["gauge.pdf"]}).json()
        assert kept["scope"] == {"papers": ["gauge.pdf"], "whole_library": False}
        assert c.get("/api/v1/chat").json()["scope"]["papers"] == ["gauge.pdf"]
        assert other.get("/api/v1/chat").json()["scope"]["whole_library"] is True
        both = c.post("/api/v1/chat/scope", json={"papers": ["gauge.pdf"], "whole_library": True})
        assert both.status_code == 400
        assert c.cookies.get("ld_chat") not in c.get("/chat").text  # never in the page


def test_answer_card_citations_markers_variant_and_model(site: Site) -> None:
    with site.writer() as c:
        c.post("/api/v1/chat/scope", json={"papers": ["gauge.pdf", "wheat.pdf"]})
        ScriptedModel.seen.clear()
        job = ask_chat(c, GERMAN)
        assert job["state"] == "done" and job["round"] == 1, job
        card = job["answer"]
        assert card["number"] == 1 and card["question"] == GERMAN
        assert card["variant"] == GERMAN_VARIANT and card["model"] == MODEL
        assert card["grounded"] is True and card["abstained"] is False
        assert any("removed 2 invalid citation markers" in w for w in card["warnings"])
        assert any(GERMAN_VARIANT in w for w in card["warnings"])
        [cite] = card["citations"]
        assert cite["file"] == "gauge.pdf" and cite["page"] == 2
        assert cite["viewer"].startswith(f"/library/pdf/{sha(site.folder / 'gauge.pdf')}?page=2")
        assert [p.get("label") for p in card["parts"] if "label" in p] == [cite["label"]]
        assert "[99]" not in card["answer"] and "[4-2]" not in card["answer"]
        # the excerpts and the question reached the model over HTTP
        assert any(GAUGE[:30] in m["content"] for b in ScriptedModel.seen for m in b["messages"])
        view = c.get(cite["viewer"].replace("/library/", "/api/v1/library/", 1)).json()
        assert view["page"] == 2 and view["found"] is True and view["rects"]
        session = c.get("/api/v1/chat").json()
        assert [r["number"] for r in session["rounds"]] == [1]
        assert session["questions"] == [GERMAN]
        assert c.get("/api/v1/chat/rounds/1").json()["question"] == GERMAN
        assert c.get("/api/v1/chat/rounds/7").status_code == 404
    protocol = list((site.data_dir / "library" / "protocols").glob("*.md"))
    assert protocol and GERMAN in protocol[0].read_text(encoding="utf-8")


def test_prompt_injected_pdf_stays_data(site: Site) -> None:
    with site.writer() as c:
        c.post("/api/v1/chat/scope", json={"papers": ["injected.pdf"]})
        card = ask_chat(c, WEIR_QUESTION)["answer"]
        assert card["grounded"] is False and card["citations"] == []
        assert any("not grounded" in w for w in card["warnings"])
        assert any("asked once more" in w for w in card["warnings"])
        page = c.get("/chat").text
        assert "<script>window.__pwned" not in page and "<img src=x" not in page
        assert "&lt;script&gt;window.__pwned" in page  # shown as text
        assert "Not grounded: this answer cites no excerpt" in page


def test_form_posts_without_javascript(site: Site) -> None:
    with site.writer() as c:
        token = c.headers.pop("x-csrf-token")
        # no answer yet: nothing to build a report from, so no such offer
        assert "Build a report from this chat" not in c.get("/chat").text
        form = {"csrf_token": token, "scope": "papers", "papers": ["wheat.pdf"]}
        moved = c.post("/chat/scope", data=form)
        assert moved.status_code == 303 and moved.headers["location"] == "/chat"
        asked = c.post("/chat/ask", data={"csrf_token": token, "question": "What fell under heat?"})
        assert asked.status_code == 303 and asked.headers["location"].startswith("/chat#job-")
        job_id = asked.headers["location"].rsplit("-", 1)[1]
        page = c.get("/chat").text  # in flight, or answered already
        assert "Now asking: wheat.pdf" in page and "What fell under heat?" in page
        if f'id="job-{job_id}"' in page:  # the question in flight, a link to look again
            assert "Answering:" in page and 'id="job-refresh"' in page
            assert f'action="/chat/jobs/{job_id}/cancel"' in page
        deadline = time.monotonic() + 120
        while f'id="job-{job_id}"' in page:  # without JavaScript: look again
            assert time.monotonic() < deadline
            time.sleep(0.2)
            page = c.get("/chat").text
        assert 'class="card answer-card"' in page and "Answering:" not in page
        assert "Build a report from this chat" in page  # an answer to build from
        number = c.get(f"/api/v1/chat/jobs/{job_id}").json()["round"]
        again = c.get(f"/chat/round/{number}")
        assert again.status_code == 200 and "What fell under heat?" in again.text
        no_csrf = c.post("/chat/ask", data={"question": "x"})
        assert no_csrf.status_code == 403


def test_chat_history_lists_reopens_and_deletes_from_another_browser(site: Site) -> None:
    """Issue 32: a chat is kept for the account, not the browser: another browser (no
    cookie) lists it, reopens it and its round at a stable address, and deletes it."""
    with site.writer() as c:
        c.post("/api/v1/chat/scope", json={"papers": ["wheat.pdf"]})
        job = ask_chat(c, "What reduced the grain yield?")
        assert job["state"] == "done", job
        cookie = c.cookies.get("ld_chat")
        assert cookie
    with site.client() as fresh:  # the chat cookie outlives the browser session
        cookies = fresh.get("/chat").headers.get_list("set-cookie")
        assert any(x.startswith("ld_chat=") and "max-age=" in x.lower() for x in cookies)
    with site.writer() as other:  # a new browser: a new chat, the history the same
        assert other.cookies.get("ld_chat") != cookie
        assert other.get("/api/v1/chat").json()["rounds"] == []
        chats = other.get("/api/v1/chat/history").json()["chats"]
        mine = [x for x in chats if x["title"] == "What reduced the grain yield?"]
        assert len(mine) == 1 and mine[0]["rounds"] == 1
        chat_id = mine[0]["id"]
        listing = other.get("/chat/history")
        assert listing.status_code == 200 and f'href="/chat/history/{chat_id}"' in listing.text
        past = other.get(f"/api/v1/chat/history/{chat_id}").json()
        assert past["scope"]["papers"] == ["wheat.pdf"] and past["rounds"][0]["number"] == 1
        page = other.get(f"/chat/history/{chat_id}")
        assert page.status_code == 200 and "What reduced the grain yield?" in page.text
        one = other.get(f"/chat/history/{chat_id}/round/1")
        assert one.status_code == 200 and 'class="card answer-card"' in one.text
        assert other.get(f"/api/v1/chat/history/{chat_id}/rounds/2").status_code == 404
        assert other.get(f"/api/v1/chat/history/{'0' * 40}").status_code == 404
        token = other.headers.pop("x-csrf-token")
        assert other.post(f"/chat/history/{chat_id}/delete").status_code == 403  # no CSRF
        gone = other.post(f"/chat/history/{chat_id}/delete", data={"csrf_token": token})
        assert gone.status_code == 303 and gone.headers["location"] == "/chat/history"
        assert other.get(f"/api/v1/chat/history/{chat_id}").status_code == 404
        left = other.get("/api/v1/chat/history").json()["chats"]
        assert chat_id not in {x["id"] for x in left}


def test_wizard_prefills_from_the_chat_and_builds_the_cli_report(site: Site) -> None:
    with site.writer() as c:
        c.post("/api/v1/chat/scope", json={"papers": ["gauge.pdf", "wheat.pdf"]})
        assert ask_chat(c, "How was the staff gauge read?")["state"] == "done"
        wizard = c.get("/reports/new").text
        assert "How was the staff gauge read?" in wizard
        assert 'value="gauge.pdf" checked' in wizard and "scripted-model" in wizard
        body = {
            "papers": ["gauge.pdf", "wheat.pdf"],
            "questions": ["How was the staff gauge read?"],
        }
        plan = c.post("/api/v1/reports/plan", json=body | {"synthesis": True}).json()
        assert plan["model"] == MODEL and plan["extractive"] == [] and plan["not_made"] == []
        assert plan["units"] == 2 + 1  # one question per paper, and the synthesis
        both = c.post(
            "/api/v1/reports/plan", json=body | {"synthesis": True, "detail_mode": "both"}
        ).json()
        assert both["units"] == 1 + 2 + 1  # across the papers, on each paper, the synthesis
        assert '<option value="both"' in wizard
        queued = c.post("/api/v1/reports/build", json=body | {"layout": "compare"})
        assert queued.status_code == 202, queued.text
        job = queued.json()
        assert job["kind"] == "report.build" and job["page"] == f"/reports/job/{job['id']}"
        job = wait_for_job(c, job["id"])
        assert job["status"] == "done", job
        assert job["done"] == job["total"] == 2 + 1  # two question units, the HTML file
        done = job["result"]
        assert "Open the report" in c.get(f"/reports/job/{job['id']}").text
        # from the chat, asked once across the same papers: the chat's answer is reused
        reuse = body | {"detail_mode": "cross-paper", "from_chat": True}
        asked = len(ScriptedModel.seen)
        again = wait_for_job(c, c.post("/api/v1/reports/build", json=reuse).json()["id"])
        assert again["status"] == "done" and len(ScriptedModel.seen) == asked  # not asked
        reused = c.get(again["result"]["open"]).text
        assert "1 answer taken from the paper chat, not asked again" in reused
        assert "The staff gauge was read from the bridge camera" in reused
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}_synthesis_report_[\w.-]+\.html", done["file_name"])
        view = c.get(done["open"])
        assert view.status_code == 200 and "<dialog" in view.text and 'class="cite' in view.text
        csp = view.headers["content-security-policy"]
        assert "script-src 'sha256-" in csp and "default-src 'none'" in csp
        assert "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
        assert c.get("/chat").headers["content-security-policy"].startswith("default-src 'self'")
        down = c.get(done["download"])
        assert down.headers["content-disposition"] == f'attachment; filename="{done["file_name"]}"'
        # the same report; served in the workspace it starts with a way back to Reports
        assert down.text.replace("\n" + BACK_LINK, "") == down.text
        assert view.text == with_way_back(down.text) and 'href="/reports"' in view.text
        listed = c.get("/api/v1/reports").json()["reports"]
        assert done["build_id"] in [r["build_id"] for r in listed]
        assert c.get("/reports/view/" + "x" * 24).status_code == 404
        unknown = c.post("/api/v1/reports/plan", json={"papers": ["gone.pdf"]})
        assert unknown.status_code == 404 and "The library has:" in unknown.json()["message"]
        refused = c.post("/api/v1/reports/build", json={"papers": ["gone.pdf"], "questions": ["q"]})
        assert refused.status_code == 404  # refused before any job is queued
        empty = c.post("/api/v1/reports/build", json={"papers": ["gauge.pdf"]})
        assert empty.status_code == 400 and empty.json()["code"] == "empty_report"
        assert c.get("/api/v1/reports/jobs/" + "0" * 32).status_code == 404


def test_without_a_model_the_wizard_says_what_is_extractive_and_what_cannot_be_made(
    tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path
) -> None:
    for plain in serve_site(tmp_path_factory, fixtures_dir, model=False):
        with plain.writer() as c:
            page = c.get("/reports/new").text
            assert 'Model: <span id="plan-model">none (extractive)</span>' in page
            body = {
                "papers": ["gauge.pdf", "wheat.pdf"], "questions": ["How was it read?"],
                "summary": "bullets", "synthesis": True,
            }  # fmt: skip
            plan = c.post("/api/v1/reports/plan", json=body).json()
            assert any("answers to the questions" in e for e in plan["extractive"])
            assert any("summaries" in e for e in plan["extractive"])
            assert plan["not_made"] == [
                "the synthesis: it needs a model (set LITDESK_LLM_BACKEND and a chat model)"
            ]
            one = c.post("/api/v1/reports/plan", json=body | {"papers": ["gauge.pdf"]}).json()
            assert one["not_made"] == ["the synthesis: it needs two or more papers"]
            card = ask_chat(c, "How was the staff gauge read?")["answer"]
            assert card["model"] == "extractive" and card["extractive"] is True


def test_real_pdfs_a_cited_page_is_located_and_a_scan_is_named_excluded(site: Site) -> None:
    with site.writer() as c:
        c.post("/api/v1/chat/scope", json={"whole_library": True})
        card = ask_chat(c, "How is the literature graph in Semantic Scholar constructed?")
        card = card["answer"]
        assert any(
            "excluded from the index" in w and "scanned_no_text_cermine_simple.pdf" in w
            for w in card["warnings"]
        ), card["warnings"]
        real = [x for x in card["citations"] if x["file"] == "naacl_2018_N18-3011.pdf"]
        assert real, card
        view = c.get(real[0]["viewer"].replace("/library/", "/api/v1/library/", 1)).json()
        assert view["file"] == "naacl_2018_N18-3011.pdf" and view["page"] == real[0]["page"]
        assert view["found"] is True and view["rects"], view["notes"]
