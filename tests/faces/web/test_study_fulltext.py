"""A Study's PDFs and licensed full text through the web (issue 27): the JSON API and the
pages' forms against the app with real library PDFs ($LITDESK_FIXTURES/pdf): match
(DOI linked, verified title suggested), confirm from the Study page, a PDF uploaded for one
paper (the library's checks), the Study page's counts changing with the work, OpenAPI."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests._shots import shoot
from tests.faces.web._hosting import Hosting
from tests.faces.web._server import Running

from litdesk.faces.web import create_app

pytestmark = pytest.mark.fixtures

RIS = (
    "TY  - JOUR\nTI  - Patient experiences of structured heart failure programmes\n"
    "AU  - Tully, Nuala E.\nPY  - 2010\nDO  - 10.1155/2010/157939\nER  - \n\n"
    "TY  - CONF\nTI  - SPECTER: Document-level Representation Learning using "
    "Citation-informed Transformers\nAU  - Cohan, Arman\nAU  - Feldman, Sergey\nPY  - 2020\n"
    "ER  - \n\n"
    "TY  - JOUR\nTI  - <script>alert(7)</script> Construction of the Literature Graph\n"
    "AU  - Ammar, Waleed\nPY  - 2018\nDO  - 10.5555/graph.1\nER  - \n"
)


@pytest.fixture
def running(
    tmp_settings: Any, cassette: Path, tmp_path: Path, hosting: Hosting, fixtures_dir: Path
) -> Iterator[Running]:
    library = tmp_path / "pdfs"
    library.mkdir()
    for name in ("hindawi_rrp_2010_157939.pdf", "acl_2020_main_207_specter.pdf"):
        shutil.copyfile(fixtures_dir / "pdf" / name, library / name)
    settings = tmp_settings.model_copy(update={"library_dirs": [library]})
    app = create_app(settings, host=hosting.host, port=hosting.port, replay=cassette)
    with hosting.serve(app) as transport:
        yield Running(
            hosting.base, hosting.host, hosting.port, cassette, tmp_path / "data", transport
        )


def _study(c: Any) -> tuple[str, dict[str, str]]:
    sid = c.post("/api/v1/studies", json={"name": "Heart <i>failure</i>"}).json()["id"]
    files = [("files", ("refs.ris", RIS.encode(), "application/x-research-info-systems"))]
    r = c.post("/api/v1/imports", params={"study": sid}, files=files)
    assert r.status_code == 200, r.text
    papers = c.get(f"/api/v1/studies/{sid}").json()["papers"]
    by = {p["title"][:12]: p["id"] for p in papers}
    return sid, {
        "hindawi": by["Patient expe"],
        "specter": by["SPECTER: Doc"],
        "graph": by["<script>aler"],
    }


def test_match_confirm_attach_and_the_counts_that_follow(
    running: Running, fixtures_dir: Path
) -> None:
    with running.writer() as c:
        sid, ids = _study(c)
        base = f"/api/v1/studies/{sid}/fulltext"
        view = c.get(base).json()
        assert view["counts"]["papers"] == 3
        assert view["counts"]["without_full_text"] == 3

        matched = c.post(f"{base}/match").json()
        assert matched["changed"] == {"linked": 1, "suggested": 1}
        rows = {p["id"]: p for p in matched["papers"]}
        assert rows[ids["hindawi"]]["pdf"]["how"] == "doi"
        assert rows[ids["specter"]]["pdf"]["state"] == "suggested"

        page = c.get(f"/study/{sid}").text
        sha = rows[ids["hindawi"]]["pdf"]["sha256"]
        assert f'PDF: <a href="/library/pdf/{sha}" class="pdf-link"' in page  # a link to read it
        assert ">hindawi_rrp_2010_157939.pdf</a>" in page
        assert "PDF suggested: acl_2020_main_207_specter.pdf" in page
        assert "<strong>2</strong> with neither yet" in page
        assert "<script>alert(7)</script>" not in page

        # the Study page's Confirm (a form, without script): back to the Study page
        r = c.post(
            f"/study/{sid}/fulltext/confirm",
            data={"paper_id": ids["specter"], "back": "study"},
            follow_redirects=False,
        )
        assert r.status_code == 303 and r.headers["location"] == f"/study/{sid}#papers-pdf"
        assert "<strong>1</strong> with neither yet" in c.get(f"/study/{sid}").text

        pdf = (fixtures_dir / "pdf/naacl_2018_N18-3011.pdf").read_bytes()
        r = c.post(
            "/api/v1/study-pdfs",
            params={"study": sid, "paper_id": ids["graph"]},
            files=[("file", ("graph.pdf", pdf, "application/pdf"))],
        )
        assert r.status_code == 200, r.text
        assert r.json()["stored"] and r.json()["file"] == "graph.pdf"
        after = c.get(base).json()
        assert after["counts"]["without_full_text"] == 0
        assert after["counts"]["with_pdf"] == 3
        assert "<strong>0</strong> with neither yet" in c.get(f"/study/{sid}").text

        refused = c.post(
            "/api/v1/study-pdfs",
            params={"study": sid, "paper_id": ids["graph"]},
            files=[("file", ("notes.pdf", b"plain text", "application/pdf"))],
        )
        assert refused.status_code == 400 and "not a PDF" in refused.text

        undone = c.post(f"{base}/undo", json={"paper_id": ids["hindawi"]}).json()
        assert undone["counts"]["without_full_text"] == 1
        missing = c.post(f"{base}/confirm", json={"paper_id": ids["hindawi"]})
        assert missing.status_code == 404

        ft_page = c.get(f"/study/{sid}/fulltext")
        assert ft_page.status_code == 200
        html = ft_page.text
        assert "Heart &lt;i&gt;failure&lt;/i&gt;" in html and "<i>failure</i>" not in html
        # papers, named so: not PRISMA's reports (the flow counts those from screening)
        assert "<strong>1</strong> of the Study's 3 papers have neither" in html
        assert "reports sought</strong>" not in html and "not PRISMA's reports" in html
        assert 'action="/study-pdfs?study=' in html and 'enctype="multipart/form-data"' in html

        prisma = c.get(f"/api/v1/studies/{sid}/prisma").json()
        assert prisma["full_text"] == {"papers": 3, "without_full_text": 1}
        shown = c.get(f"/study/{sid}/prisma").text  # the page's full-text line (issue 28)
        assert "Of the Study's 3 papers, 1 have neither a PDF nor licensed full text" in shown

        started = c.post(f"{base}/check")
        assert started.status_code == 202 and started.json()["job"]["kind"] == "studies.fulltext"

        # a PDF uploaded for the wrong paper: linked, with its doubt on both pages
        wrong = (fixtures_dir / "pdf/plosone_2018_0197919.pdf").read_bytes()
        r = c.post(
            "/api/v1/study-pdfs",
            params={"study": sid, "paper_id": ids["hindawi"]},
            files=[("file", ("wheat.pdf", wrong, "application/pdf"))],
        )
        assert r.status_code == 200, r.text
        doubt = (
            "Check this PDF: its first pages name DOI 10.1371/journal.pone.0197919; "
            "this paper&#39;s is 10.1155/2010/157939"
        )
        assert r.json()["doubt"] == doubt.replace("&#39;", "'")
        assert (
            f'<span class="tag warn pdf-doubt">{doubt}</span>'
            in c.get(f"/study/{sid}/fulltext").text
        )
        assert f'#paper-{ids["hindawi"]}">{doubt}</a>' in c.get(f"/study/{sid}").text
        # and on the full-text screening card, before the reviewer reads it
        rows = c.get(f"/api/v1/studies/{sid}/records").json()["records"]
        key = next(r["group"] for r in rows if r["title"].startswith("Patient expe"))
        r = c.post(
            f"/api/v1/studies/{sid}/screening/decisions",
            json={"stage": "title_abstract", "record_key": key, "verdict": "include"},
        )
        assert r.status_code == 200, r.text
        card = c.get(f"/study/{sid}/screen", params={"stage": "full_text"}).text
        assert f'<p class="tag warn pdf-doubt" id="pdf-doubt">{doubt}</p>' in card


def test_the_api_twins_are_in_openapi_and_writes_need_the_origin(running: Running) -> None:
    with running.client() as plain:
        doc = plain.get("/api/v1/openapi.json").json()
        paths = doc["paths"]
        for path in (
            "/api/v1/studies/{ref}/fulltext",
            "/api/v1/studies/{ref}/fulltext/match",
            "/api/v1/studies/{ref}/fulltext/confirm",
            "/api/v1/studies/{ref}/fulltext/undo",
            "/api/v1/studies/{ref}/fulltext/check",
            "/api/v1/study-pdfs",
        ):
            assert path in paths, path
        assert plain.post("/api/v1/studies/x/fulltext/match").status_code == 403
    with running.writer() as c:
        assert c.get("/api/v1/studies/nope/fulltext").status_code == 404


@pytest.fixture
def page(browser: Any):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.mark.slow
def test_browser_study_page_confirm_and_attach(
    page: Any, running: Running, fixtures_dir: Path
) -> None:
    with running.writer() as c:
        sid, ids = _study(c)
        c.post(f"/api/v1/studies/{sid}/fulltext/match").raise_for_status()
    pg = page
    pg.goto(f"{running.base}/study/{sid}")
    pg.locator("html[data-ready]").wait_for(state="attached")
    counts = pg.locator("#retrieval-counts")
    assert "2 with neither yet" in counts.inner_text()
    shoot(pg, "study-fulltext-study-page.png", full_page=True)
    pg.get_by_role("button", name="Confirm the suggested PDF of SPECTER").click()
    pg.locator("html[data-ready]").wait_for(state="attached")
    assert "1 with neither yet" in pg.locator("#retrieval-counts").inner_text()
    assert "PDF: acl_2020_main_207_specter.pdf" in pg.locator("main").inner_text()

    pg.locator("#fulltext-link").click()
    row = pg.locator(f"[id='paper-{ids['graph']}']")
    row.wait_for()
    row.locator("input[type=file]").set_input_files(
        str(fixtures_dir / "pdf/naacl_2018_N18-3011.pdf")
    )
    row.get_by_role("button", name="Attach").click()
    pg.locator("#ft-prisma").wait_for()
    assert "0 of the Study's 3 papers have neither" in pg.locator("#ft-prisma").inner_text()
    assert "naacl_2018_N18-3011.pdf" in pg.locator(f"[id='paper-{ids['graph']}']").inner_text()
    assert "<script>alert(7)</script>" in pg.locator("main").inner_text()  # shown as text
    shoot(pg, "study-fulltext-page.png", full_page=True)
    assert pg.console_errors == []


def test_full_text_screening_shows_the_linked_pdf_beside_the_form(running: Running) -> None:
    """At the full-text stage a record whose paper has a linked PDF shows the PDF's first
    page and a link to the viewer (by the PDF's sha256), both of which open."""
    import re
    from html import unescape

    with running.writer() as c:
        sid, _ = _study(c)
        assert c.post(f"/api/v1/studies/{sid}/fulltext/match").json()["changed"]["linked"] == 1
        api = f"/api/v1/studies/{sid}/screening"
        rows = c.get(f"{api}/items", params={"stage": "title_abstract"}).json()["rows"]
        key = next(r["record_key"] for r in rows if r["title"].startswith("Patient exp"))
        body = {"stage": "title_abstract", "record_key": key, "verdict": "include"}
        assert c.post(f"{api}/decisions", json=body).status_code == 200
        card = c.get(f"{api}/card", params={"stage": "full_text", "record_key": key}).json()
        sha = card["full_text"]["pdf"]["sha256"]
        assert re.fullmatch(r"[0-9a-f]{64}", sha)
        page = c.get(f"/study/{sid}/screen", params={"stage": "full_text", "record": key}).text
        panel = re.search(r'id="fulltext-panel"(.*?)</section>', page, re.S)
        assert panel is not None
        viewer = re.search(r'href="([^"]+)" id="open-fulltext"', panel[1])
        image = re.search(r'<img src="([^"]+)"[^>]*id="fulltext-page"', panel[1])
        assert viewer and image and "in the PDF viewer" in panel[1]
        assert unescape(viewer[1]) == f"/library/pdf/{sha}"
        shown = c.get(unescape(image[1]))
        assert shown.status_code == 200 and shown.headers["content-type"] == "image/jpeg"
        assert c.get(unescape(viewer[1])).status_code == 200


def test_the_page_lists_the_papers_screening_sought_then_the_others_by_pages(
    running: Running,
) -> None:
    """The full-text page opens on the papers screening sought for retrieval (included or
    "maybe" at title/abstract: PRISMA's reports sought), lists the others on asking, 50 to a
    page (a Study of 283 papers was one page of 283 upload forms, 300 kB, 3 s)."""
    import re

    from litdesk.services.studies import FULLTEXT_PAGE

    many = "".join(
        f"TY  - JOUR\nTI  - Cartilage repair trial number {i}\nPY  - 2019\nER  - \n\n"
        for i in range(FULLTEXT_PAGE + 2)
    )
    with running.writer() as c:
        sid, ids = _study(c)
        files = [("files", ("more.ris", many.encode(), "application/x-research-info-systems"))]
        assert c.post("/api/v1/imports", params={"study": sid}, files=files).status_code == 200
        total = 3 + FULLTEXT_PAGE + 2

        def listed(html: str) -> set[str]:
            return set(re.findall(r'<tr id="paper-([^"]+)"', html))

        before = c.get(f"/study/{sid}/fulltext")  # nothing sought yet: every paper, by pages
        assert before.status_code == 200
        assert 'id="ft-none-sought"' not in before.text and len(listed(before.text)) == 50
        assert "page 1 of 2" in before.text and 'rel="next"' in before.text
        second = c.get(f"/study/{sid}/fulltext", params={"show": "all", "page_no": 2}).text
        assert len(listed(second)) == total - FULLTEXT_PAGE
        assert not listed(before.text) & listed(second)  # two pages, no paper twice

        api = f"/api/v1/studies/{sid}/screening"
        rows = c.get(f"{api}/items", params={"stage": "title_abstract"}).json()["rows"]
        key = next(r["record_key"] for r in rows if r["title"].startswith("Patient exp"))
        other = next(r["record_key"] for r in rows if r["title"].startswith("SPECTER"))
        for k, verdict in ((key, "include"), (other, "exclude")):
            body = {"stage": "title_abstract", "record_key": k, "verdict": verdict}
            assert c.post(f"{api}/decisions", json=body).status_code == 200

        sought = c.get(f"/study/{sid}/fulltext").text  # now: the one sought, by default
        assert listed(sought) == {ids["hindawi"]}
        assert "Sought for retrieval (1)" in sought and 'aria-current="page">Sought' in sought
        missing = c.get(f"/study/{sid}/fulltext", params={"show": "missing"}).text
        assert len(listed(missing)) == 50 and "Without PDF or full text (" in missing
        assert c.get(f"/study/{sid}/fulltext", params={"show": "bogus"}).status_code == 422

        everything = c.get(f"/api/v1/studies/{sid}/fulltext").json()  # the API: all, at once
        assert (len(everything["papers"]), everything["show"]) == (total, "all")
        assert everything["sought"] is None  # not asked of screening
        one = c.get(f"/api/v1/studies/{sid}/fulltext", params={"show": "sought"}).json()
        assert [p["id"] for p in one["papers"]] == [ids["hindawi"]] and one["sought"] == 1
