"""The PRISMA 2020 flow with screening (issue 28) on the Study's PRISMA page and its JSON
twin, against a real server on loopback: decisions recorded through the screening area, the
counts in the table and the API the same, the checks shown, the SVG diagram an image that
fits its boxes, Markdown and CSV downloads; one Playwright pass (Debian chromium)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from xml.etree import ElementTree

import pytest
from tests._shots import shoot
from tests.faces.web._server import Running

from litdesk.core.words import day
from litdesk.services.app import open_app_sync
from litdesk.services.screening import ImportDecisionsRequest

RIS = "".join(
    f"TY  - JOUR\nTI  - Beta blocker trial {i} <i>in</i> heart failure\nAU  - Roe, R\n"
    f"PY  - 20{10 + i}\nDO  - 10.5555/beta.{i}\nER  - \n\n"
    for i in range(6)
)


def _study(running: Running, tmp_settings: Any) -> str:
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Beta <b>blockers</b>"}).json()["id"]
        files = [("files", ("refs.ris", RIS.encode(), "application/x-research-info-systems"))]
        c.post("/api/v1/imports", params={"study": sid}, files=files).raise_for_status()
    rows = "doi,decision,reason\n" + "".join(
        f"10.5555/beta.{i},{'exclude' if i < 2 else 'include'},\n" for i in range(5)
    )
    ft = "doi,decision,reason\n10.5555/beta.2,exclude,wrong outcome\n10.5555/beta.3,include,\n"

    def record() -> None:
        with open_app_sync(tmp_settings) as app:  # the same store as the server's
            for data, stage in ((rows, "title_abstract"), (ft, "full_text")):
                request = ImportDecisionsRequest(sid, data.encode(), "d.csv", stage)  # type: ignore[arg-type]
                view = app.screening.import_decisions(request, owner=app.owner)
                assert not view.unmatched and not view.refused

    with ThreadPoolExecutor(1) as pool:  # outside the browser's event loop
        pool.submit(record).result()
    return sid


def test_prisma_2020_api_page_and_downloads(running: Running, tmp_settings: Any) -> None:
    sid = _study(running, tmp_settings)
    with running.writer() as c:
        flow = c.get(f"/api/v1/studies/{sid}/prisma-2020").json()
        (r,) = flow["rounds"]
        assert (r["to_screen"], r["screened"], r["excluded_screening"], r["sought"]) == (6, 5, 2, 3)
        assert r["excluded_reasons"] == {"wrong outcome": 1} and r["included"] == 1
        assert r["awaiting_full_text"] == 1 and all(ch["ok"] for ch in r["checks"])
        report = c.get(f"/api/v1/studies/{sid}/prisma").json()
        assert report["prisma_2020"]["rounds"] == flow["rounds"]  # extended, one set of numbers
        html = c.get(f"/study/{sid}/prisma").text
        assert 'id="prisma-2020-table"' in html and "every check holds" in html
        # the import's date as a date ("6 Dec 2026"), not "just now" nor the ISO timestamp
        (imported,) = report["imports"]
        assert f'data-label="Imported">{day(imported["date"])}</td>' in html
        for text in (html, c.get(f"/study/{sid}/prisma/export", params={"format": "md"}).text):
            assert imported["date"] not in text and "just now" not in text
        # the report's downloads carry the whole PRISMA 2020 flow, screening included (they
        # had the identification figures only, under a page that offers them "ready to copy")
        report_md = c.get(f"/study/{sid}/prisma/export", params={"format": "md"}).text
        flow_md = report_md.split("## PRISMA 2020 flow")[1]
        assert "| Records screened | 5 | 5 |" in flow_md and "| Studies included" in flow_md
        report_html = c.get(f"/study/{sid}/prisma/export", params={"format": "html"}).text
        drawn = report_html.split("<h2>PRISMA 2020 flow diagram</h2>")[1]
        assert drawn.startswith("<svg") and "Records screened (n = 5)" in drawn
        assert "Studies included in review (n = 1)" in drawn
        assert "<script" not in report_html.lower() and "default-src 'none'" in report_html
        assert "wrong outcome" in html and "<b>blockers</b>" not in html
        svg = c.get(f"/study/{sid}/prisma-2020.svg")
        assert svg.headers["content-type"].startswith("image/svg+xml")
        root = ElementTree.fromstring(svg.content)
        assert root.tag.endswith("svg")
        md = c.get(f"/api/v1/studies/{sid}/prisma-2020/export", params={"format": "md"})
        assert (
            "attachment" in md.headers["content-disposition"] and "| Records screened |" in md.text
        )
        table = list(csv.reader(io.StringIO(c.get(
            f"/study/{sid}/prisma-2020/export", params={"format": "csv"}).text)))  # fmt: skip
        assert dict((row[0], row[2]) for row in table[1:])["Records screened"] == "5"
        bad = c.get(f"/api/v1/studies/{sid}/prisma-2020/export", params={"format": "pdf"})
        assert bad.status_code == 422
        assert c.get("/api/v1/studies/nope/prisma-2020").status_code == 404
        behind = c.get(f"/api/v1/studies/{sid}/prisma-2020/records",
                       params={"box": "excluded_reports"}).json()  # fmt: skip
        assert behind["total"] == 1 and behind["records"][0]["reason"] == "wrong outcome"
        assert "trial 2" in behind["records"][0]["title"]
        screened = c.get(f"/api/v1/studies/{sid}/prisma-2020/records",
                         params={"box": "screened", "round": 1}).json()  # fmt: skip
        assert screened["total"] == len(screened["records"]) == 5
        wrong = c.get(f"/api/v1/studies/{sid}/prisma-2020/records", params={"box": "nope"})
        assert wrong.status_code == 400 and wrong.json()["code"] == "bad_box"


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


@pytest.mark.slow
def test_browser_prisma_2020_diagram(page: Any, running: Running, tmp_settings: Any) -> None:
    sid = _study(running, tmp_settings)
    page.goto(f"{running.base}/study/{sid}/prisma")
    img = page.locator("#prisma-2020-flow")
    img.wait_for()
    page.wait_for_function("() => document.getElementById('prisma-2020-flow').complete")
    assert page.evaluate("() => document.getElementById('prisma-2020-flow').naturalWidth") > 300
    cells = page.locator("#prisma-2020-table tbody tr").all_inner_texts()
    assert any(c.startswith("Records screened") and c.split()[-1] == "5" for c in cells)
    shoot(page, "scr-team-prisma-2020.png", full_page=True)
    shoot(img, "scr-team-prisma-2020-svg.png")


def test_prisma_2020_numbers_open_their_records(running: Running, tmp_settings: Any) -> None:
    """Every number of the flow with records behind it links to a page listing them by
    title; a reason's line lists only the reports excluded for it."""
    import re
    from html import unescape

    sid = _study(running, tmp_settings)
    with running.writer() as c:
        html = c.get(f"/study/{sid}/prisma").text
        links = {unescape(h) for h in re.findall(r'class="prisma-count" href="([^"]+)"', html)}
        assert f"/study/{sid}/prisma-2020/records?box=screened" in links
        assert (
            f"/study/{sid}/prisma-2020/records?box=excluded_reports&reason=wrong%20outcome" in links
        )
        assert not any("removed_duplicates" in h for h in links)  # no records behind it
        for href in links:  # each page lists as many titles as its number says
            listed = c.get(href)
            assert listed.status_code == 200, href
            total = int(re.search(r'id="prisma-records-total">([\d,]+)', listed.text)[1])  # type: ignore[index]
            assert listed.text.count("Beta blocker trial") == total
        screened = c.get(f"/study/{sid}/prisma-2020/records", params={"box": "screened"}).text
        assert "Beta blocker trial 4 &lt;i&gt;in&lt;/i&gt;" in screened  # titles, escaped
        assert "Beta blocker trial 5" not in screened  # not screened
        why = c.get(f"/api/v1/studies/{sid}/prisma-2020/records",
                    params={"box": "excluded_reports", "reason": "wrong population"}).json()  # fmt: skip
        assert why["total"] == 0 and why["label"] == "Reports excluded"
        bad = c.get(f"/api/v1/studies/{sid}/prisma-2020/records",
                    params={"box": "screened", "reason": "wrong outcome"})  # fmt: skip
        assert bad.status_code == 400 and bad.json()["code"] == "bad_reason"


def test_a_new_study_has_an_empty_prisma_report(running: Running) -> None:
    """A Study with nothing in it yet: its PRISMA page, JSON and Markdown say 0 everywhere
    and the page says how to fill it (before: a 404 "it may have been removed")."""
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Not yet searched"}).json()["id"]
        page = c.get(f"/study/{sid}/prisma")
        assert page.status_code == 200, page.text[:300]
        assert 'id="prisma-empty"' in page.text and "Nothing to report yet" in page.text
        report = c.get(f"/api/v1/studies/{sid}/prisma").json()
        assert report["identification"]["records_identified"] == 0
        assert report["searches"] == [] and report["imports"] == []
        md = c.get(f"/study/{sid}/prisma/export", params={"format": "md"})
        assert md.status_code == 200 and "Records identified: 0" in md.text
        flow = c.get(f"/api/v1/studies/{sid}/prisma-2020").json()
        assert [(r["to_screen"], r["included"]) for r in flow["rounds"]] in ([], [(0, 0)])


#: a second source's export: two of the first file's records again (same DOIs), one new
REGISTER = (
    "".join(
        f"TY  - JOUR\nTI  - Beta blocker trial {i} <i>in</i> heart failure\nAU  - Roe, R\n"
        f"PY  - 20{10 + i}\nDO  - 10.5555/beta.{i}\nER  - \n\n"
        for i in (3, 4)
    )
    + "TY  - JOUR\nTI  - A registered beta blocker trial\nPY  - 2020\nDO  - 10.5555/reg.9\nER  - \n"
)


def test_identification_numbers_open_as_their_records(
    page: Any, running: Running, tmp_settings: Any
) -> None:
    """ "Records identified", each kind of source and each source line, and "Duplicate
    records removed" link to the list of their records; each list's count is its number,
    a record two sources found is listed under each, and a duplicate names the record kept
    (a real browser follows the links)."""
    import re
    from html import unescape

    sid = _study(running, tmp_settings)
    with running.writer() as c:
        files = [
            ("files", ("trials.ris", REGISTER.encode(), "application/x-research-info-systems"))
        ]
        c.post(
            "/api/v1/imports",
            params={"study": sid},
            data={"source": "ClinicalTrials.gov", "source_kind": "register"},
            files=files,
        ).raise_for_status()
        flow = c.get(f"/api/v1/studies/{sid}/prisma-2020").json()
        (r,) = flow["rounds"]
        assert (r["identified"]["total"], r["removed_duplicates"], r["to_screen"]) == (9, 2, 7)
        html = c.get(f"/study/{sid}/prisma").text
        links = {unescape(h) for h in re.findall(r'class="prisma-count" href="([^"]+)"', html)}
        base = f"/study/{sid}/prisma-2020/records?box="
        wanted = {
            f"{base}identified": 9,
            f"{base}identified&kind=register": 3,
            f"{base}identified&kind=register&source=ClinicalTrials.gov": 3,
            f"{base}removed_duplicates": 2,
        }
        assert set(wanted) <= links, sorted(links)
        for href in links:
            listed = c.get(href)
            assert listed.status_code == 200, href
            total = int(re.search(r'id="prisma-records-total">([\d,]+)', listed.text)[1])  # type: ignore[index]
            assert listed.text.count("<tr>") - 1 == total, href  # a row per record
            if href in wanted:
                assert total == wanted[href], href
        dups = c.get(f"/api/v1/studies/{sid}/prisma-2020/records",
                     params={"box": "removed_duplicates"}).json()  # fmt: skip
        assert dups["total"] == 2 and all(d["duplicate_of"] for d in dups["records"])
        assert {d["duplicate_of_source"] for d in dups["records"]} == {"Import: refs.ris (ris)"}
        assert sorted(d["duplicate_of_title"][:20] for d in dups["records"]) == [
            "Beta blocker trial 3", "Beta blocker trial 4"
        ]  # fmt: skip
        bad = c.get(f"/api/v1/studies/{sid}/prisma-2020/records",
                    params={"box": "screened", "kind": "register"})  # fmt: skip
        assert bad.status_code == 400 and bad.json()["code"] == "bad_source"
    page.goto(f"{running.base}/study/{sid}/prisma#prisma-2020")
    shoot(page.locator("#prisma-2020-table"), "prisma-2020-table-links.png")
    page.locator("#prisma-2020-table a.prisma-count").first.click()  # Records identified
    page.wait_for_selector("#prisma-records")
    assert page.locator("#prisma-records-title").inner_text() == "Records identified"
    assert page.locator("#prisma-records tbody tr").count() == 9
    shoot(page, "prisma-2020-records-identified.png", full_page=True)
    page.goto(f"{running.base}{base}identified&kind=register&source=ClinicalTrials.gov")
    assert page.locator("#prisma-records tbody tr").count() == 3
    shoot(page, "prisma-2020-records-source.png", full_page=True)
    page.goto(f"{running.base}{base}removed_duplicates")
    rows = page.locator("#prisma-records tbody tr").all_inner_texts()
    assert len(rows) == 2 and all("Beta blocker trial" in t for t in rows)
    # the kept record has the same title: the cell says so rather than repeating it
    kept = page.locator("#prisma-records tbody td[data-label='Duplicate of']").all_inner_texts()
    assert all(t.startswith("the record of the same title · Import: refs.ris") for t in kept), kept
    shoot(page, "prisma-2020-records-duplicates.png", full_page=True)
