"""A Study's PRISMA-S report (JSON, page, Markdown, HTML, SVG) and its ZIP export and
recovery through the JSON API against a real server on loopback; and one Playwright pass
(Debian chromium) through the report page, the ZIP download and its upload."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from tests._shots import shoot
from tests.faces.web._server import Running

RIS = (
    "TY  - JOUR\nTI  - Tumour growth study number 2\nAU  - Author2, A\nAU  - Second, B\n"
    "JO  - Journal of Tests\nPY  - 2024\nDO  - 10.5555/litdesk.2\nER  - \n\n"
    "TY  - JOUR\nTI  - <script>alert(21)</script> Only imported\nAU  - Roe, R\n"
    "PY  - 2020\nDO  - 10.5555/imported.77\nER  - \n"
)


def _study_with_papers_run_and_import(c) -> dict:
    study = c.post("/api/v1/studies", json={"name": "<b>PRISMA</b> review"}).json()
    data = c.get("/api/v1/search", params={"q": "tumour growth"}).json()
    run_id = data["run"]["id"]
    ids = [card["paper"]["id"] for card in data["cards"][:3]]
    saved = c.post(
        "/api/v1/selection/save", json={"run_id": run_id, "paper_ids": ids, "study": study["id"]}
    )
    assert saved.status_code == 200, saved.text
    c.post(f"/api/v1/runs/{run_id}/save", json={"study": study["id"]}).raise_for_status()
    files = [("files", ("refs.ris", RIS.encode(), "application/x-research-info-systems"))]
    imported = c.post("/api/v1/imports", params={"study": study["id"]}, files=files)
    assert imported.status_code == 200 and imported.json()["imported"][0]["records"] == 2
    ev = c.post(
        f"/api/v1/papers/{ids[0]}/evidence",
        json={
            "finding": "growth slowed",
            "passage": "tumour growth was measured",
            "study": study["id"],
        },
    )
    assert ev.status_code == 200, ev.text
    return c.get(f"/api/v1/studies/{study['id']}").json()


def test_prisma_report_page_downloads_and_flow_diagram(running: Running) -> None:
    with running.writer() as c:
        study = _study_with_papers_run_and_import(c)
        sid = study["id"]
        report = c.get(f"/api/v1/studies/{sid}/prisma").json()
        assert report["study"] == "<b>PRISMA</b> review" and report["study_id"] == sid
        assert {s["run_id"] for s in report["searches"]} == {study["runs"][0]["id"]}
        assert [i["records"] for i in report["imports"]] == [2]
        idn = report["identification"]
        assert idn["records_identified"] == sum(idn["records_per_source"].values()) == 9
        # the imported 10.5555/litdesk.2 is one of the search's hits: one duplicate removed
        assert idn["duplicates_removed"] == 1 and idn["records_after_deduplication"] == 8

        page = c.get(f"/study/{sid}/prisma")
        assert page.status_code == 200
        assert "script-src 'self'" in page.headers["content-security-policy"]
        html = page.text
        assert "&lt;b&gt;PRISMA&lt;/b&gt; review" in html and "<b>PRISMA</b>" not in html
        assert f'src="/study/{sid}/prisma-2020.svg"' in html and "<svg" not in html
        assert "<script>" not in html.split("</head>")[1]  # only the page's module, in head

        md = c.get(f"/api/v1/studies/{sid}/prisma/export", params={"format": "md"})
        assert md.headers["content-type"].startswith("text/markdown")
        assert md.headers["content-disposition"].startswith("attachment;")
        assert "PRISMA" in md.text and "Europe PMC" in md.text
        full = c.get(f"/study/{sid}/prisma/export", params={"format": "html"})
        assert full.headers["content-disposition"].startswith("attachment;")
        assert "default-src 'none'" in full.text and "<script" not in full.text.lower()
        assert "&lt;b&gt;PRISMA&lt;/b&gt;" in full.text
        bad = c.get(f"/api/v1/studies/{sid}/prisma/export", params={"format": "pdf"})
        assert bad.status_code == 422

        svg = c.get(f"/study/{sid}/prisma.svg")
        assert svg.headers["content-type"] == "image/svg+xml"
        assert "script-src 'self'" in svg.headers["content-security-policy"]
        root = ElementTree.fromstring(svg.content)
        tags = {el.tag.rsplit("}", 1)[-1] for el in root.iter()}
        assert tags <= {"svg", "rect", "text", "tspan", "line"}
        assert not [a for el in root.iter() for a in el.attrib if a.lower().startswith("on")]
        assert "Records identified (n = 9)" in "".join(root.itertext())
        assert c.get("/api/v1/studies/nope/prisma").status_code == 404


def test_study_zip_export_and_recovery(running: Running) -> None:
    with running.writer() as c:
        study = _study_with_papers_run_and_import(c)
        sid = study["id"]
        r = c.get(f"/api/v1/studies/{sid}/export")
        assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
        assert r.headers["content-disposition"] == 'attachment; filename="b-PRISMA-b-review.zip"'
        # issue 27: the ZIP's references are the Study's working set (9 records identified
        # by the run and the import, 8 studies — PRISMA's number); issue 28: the kept run's
        # hits are the Study's papers, so its 8 papers are those 8 studies
        assert len(study["papers"]) == 8
        ident = c.get(f"/api/v1/studies/{sid}/prisma").json()["identification"]
        assert r.headers["x-litdesk-records"] == str(ident["records_after_deduplication"]) == "8"
        assert study["working_set"]["studies"] == 8
        zf = zipfile.ZipFile(io.BytesIO(r.content))
        names = zf.namelist()
        assert "manifest.json" in names and "references.ris" in names
        assert zf.read("references.ris").decode("utf-8").count("ER  -") == 8
        assert c.get(f"/study/{sid}/export.zip").status_code == 200

        back = c.post(
            "/api/v1/study-imports",
            files={"file": ("study.zip", r.content, "application/zip")},
            data={"name": "Recovered review"},
        )
        assert back.status_code == 200, back.text
        out = back.json()
        assert out["name"] == "Recovered review" and out["study_id"] != sid
        assert (out["papers"], out["search_runs"], out["imports"]) == (8, 1, 1)
        assert out["notes"] == study["notes"] and out["evidence"] == study["evidence"] == 1
        again = c.get(f"/api/v1/studies/{out['study_id']}").json()
        assert again["evidence"] == 1 and len(again["imports"]) == 1
        assert sorted(p["id"] for p in again["papers"]) == sorted(p["id"] for p in study["papers"])
        # the run is re-created under a fresh id (a ZIP never links an existing run)
        assert [x["id"] for x in again["runs"]] != [x["id"] for x in study["runs"]]
        assert [{**x, "id": ""} for x in again["runs"]] == [{**x, "id": ""} for x in study["runs"]]
        unnamed = c.post(
            "/api/v1/study-imports", files={"file": ("s.zip", r.content, "application/zip")}
        ).json()
        assert unnamed["name"].startswith("<b>PRISMA</b> review (recovered")

        before = len(c.get("/api/v1/studies").json()["studies"])
        corrupt = c.post(
            "/api/v1/study-imports",
            files={"file": ("bad.zip", r.content[: len(r.content) // 2], "application/zip")},
        )
        assert corrupt.status_code == 400
        err = corrupt.json()
        assert err["code"] == "malformed" and "not a readable ZIP" in err["message"]
        # a readable ZIP that is not a Study export is refused with its reason too
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("manifest.json", '{"format": "something else"}')
        foreign = c.post(
            "/api/v1/study-imports", files={"file": ("x.zip", buf.getvalue(), "application/zip")}
        )
        assert foreign.status_code == 400
        assert "not a litdesk Study export" in foreign.json()["message"]
        empty = c.post("/api/v1/study-imports", files={"file": ("e.zip", b"", "application/zip")})
        assert empty.status_code == 400 and empty.json()["code"] == "empty_file"
        assert len(c.get("/api/v1/studies").json()["studies"]) == before  # nothing stored
    with running.client(headers={"origin": running.base}) as plain:
        no_csrf = plain.post(
            "/api/v1/study-imports", files={"file": ("s.zip", r.content, "application/zip")}
        )
        assert no_csrf.status_code == 403


@pytest.fixture
def page(browser: Any):
    context = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.mark.slow
def test_browser_prisma_page_zip_export_and_recovery(
    page: Any, running: Running, tmp_path: Path
) -> None:
    with running.writer() as c:
        sid = _study_with_papers_run_and_import(c)["id"]
    pg = page
    pg.goto(f"{running.base}/study/{sid}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    pg.locator("#prisma-link").click()
    pg.locator("#prisma-imports").wait_for()
    assert "<script>alert(21)</script> Only imported" not in pg.content()  # labels, not titles
    flow = pg.locator("#prisma-2020-flow")  # one diagram: the whole flow, screening included
    flow.wait_for()
    pg.wait_for_function("() => document.getElementById('prisma-2020-flow').complete")
    assert pg.evaluate("() => document.getElementById('prisma-2020-flow').naturalWidth") > 300
    assert "9 records identified" in (flow.get_attribute("alt") or "")
    assert pg.locator("#prisma-flow").count() == 0  # not the identification-only one above it
    assert "· duplicates removed:" in pg.locator("#prisma-identified").inner_text()
    shoot(pg, "prisma.png", full_page=True)

    pg.goto(f"{running.base}/study/{sid}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    with pg.expect_download() as got:
        pg.locator("#zip-export").click()
    zipped = tmp_path / "study.zip"
    got.value.save_as(str(zipped))
    assert zipfile.is_zipfile(zipped)
    pg.locator("#zip-file").set_input_files(str(zipped))
    pg.locator("#zip-name").fill("<img src=x onerror=alert(22)> Recovered")
    pg.locator("#zip-import button").click()
    ok = pg.locator("#zip-report .notice.ok")
    ok.wait_for()
    assert "Recovered Study “<img src=x onerror=alert(22)> Recovered”: 8 papers" in ok.inner_text()
    pg.locator("#zip-file").set_input_files(
        [{"name": "bad.zip", "mimeType": "application/zip", "buffer": b"PK\x03\x04 torn"}]
    )
    pg.locator("#zip-import button").click()
    refused = pg.locator("#zip-report .notice.error")
    refused.wait_for()
    told = refused.inner_text()
    assert "The ZIP was not recovered: Not a readable ZIP" in told and "Nothing was stored" in told
    assert pg.locator("main img").count() == 0  # the name was shown as text
    pg.goto(f"{running.base}/studies")
    assert "<img src=x onerror=alert(22)> Recovered" in pg.locator("main").inner_text()
    # only the refused upload's 400 was logged: no CSP violation, no failed script or image
    assert [e for e in pg.console_errors if "status of 400" not in e] == []
    assert len(pg.console_errors) == 1


def test_browser_study_numbers_and_working_set(page: Any, running: Running) -> None:
    """Issue 27: the Study page shows records identified / duplicates removed / studies, the
    working set page lists each study with its members (titles, not ids) and rules, and both
    have JSON twins in the OpenAPI document."""
    with running.writer() as c:
        sid = _study_with_papers_run_and_import(c)["id"]
        ws = c.get(f"/api/v1/studies/{sid}/working-set").json()
        records = c.get(f"/api/v1/studies/{sid}/records").json()
        prisma = c.get(f"/api/v1/studies/{sid}/prisma").json()["identification"]
        paths = c.get("/api/v1/openapi.json").json()["paths"]
        ris = c.get(f"/api/v1/studies/{sid}/working-set/export", params={"format": "ris"})
    assert {
        "/api/v1/studies/{ref}/working-set",
        "/api/v1/studies/{ref}/records",
        "/api/v1/studies/{ref}/working-set/export",
    } <= set(paths)
    counts = ws["counts"]
    assert counts == records["counts"]
    assert counts["records_identified"] == prisma["records_identified"] == 9
    assert counts["studies"] == prisma["records_after_deduplication"] == 8
    assert ris.status_code == 200 and ris.text.count("ER  -") == 8
    assert {r["source_kind"] for r in records["records"]} == {"run", "import"}
    joined = [g for g in ws["working_set"] if len(g["members"]) > 1]
    assert len(joined) == 1 and joined[0]["members"][1]["rule"].startswith("shared identifier")

    pg = page
    pg.goto(f"{running.base}/study/{sid}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert pg.locator("#count-records").inner_text() == "9"  # records identified
    assert pg.locator("#count-duplicates").inner_text() == "1"  # duplicates removed
    assert pg.locator("#count-working-set").inner_text() == "8"  # studies in the working set
    shoot(pg, "study-numbers.png", full_page=True)
    pg.locator("#working-set-link").click()
    pg.locator("#working-set").wait_for()
    listed = pg.locator("#working-set").inner_text()
    assert joined[0]["title"] in listed and "shared identifier" in listed
    assert sid not in listed  # titles, not ids
    assert len(pg.locator("#working-set tbody tr").all()) == 8
    # BibTeX, which the export offered, had no button (RIS and CSV had)
    bib = pg.request.get(running.base + pg.locator("#export-bibtex").get_attribute("href"))
    assert bib.status == 200 and bib.text().count("\n@") + bib.text().startswith("@") == 8
    shoot(pg, "working-set.png", full_page=True)
    assert pg.console_errors == []
