"""The conflicts page one page at a time (issue 28), through a running server: a Study of the
47 gambling-harms records screened in pairs by two named reviewers (their decision files
posted to the import), revealed. The page shows 25 compact cards and the counts, Next and
Previous carry the stage and filter; resolving a conflict without JavaScript comes back to
the same page at the card that took its place; the resolved filter lists it with its
resolution; the JSON API pages with ``page``/``per_page``; bad paging input is refused with
a typed error and writes nothing."""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest
from tests.faces.web._server import Running

from litdesk.services.screening import CONFLICTS_PAGE, MAX_CONFLICTS_PAGE

EXPORT = "bib/ris/citesource__20221207_gambling-harms_lens_49.ris"
TA = "title_abstract"


def _api(sid: str) -> str:
    return f"/api/v1/studies/{sid}/screening"


def _decisions(keys: list[str], verdicts: list[str], who: str) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["record_id", "decision", "reason", "note"])
    for i, (k, v) in enumerate(zip(keys, verdicts, strict=True)):
        writer.writerow([k, v, "wrong outcome" if v == "exclude" else "", f"{who} {i}"])
    return buf.getvalue().encode()


@pytest.fixture
def queue(running: Running, fixtures_dir: Path) -> Iterator[tuple[httpx.Client, str, list[str]]]:
    """A client, the Study and its conflicting records in the order decided."""
    with running.writer() as c:
        sid = str(c.post("/api/v1/studies", json={"name": "Pairs"}).json()["id"])
        data = (fixtures_dir / EXPORT).read_bytes()
        r = c.post("/api/v1/imports", params={"study": sid}, files=[("files", ("g.ris", data))])
        assert r.status_code == 200 and not r.json()["refused"], r.text
        r = c.post(f"{_api(sid)}/settings", json={"dual_review": {TA: True}})
        assert r.status_code == 200, r.text
        rows = c.get(f"{_api(sid)}/items", params={"stage": TA}).json()["rows"]
        keys = [row["record_key"] for row in rows]
        ana = ["include" if i % 3 else "exclude" for i in range(len(keys))]
        bo = ["exclude" if v == "include" else "include" for v in ana]
        bo[::7] = ana[::7]  # every seventh agreed
        for who, verdicts in (("Ana Lima", ana), ("Bo Chen", bo)):
            r = c.post(
                f"/api/v1/screening-imports/{sid}",
                params={"stage": TA, "reviewer": who},
                files={"file": ("d.csv", _decisions(keys, verdicts, who), "text/csv")},
            )
            assert r.json()["recorded"] == len(keys), r.text
        assert c.post(f"{_api(sid)}/reveal", json={"stage": TA}).status_code == 200
        yield c, sid, [k for k, a, b in zip(keys, ana, bo, strict=True) if a != b]


def _cards(page: str) -> list[str]:
    """The records of the page's cards, in order (their ids numbered from 1)."""
    found = re.findall(
        r'<article class="card conflict-card[^"]*" id="conflict-(\d+)" data-record="([^"]+)"', page
    )
    assert [int(n) for n, _ in found] == list(range(1, len(found) + 1))
    return [html.unescape(k) for _, k in found]


def _link(page: str, rel: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)" rel="{rel}">', page)
    return html.unescape(found.group(1)) if found else None


def _resolve(c: httpx.Client, sid: str, fields: dict[str, str]) -> httpx.Response:
    body = {"stage": TA, "csrf_token": str(c.headers["x-csrf-token"])} | fields
    return c.post(f"/study/{sid}/screen/resolve", data=body)


def test_a_page_of_conflicts_and_the_next(queue: tuple[httpx.Client, str, list[str]]) -> None:
    c, sid, conflicting = queue
    assert CONFLICTS_PAGE < len(conflicting) <= 2 * CONFLICTS_PAGE  # two pages
    first = c.get(f"/study/{sid}/screen/conflicts").text
    assert _cards(first) == conflicting[:CONFLICTS_PAGE]
    state = re.search(r'id="conflicts-state"[^>]*>(.*?)</p>', first, re.S)
    assert state and re.sub(r"<[^>]+>", "", state.group(1)) == (
        f"{len(conflicting)} conflicts waiting at title and abstract · 0 resolved"
    )
    assert f"1–{CONFLICTS_PAGE} of {len(conflicting)} · page 1 of 2" in first
    # both decisions side by side by the reviewers' names, a reason and a note; the title
    # opens the record
    assert '<span class="who">Ana Lima</span>: <span class="verdict-tag' in first
    assert '<span class="who">Bo Chen</span>: <span class="verdict-tag' in first
    assert '<span class="reason">wrong outcome</span>' in first
    assert '<q class="note">Ana Lima 1</q>' in first
    key = conflicting[0]
    assert f'href="/study/{sid}/screen?stage={TA}&amp;record={quote(key, safe="/")}"' in first
    assert _link(first, "prev") is None
    nxt = _link(first, "next")
    assert nxt is not None
    assert parse_qs(urlsplit(nxt).query) == {"stage": [TA], "status": ["unresolved"], "page": ["2"]}
    second = c.get(nxt).text
    assert _cards(second) == conflicting[CONFLICTS_PAGE:]
    assert _link(second, "next") is None
    back = _link(second, "prev")
    assert back is not None and _cards(c.get(back).text) == conflicting[:CONFLICTS_PAGE]
    # the API pages the same queue with page/per_page
    got: list[str] = []
    body: dict[str, Any] = {}
    for n in range(1, 100):
        body = c.get(f"{_api(sid)}/conflicts", params={"page": n, "per_page": 10}).json()
        got += [row["record_key"] for row in body["conflicts"]]
        if n == body["pages"]:
            break
    assert got == conflicting
    assert body["total"] == body["waiting"] == body["count"] == len(conflicting)
    assert (body["per_page"], body["pages"]) == (10, math.ceil(len(conflicting) / 10))


def test_resolve_and_return_to_the_same_place(queue: tuple[httpx.Client, str, list[str]]) -> None:
    c, sid, conflicting = queue
    second = conflicting[CONFLICTS_PAGE:]
    # the third card of page 2, resolved without script: back to page 2 at the third card,
    # now the record that followed it
    r = _resolve(c, sid, {"record_key": second[2], "verdict": "include", "status": "unresolved",
                          "page": "2", "at": "3", "note": "fits the question"})  # fmt: skip
    assert r.status_code == 303
    where = r.headers["location"]
    assert where == f"/study/{sid}/screen/conflicts?stage={TA}&status=unresolved&page=2#conflict-3"
    page = c.get(where).text
    assert _cards(page)[2] == second[3]
    assert f"{len(conflicting) - 1} conflicts waiting" in page and "· 1 resolved" in page
    # the page's last card: back to the card now last
    last = len(second) - 1
    r = _resolve(c, sid, {"record_key": second[-1], "verdict": "exclude", "status": "unresolved",
                          "page": "2", "at": str(last)})  # fmt: skip
    assert r.headers["location"].endswith(f"page=2#conflict-{last - 1}")
    # the resolved filter lists both with their resolution; changing one keeps the counts
    resolved = c.get(f"/study/{sid}/screen/conflicts", params={"status": "resolved"}).text
    assert _cards(resolved) == [second[2], second[-1]]
    assert resolved.count('<p class="resolution">Resolved: ') == 2
    assert "fits the question" in resolved and "Change to" in resolved
    r = _resolve(c, sid, {"record_key": second[2], "verdict": "maybe", "status": "resolved",
                          "page": "1", "at": "1"})  # fmt: skip
    assert r.headers["location"].endswith("status=resolved&page=1#conflict-1")
    body = c.get(f"{_api(sid)}/conflicts", params={"status": "resolved"}).json()
    assert (body["waiting"], body["resolved"]) == (len(conflicting) - 2, 2)
    assert [row["resolution"]["verdict"] for row in body["conflicts"]] == ["maybe", "exclude"]


def test_bad_paging_input_is_refused(queue: tuple[httpx.Client, str, list[str]]) -> None:
    c, sid, conflicting = queue
    for params, status, code in (
        ({"page": 0}, 400, "bad_page"),
        ({"page": -1}, 400, "bad_page"),
        ({"per_page": 0}, 400, "bad_page"),
        ({"per_page": MAX_CONFLICTS_PAGE + 1}, 400, "bad_page"),
        ({"page": "two"}, 422, "validation"),
        ({"status": "open"}, 422, "validation"),
    ):
        r = c.get(f"{_api(sid)}/conflicts", params=params)
        assert (r.status_code, r.json()["code"]) == (status, code), (params, r.text)
    page = c.get(f"/study/{sid}/screen/conflicts", params={"page": 0})
    assert page.status_code == 400 and "The page is a whole number from 1." in page.text
    assert "Code bad_page" in page.text
    # a resolution posted with bad paging is refused before anything is written
    r = _resolve(c, sid, {"record_key": conflicting[0], "verdict": "include", "page": "0"})
    assert r.status_code == 400
    body = c.get(f"{_api(sid)}/conflicts").json()
    assert (body["waiting"], body["resolved"]) == (len(conflicting), 0)
