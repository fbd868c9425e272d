"""The screening pages and their JSON twins (issue 28) against the app on loopback: the
screening page one record at a time with the Study's keywords highlighted as text, decisions
by plain POST forms (then the next record) and through the API, undo keeping the history,
the full-text stage's required reason shown beside the form, progress with the recall curve,
the records behind each number, a record's history, the settings (owner), conflicts,
agreement, decisions imported and exported; hostile imported text stays inert; every write
needs the CSRF token."""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from tests.faces.web._server import Running

from litdesk.core.screening import DEFAULT_MODEL

#: eight records of our own; two carry markup in their titles and abstracts
RECORDS = [
    (
        "Exercise for children with asthma: a randomised trial",
        "Children with asthma were randomised to exercise or usual care. Lung function improved.",
    ),
    (
        "Inhaled steroids in adults with asthma",
        "Adults with asthma received inhaled steroids; exacerbations fell.",
    ),
    (
        "A mouse model of airway inflammation",
        "Mice were sensitised to ovalbumin; airway inflammation was measured.",
    ),
    (
        "School-based asthma education for children",
        "Children in 20 schools received asthma education. Absence from school fell.",
    ),
    (
        "<script>alert(31)</script> Hostile <img src=x onerror=alert(32)> title",
        "An <b onmouseover=alert(33)>abstract</b> with markup, about children.",
    ),
    (
        "Air pollution and asthma admissions: a time-series study",
        "Daily admissions for asthma rose with particulate matter.",
    ),
    (
        "Cost of asthma care in primary care",
        "We estimated the cost of asthma care for adults and children.",
    ),
    (
        "Breathing exercises for adults with asthma",
        "Adults were randomised to breathing exercises; symptoms improved.",
    ),
]


def ris(records: list[tuple[str, str]] = RECORDS) -> bytes:
    out = []
    for i, (title, abstract) in enumerate(records, 1):
        out.append(
            f"TY  - JOUR\nID  - S{i}\nAU  - Author{i}, A.\nAU  - Second, B.\nTI  - {title}\n"
            f"JO  - Journal of Screening Tests\nPY  - {2010 + i}\nDO  - 10.5555/scr.{i}\n"
            f"AB  - {abstract}\nER  -\n\n"
        )
    return "".join(out).encode()


def make_screening_study(c: httpx.Client, name: str = "Asthma exercise review") -> str:
    sid = str(c.post("/api/v1/studies", json={"name": name}).json()["id"])
    files = [("files", ("asthma.ris", ris(), "application/x-research-info-systems"))]
    r = c.post("/api/v1/imports", params={"study": sid}, files=files)
    assert r.status_code == 200 and not r.json()["refused"], r.text
    settings = {
        "inclusion": "Randomised trials of exercise in people with asthma.",
        "exclusion": "Animal studies; cost studies.",
        "include_keywords": ["asthma", "randomised"],
        "exclude_keywords": ["mice", "cost"],
        "default_order": "original",
    }
    r = c.post(f"/api/v1/studies/{sid}/screening/settings", json=settings)
    assert r.status_code == 200, r.text
    return sid


def _api(sid: str) -> str:
    return f"/api/v1/studies/{sid}/screening"


def _form(c: httpx.Client, path: str, data: dict[str, str]) -> httpx.Response:
    return c.post(path, data=data | {"csrf_token": c.headers["x-csrf-token"]})


def _key_on_page(html: str) -> str:
    found = re.search(r'id="record-key" value="([^"]+)"', html)
    assert found, "no record on the page"
    return unescape(found.group(1))


def test_screen_one_record_at_a_time_without_javascript(running: Running) -> None:
    with running.writer() as c:
        sid = make_screening_study(c)
        page = c.get(f"/study/{sid}/screen", params={"stage": "title_abstract"})
        assert page.status_code == 200
        html = page.text
        first = _key_on_page(html)
        # the title is highlighted by the Study's keywords, as text in <mark> elements
        assert '<mark class="kw-include">asthma</mark>' in html
        assert "Randomised trials of exercise in people with asthma." in html  # criteria beside
        assert "0 of 8 screened" in html and "Order: original order" in html
        # a plain form post decides, then the page shows the next record
        r = _form(
            c,
            f"/study/{sid}/screen/decide",
            {"stage": "title_abstract", "record_key": first, "verdict": "include", "note": "RCT"},
        )
        assert r.status_code == 303
        after = c.get(r.headers["location"])
        assert after.status_code == 200 and "Decision saved." in after.text
        second = _key_on_page(after.text)
        assert second != first
        assert "1 of 8 screened" in after.text and "1 included" in after.text
        # undo by form: the undone record comes back, its decision kept (crossed out)
        r = _form(c, f"/study/{sid}/screen/undo", {"stage": "title_abstract"})
        assert r.status_code == 303
        assert parse_qs(urlsplit(r.headers["location"]).query)["record"] == [first]
        back = c.get(r.headers["location"])
        assert _key_on_page(back.text) == first
        assert "0 of 8 screened" in back.text
        history = c.get(f"{_api(sid)}/history", params={"record_key": first}).json()
        kinds = [(e["kind"], e["verdict"], e["status"]) for e in history["entries"]]
        assert kinds[0][:2] == ("decision", "include") and kinds[0][2] == "undone"
        assert kinds[1][0] == "undo"
        hist_page = c.get(f"/study/{sid}/screen/history", params={"record": first})
        assert hist_page.status_code == 200 and "RCT" in hist_page.text


def test_decide_through_the_api_and_progress(running: Running) -> None:
    with running.writer() as c:
        sid = make_screening_study(c)
        seen: list[str] = []
        verdicts = ["include", "exclude", "exclude", "maybe", "include"]
        for verdict in verdicts:
            card = c.get(f"{_api(sid)}/next", params={"stage": "title_abstract"}).json()
            assert card["done"] is False and card["record_key"] not in seen
            # segments rebuild the title exactly; marks only where a keyword starts a word
            assert "".join(s["text"] for s in card["title_segments"]) == card["title"]
            for s in card["title_segments"] + card["abstract_segments"]:
                if s["mark"] == "include":
                    assert s["text"].casefold() in ("asthma", "randomised")
                if s["mark"] == "exclude":
                    assert s["text"].casefold() in ("mice", "cost")
            seen.append(card["record_key"])
            r = c.post(
                f"{_api(sid)}/decisions",
                json={
                    "stage": "title_abstract",
                    "record_key": card["record_key"],
                    "verdict": verdict,
                },
            )
            assert r.status_code == 200, r.text
            assert r.json()["entry"]["source"] == "api"
        # the record after the one on screen (the page fetches it before a decision)
        top = c.get(f"{_api(sid)}/next", params={"stage": "title_abstract"}).json()
        after = c.get(
            f"{_api(sid)}/next", params={"stage": "title_abstract", "skip": [top["record_key"]]}
        ).json()
        assert after["record_key"] not in (top["record_key"], *seen)
        progress = c.get(f"{_api(sid)}/progress", params={"stage": "title_abstract"}).json()
        assert progress["mine"]["screened"] == 5 and progress["mine"]["included"] == 2
        assert progress["mine"]["remaining"] == 3
        assert progress["guidance"]["recall_curve"][-1] == [5, 3]  # include + maybe are relevant
        chart = progress["chart"]
        assert chart["lines"] and chart["lines"][0]["points"].startswith(f"{chart['left']:.1f},")
        page = c.get(f"/study/{sid}/screen/progress", params={"stage": "title_abstract"})
        assert page.status_code == 200
        assert 'id="recall-chart"' in page.text and "<polyline" in page.text
        # every number opens the records behind it
        included = c.get(
            f"/study/{sid}/screen/items", params={"stage": "title_abstract", "status": "included"}
        )
        assert included.status_code == 200 and "2 records" in included.text
        items = c.get(
            f"{_api(sid)}/items", params={"stage": "title_abstract", "status": "remaining"}
        ).json()
        assert items["total"] == 3 and not {r["record_key"] for r in items["rows"]} & set(seen)
        # the Study page links to screening with its counts
        study = c.get(f"/study/{sid}")
        assert (
            "5 of 8 screened" in study.text and f"/study/{sid}/screen?stage=full_text" in study.text
        )


def test_full_text_exclusion_needs_a_reason_shown_beside_the_form(running: Running) -> None:
    with running.writer() as c:
        sid = make_screening_study(c)
        card = c.get(f"{_api(sid)}/next", params={"stage": "title_abstract"}).json()
        key = card["record_key"]
        c.post(
            f"{_api(sid)}/decisions",
            json={"stage": "title_abstract", "record_key": key, "verdict": "include"},
        ).raise_for_status()
        page = c.get(f"/study/{sid}/screen", params={"stage": "full_text"})
        assert page.status_code == 200 and _key_on_page(page.text) == key
        assert (
            "Full text not retrieved" in page.text
            and "Reason for excluding (required)" in page.text
        )
        r = _form(
            c,
            f"/study/{sid}/screen/decide",
            {"stage": "full_text", "record_key": key, "verdict": "exclude", "note": "kept note"},
        )
        assert r.status_code == 400
        assert 'class="error-summary"' in r.text
        summary = r.text.split('class="error-summary"', 1)[1].split("</div>", 1)[0]
        reasons = c.get(f"{_api(sid)}/settings").json()["reasons"]
        # the error lists the Study's reasons, as the error for an unknown reason does
        assert "needs one of the Study&#39;s exclusion reasons" in summary
        assert all(why in summary for why in reasons), summary
        api = c.post(
            f"{_api(sid)}/decisions",
            json={"stage": "full_text", "record_key": key, "verdict": "exclude"},
        )
        assert api.status_code == 400 and api.json()["code"] == "reason_required"
        assert "; ".join(reasons) in api.json()["message"]
        assert "kept note" in r.text  # nothing the reviewer typed is lost
        r = _form(
            c,
            f"/study/{sid}/screen/decide",
            {
                "stage": "full_text",
                "record_key": key,
                "verdict": "exclude",
                "reason": "wrong outcome",
            },
        )
        assert r.status_code == 303
        done = c.get(r.headers["location"])
        assert 'id="screen-done"' in done.text
        # "not retrieved" is recorded by its button's form
        r = _form(c, f"/study/{sid}/screen/retrieval", {"record_key": key, "retrieved": "no"})
        assert r.status_code == 303
        shown = c.get(r.headers["location"]).text
        assert "Recorded as not retrieved" in shown and "Mark as retrieved" in shown
        # its exclusion, made before, stays in its history but does not count
        assert "count nowhere (progress, agreement, conflicts, PRISMA)" in shown
        assert "not counted: report not retrieved" in shown
        # a report left to assess but recorded not retrieved: said so beside "Left for you"
        other = c.get(f"{_api(sid)}/next", params={"stage": "title_abstract"}).json()
        c.post(
            f"{_api(sid)}/decisions",
            json={
                "stage": "title_abstract",
                "record_key": other["record_key"],
                "verdict": "include",
            },
        ).raise_for_status()
        r = _form(
            c,
            f"/study/{sid}/screen/retrieval",
            {"record_key": other["record_key"], "retrieved": "no"},
        )
        assert r.status_code == 303
        progress = c.get(f"/study/{sid}/screen/progress", params={"stage": "full_text"}).text
        # both: the first one's exclusion is not counted while it is not retrieved
        assert 'id="n-remaining-not-retrieved">2<' in progress
        assert "under “Reports not retrieved”, not “Reports awaiting assessment”" in progress
        plain = c.get(f"/study/{sid}/screen/progress", params={"stage": "title_abstract"})
        assert plain.status_code == 200 and "n-remaining-not-retrieved" not in plain.text


def test_hostile_text_is_inert_and_writes_need_the_token(running: Running) -> None:
    with running.writer() as c:
        sid = make_screening_study(c)
        items = c.get(f"/study/{sid}/screen/items", params={"stage": "title_abstract"}).text
        assert "<script>alert(31)" not in items and "<img src=x" not in items
        assert "&lt;script&gt;alert(31)&lt;/script&gt; Hostile" in items
        hostile = next(
            r["record_key"]
            for r in c.get(f"{_api(sid)}/items", params={"stage": "title_abstract"}).json()["rows"]
            if "Hostile" in r["title"]
        )
        page = c.get(f"/study/{sid}/screen", params={"stage": "title_abstract", "record": hostile})
        assert page.status_code == 200
        assert "<script>alert(31)" not in page.text and "<b onmouseover" not in page.text
        assert "&lt;b onmouseover=alert(33)&gt;" in page.text
        key = _key_on_page(page.text)
    with running.client(headers={"origin": running.base}) as anon:
        anon.get("/studies")
        r = anon.post(
            f"{_api(sid)}/decisions",
            json={"stage": "title_abstract", "record_key": key, "verdict": "include"},
        )
        assert r.status_code == 403
        r = anon.post(
            f"/study/{sid}/screen/decide",
            data={"stage": "title_abstract", "record_key": key, "verdict": "include"},
        )
        assert r.status_code == 403


def test_settings_page_saves_and_shows_errors(running: Running) -> None:
    with running.writer() as c:
        sid = make_screening_study(c)
        page = c.get(f"/study/{sid}/screen/settings")
        assert page.status_code == 200 and "wrong population" in page.text
        assert '<select id="model" name="model">' in page.text
        assert f'<option value="{DEFAULT_MODEL}" selected>' in page.text
        form = {
            "reasons": "wrong population\nwrong design\n\n",
            "inclusion": "Trials.",
            "exclusion": "Animals.",
            "include_keywords": "trial\nexercise",
            "exclude_keywords": "mouse",
            "dual_full_text": "true",
            "default_order": "random",
            "model": "litdesk-handover",
        }
        r = _form(c, f"/study/{sid}/screen/settings", form)
        assert r.status_code == 303
        saved: dict[str, Any] = c.get(f"{_api(sid)}/settings").json()
        assert saved["reasons"] == ["wrong population", "wrong design"]
        assert saved["keywords"] == {"include": ["trial", "exercise"], "exclude": ["mouse"]}
        assert saved["dual_review"] == {"title_abstract": False, "full_text": True}
        assert saved["default_order"] == "random" and saved["maybe_is_conflict"] is False
        assert saved["model"] == "litdesk-handover"
        bad = c.post(f"{_api(sid)}/settings", json={"model": "elas_u4"})
        assert bad.status_code == 422
        back = c.post(f"{_api(sid)}/settings", json={"model": "litdesk-svm-2"})
        assert back.status_code == 200 and back.json()["model"] == "litdesk-svm-2"
        r = _form(c, f"/study/{sid}/screen/settings", form | {"reasons": "  \n"})
        assert r.status_code == 400 and 'class="error-summary"' in r.text
        assert c.get(f"{_api(sid)}/settings").json()["reasons"] == saved["reasons"]


def test_progress_of_a_single_reviewer_is_not_shown_twice(running: Running) -> None:
    """One reviewer: the progress page shows "Your screening" only (everyone's figures
    would repeat it); dual review brings the second block back."""
    with running.writer() as c:
        sid = make_screening_study(c)
        key = c.get(f"{_api(sid)}/next", params={"stage": "title_abstract"}).json()["record_key"]
        body = {"stage": "title_abstract", "record_key": key, "verdict": "include"}
        assert c.post(f"{_api(sid)}/decisions", json=body).status_code == 200
        progress = c.get(f"{_api(sid)}/progress", params={"stage": "title_abstract"}).json()
        assert progress["single_reviewer"] is True and progress["all"]["screened"] == 1
        page = c.get(f"/study/{sid}/screen/progress").text
        assert 'id="counts-mine"' in page and "Your screening" in page
        assert 'id="counts-all"' not in page and "Everyone's screening" not in page
        both = {"dual_review": {"title_abstract": True}}
        assert c.post(f"{_api(sid)}/settings", json=both).status_code == 200
        assert c.post(f"{_api(sid)}/reveal", json={"stage": "title_abstract"}).is_success
        page = c.get(f"/study/{sid}/screen/progress").text
        assert 'id="counts-all"' in page and "Waiting for a second reviewer" in page


def test_agreement_chart_tells_every_pair_apart(running: Running) -> None:
    """Five reviewers (a Rayyan export) make ten pairs: each pair's kappa line over time
    has a style (colour and dash) of its own, its legend swatch the same — the chart used
    four styles, so the fifth pair's line looked like the first's."""
    names = ["Ana", "Bo", "Cy", "Di", "Ed"]
    with running.writer() as c:
        sid = make_screening_study(c, "Five reviewers")
        rows = ["key,title,notes"]
        for i, (title, _) in enumerate(RECORDS[:6]):
            verdicts = ", ".join(
                f'""{n}""=>""{"Included" if (i + j) % 3 else "Excluded"}""'
                for j, n in enumerate(names)
            )
            title_cell = title.replace('"', '""')
            rows.append(f'{i + 1},"{title_cell}","RAYYAN-INCLUSION: {{{verdicts}}}"')
        body = ("\n".join(rows) + "\n").encode()
        r = c.post(
            f"/api/v1/screening-imports/{sid}",
            params={"format": "rayyan"},
            files=[("file", ("rayyan.csv", body, "text/csv"))],
        )
        assert r.status_code == 200 and r.json()["recorded"] == 30, r.text
        pairs = c.get(f"{_api(sid)}/agreement").json()["pairs"]
        assert len(pairs) == 10
        page = c.get(f"/study/{sid}/screen/agreement").text
    lines = re.findall(r'<polyline class="line ([^"]+)"', page)
    swatches = re.findall(r'<line class="line ([^"]+)" x1="0"', page)
    assert len(lines) == 10 and swatches == lines
    assert len(set(lines)) == 10, lines
