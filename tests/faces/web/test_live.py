"""Live searches, selection actions and saving from the citation browser, through the JSON
API of a real server on loopback: lanes reported as they finish over an event stream,
cancellation that stops the lanes (nothing cached), the owner/id checks, compare evidence
and shared references of selected papers with partial failures beside the successes, and
Origin/CSRF refusals on every new write route."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.faces.web._oa_citations import oa_work, write_openalex
from tests.faces.web._server import Running, csrf_from, write_cassette
from tests.faces.web._slow import slow_server

LIVE = "/api/v1/search/live"
BOTH = {"q": "tumour growth", "provider": ["europepmc", "openalex"]}


def _events(c: httpx.Client, live_id: str) -> list[dict[str, Any]]:
    """Every progress event of the stream, until it ends."""
    out: list[dict[str, Any]] = []
    with c.stream("GET", f"{LIVE}/{live_id}/events") as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert "no-store" in r.headers["cache-control"]
        kind = ""
        for raw in r.iter_lines():
            if raw.startswith("event: "):
                kind = raw[7:]
            elif raw.startswith("data: ") and kind == "progress":
                out.append(json.loads(raw[6:]))
            elif raw.startswith("data: ") and kind == "end":
                break
    return out


def _wait(c: httpx.Client, live_id: str, pred: Any, seconds: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        view = c.get(f"{LIVE}/{live_id}").json()
        if pred(view) or time.monotonic() > deadline:
            return view
        time.sleep(0.05)


@pytest.fixture
def cassette(cassette: Path) -> Path:
    write_openalex(cassette)
    body = json.dumps(
        {
            "meta": {"count": 3, "page": 1, "per_page": 20},
            "results": [
                oa_work("W100", title="Seed paper W100"),
                oa_work("W200", title="Seed paper W200"),
                oa_work("W300", title="Unknown to the citation lookups"),
            ],
        }
    ).encode()
    write_cassette(cassette, "shared seeds", body, providers=["openalex"])
    return cassette


def test_live_search_from_the_cassette_ends_in_the_result_view(running: Running) -> None:
    with running.writer() as c:
        started = c.post(LIVE, json={"q": "tumour growth"})
        assert started.status_code == 202, started.text
        view = started.json()
        assert len(view["id"]) >= 24 and view["lanes"][0]["lane"] == "europepmc-keyword"
        events = _events(c, view["id"])
        page = c.get(view["result_url"])
    assert events[-1]["state"] == "done" and events[-1]["final"] is True
    lane = events[-1]["lanes"][0]
    assert lane["status"] == "ok" and lane["returned"] == 7 and lane["total"] == 107
    assert events[-1]["run_id"]
    assert page.status_code == 200
    assert events[-1]["run_id"] in page.text  # the finished run, shown in the usual view
    assert page.text.count('<li class="card') == 7


def test_live_start_refuses_bad_queries_and_unknown_ids(running: Running) -> None:
    with running.writer() as c:
        bad = c.post(LIVE, json={"q": "growth AND (tumour"})
        empty = c.post(LIVE, json={"q": "  "})
        unknown = c.get(f"{LIVE}/{'A' * 32}")
        unknown_events = c.get(f"{LIVE}/{'A' * 32}/events")
        malformed = c.get(f"{LIVE}/bad!id")
        cancel_unknown = c.post(f"{LIVE}/{'A' * 32}/cancel")
    assert bad.status_code == 400 and bad.json()["details"]["position"] == 12
    assert empty.status_code == 400 and empty.json()["code"] == "empty"
    assert unknown.status_code == 404 and unknown.json()["code"] == "live_not_found"
    assert unknown_events.status_code == 404
    assert malformed.status_code in (404, 422)
    assert cancel_unknown.status_code == 404


def test_lanes_arrive_one_by_one_and_cancel_stops_them(tmp_settings: Any, tmp_path: Path) -> None:
    with slow_server(tmp_settings, tmp_path) as slow, slow.running.writer() as c:
        view = c.post(LIVE, json=BOTH).json()
        assert {lane["status"] for lane in view["lanes"]} == {"running"}
        # Europe PMC answers; OpenAlex waits behind its gate: the page sees one lane done
        mid = _wait(c, view["id"], lambda v: v["finished"] == 1)
        by_lane = {lane["lane"]: lane for lane in mid["lanes"]}
        assert mid["state"] == "running"
        assert by_lane["europepmc-keyword"]["status"] == "ok"
        assert by_lane["europepmc-keyword"]["returned"] == 3
        assert by_lane["openalex-keyword"]["status"] == "running"
        _wait(c, view["id"], lambda v: len(slow.openalex.seen) == 1)
        cancelled = c.post(f"{LIVE}/{view['id']}/cancel")
        assert cancelled.status_code == 200
        assert cancelled.json()["state"] == "cancelled"
        slow.openalex.gate.set()  # the provider would answer now; the lane has stopped
        time.sleep(0.3)
        after = c.get(f"{LIVE}/{view['id']}").json()
        assert after["state"] == "cancelled" and after["run_id"] is None
        lanes = {lane["lane"]: lane["status"] for lane in after["lanes"]}
        assert lanes == {"europepmc-keyword": "ok", "openalex-keyword": "cancelled"}
        # nothing of the cancelled search was cached: the same search asks the providers again
        again = c.post(LIVE, json=BOTH).json()
        done = _wait(c, again["id"], lambda v: v["final"])
        assert done["state"] == "done"
        assert len(slow.openalex.seen) == 2 and len(slow.epmc.seen) == 2
        # the finished run is the ordinary result view
        page = c.get(again["result_url"])
        assert "Slow lane work W900" in page.text and done["run_id"] in page.text


def test_compare_evidence_of_selected_papers(running: Running) -> None:
    with running.writer() as c:
        run = c.get("/api/v1/search", params={"q": "tumour growth"}).json()
        ids = [card["paper"]["id"] for card in run["cards"]]
        saved = c.post(
            "/api/v1/selection/save", json={"run_id": run["run"]["id"], "paper_ids": ids[1:3]}
        ).json()
        pid = saved["saved"][0]
        abstract = c.get(f"/api/v1/papers/{pid}").json()["paper"]["abstract"]
        passage = abstract[abstract.index("growth slowed") :][:13]
        ok = c.post(
            f"/api/v1/papers/{pid}/evidence",
            json={"finding": "growth slowed", "passage": passage, "population": "mice"},
        )
        assert ok.status_code == 200, ok.text
        compared = c.post(
            "/api/v1/selection/compare",
            json={"run_id": run["run"]["id"], "paper_ids": [ids[1], ids[2], ids[4]]},
        )
    assert compared.status_code == 200, compared.text
    data = compared.json()
    columns = {col["id"]: col for col in data["columns"]}
    assert set(columns) == set(saved["saved"])
    assert [e["population"] for e in columns[pid]["evidence"]] == ["mice"]
    assert columns[saved["saved"][1]]["evidence"] == []
    assert data["failed"] == [{"id": ids[4], "reason": "not saved, so no evidence is recorded"}]
    assert data["records"] == 1


def test_shared_references_of_selected_papers_report_the_one_that_fails(
    running: Running,
) -> None:
    with running.writer() as c:
        run = c.get("/api/v1/search", params={"q": "shared seeds", "provider": ["openalex"]}).json()
        ids = [card["paper"]["id"] for card in run["cards"]]
        assert ids == ["OAX-W100", "OAX-W200", "OAX-W300"]
        shared = c.post(
            "/api/v1/selection/shared", json={"run_id": run["run"]["id"], "paper_ids": ids}
        )
        both = c.post(
            "/api/v1/selection/shared", json={"run_id": run["run"]["id"], "paper_ids": ids[:2]}
        ).json()
        too_few = c.post(
            "/api/v1/selection/shared", json={"run_id": run["run"]["id"], "paper_ids": ids[:1]}
        )
    assert shared.status_code == 200, shared.text
    data = shared.json()
    assert [f["id"] for f in data["failed"]] == ["OAX-W300"] and data["asked"] == 3
    result = data["result"]
    assert result["seed_count"] == 2 and result["total"] == 2
    assert [p["shared_by"] for p in result["papers"]] == [2, 2]
    assert both["failed"] == [] and both["result"]["papers"] == result["papers"]
    assert too_few.status_code == 400 and too_few.json()["code"] == "shared_size"


def test_citation_browser_saves_chosen_works_into_a_new_study(running: Running) -> None:
    with running.writer() as c:
        listed = c.get("/api/v1/citations", params={"ids": "W100"}).json()
        chosen = [p["id"] for p in listed["papers"][:2]]
        saved = c.post(
            "/api/v1/citations/save",
            json={
                "listing": listed["listing"],
                "paper_ids": [*chosen, "OAX-W999"],
                "new_study": "References of W100",
            },
        )
        study = c.get(f"/api/v1/studies/{saved.json()['study_id']}").json()
        forged = c.post(
            "/api/v1/citations/save",
            json={"listing": "B" * 24, "paper_ids": chosen, "study": saved.json()["study_id"]},
        )
        neither = c.post(
            "/api/v1/citations/save", json={"listing": listed["listing"], "paper_ids": chosen}
        )
    assert saved.status_code == 200, saved.text
    body = saved.json()
    assert body["study_name"] == "References of W100" and len(body["saved"]) == 2
    assert body["failed"] == [
        {"id": "OAX-W999", "title": "", "reason": "not in the citation list shown"}
    ]
    assert len(study["papers"]) == 2
    assert forged.status_code == 404 and forged.json()["code"] == "listing_not_open"
    assert neither.status_code == 400 and neither.json()["code"] == "study_choice"


WRITES = [
    (LIVE, {"q": "tumour growth"}),
    (f"{LIVE}/{'A' * 32}/cancel", {}),
    ("/api/v1/selection/compare", {"run_id": "x", "paper_ids": ["MED-1"]}),
    ("/api/v1/selection/shared", {"run_id": "x", "paper_ids": ["MED-1", "MED-2"]}),
    ("/api/v1/citations/save", {"listing": "A" * 24, "paper_ids": ["MED-1"], "study": "s"}),
]


@pytest.mark.parametrize(("path", "body"), WRITES)
def test_new_write_routes_need_the_exact_origin_and_the_csrf_token(
    running: Running, path: str, body: dict[str, Any]
) -> None:
    with running.client() as c:
        token = csrf_from(c.get("/search").text)
        missing = c.post(path, json=body, headers={"x-csrf-token": token})
        other = c.post(
            path, json=body, headers={"x-csrf-token": token, "origin": "http://evil.test"}
        )
        no_token = c.post(path, json=body, headers={"origin": running.base})
        wrong = c.post(path, json=body, headers={"origin": running.base, "x-csrf-token": "x" * 43})
        right = c.post(path, json=body, headers={"origin": running.base, "x-csrf-token": token})
    assert missing.status_code == 403 and missing.json()["code"] == "origin_missing"
    assert other.status_code == 403 and other.json()["code"] == "origin"
    assert no_token.status_code == 403 and no_token.json()["code"] == "csrf"
    assert wrong.status_code == 403 and wrong.json()["code"] == "csrf"
    assert right.status_code not in (403, 500)  # past the checks: the route's own answer


def test_new_form_posts_need_the_origin_and_the_csrf_field(running: Running) -> None:
    with running.client() as c:
        token = csrf_from(c.get("/search").text)
        form = {"listing": "A" * 24, "paper_ids": "MED-1", "study": "s"}
        no_origin = c.post("/citations/save", data=form | {"csrf_token": token})
        no_field = c.post("/citations/save", data=form, headers={"origin": running.base})
        compare = c.post(
            "/selection",
            data={"run_id": "x", "action": "compare", "paper_ids": "MED-1"},
            headers={"origin": running.base},
        )
    assert no_origin.status_code == 403
    assert no_field.status_code == 403
    assert compare.status_code == 403


def test_a_result_address_whose_live_search_is_gone_searches_again(running: Running) -> None:
    with running.client() as c:
        page = c.get("/search", params={"q": "tumour growth", "live": "Z" * 32})
        bad = c.get("/search", params={"q": "tumour growth", "live": "<script>"})
    assert page.status_code == 200 and page.text.count('<li class="card') == 7
    assert bad.status_code in (400, 422) and "<script>" not in bad.text
