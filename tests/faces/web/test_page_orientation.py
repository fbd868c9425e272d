"""A newcomer's pass over the pages (look13): the outcome of a form is above the forms that
ask again, a Study's pages keep the Study when they open a paper, a normal state is not
coloured as a danger, the words count right, and a long Study name or a filter row stays on
a phone's screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests._shots import shoot
from tests.faces.web._server import Running

RIS = (
    "TY  - JOUR\nTI  - Patient experiences of structured heart failure programmes\n"
    "AU  - Tully, Nuala E.\nPY  - 2010\nDO  - 10.1155/2010/157939\nER  - \n\n"
    "TY  - JOUR\nTI  - Exercise training in chronic heart failure\n"
    "AU  - Ammar, Waleed\nPY  - 2018\nDO  - 10.5555/graph.1\nER  - \n"
)
LONG_NAME = "Structured telemonitoring programmes for adults with chronic heart failure (update)"


def _study(c: Any, name: str = "Heart failure") -> str:
    sid: str = c.post("/api/v1/studies", json={"name": name}).json()["id"]
    files = [("files", ("refs.ris", RIS.encode(), "application/x-research-info-systems"))]
    r = c.post("/api/v1/imports", params={"study": sid}, files=files)
    assert r.status_code == 200, r.text
    return sid


def test_zotero_says_what_happened_above_its_forms(running: Running) -> None:
    with running.writer() as c:
        token = c.cookies.get("ld_csrf")
        missing = c.post("/zotero/import", data={"csrf_token": token, "data_dir": "/no/such"})
    assert missing.status_code == 404
    text = missing.text
    assert 'id="zotero-error"' in text
    # the error first, then the forms that ask again (it was below both forms)
    assert text.index('id="zotero-error"') < text.index('id="zotero-form"')
    assert text.index('id="zotero-error"') < text.index('id="zotero-web-form"')
    # the Library field's help is a hint above its box, as on every other form
    hint = re.search(r'<span class="hint" id="web-library-help">[^<]+</span>\s*<input', text)
    assert hint, "the Library hint is not a .hint before its input"


def test_a_studys_full_text_page_opens_papers_in_the_study(running: Running) -> None:
    with running.writer() as c:
        sid = _study(c)
        page = c.get(f"/study/{sid}/fulltext", params={"show": "all"})
        assert page.status_code == 200
        links = re.findall(r'href="(/paper/[^"#]+)', page.text)
        assert len(links) == 2, links
        assert all(f"study={sid}" in link for link in links), links
        reader = c.get(links[0].replace("&amp;", "&"))
    crumbs = re.search(r'<nav class="crumbs"[^>]*>(.*?)</nav>', reader.text, re.S)
    assert crumbs and f'href="/study/{sid}"' in crumbs.group(1)  # back to the Study
    assert "Saved papers" not in crumbs.group(1)


def test_a_paper_without_full_text_is_no_danger_on_the_study_page(running: Running) -> None:
    with running.writer() as c:
        sid = _study(c)
        page = c.get(f"/study/{sid}").text
    # under the column "PDF or full text": neutral, as the full-text page's "no full text yet"
    missing = re.findall(r'<span class="([^"]+)">none yet</span>', page)
    assert missing == ["tag", "tag"]
    # "attach a PDF" opens the full-text page's list that holds the paper (its default list is
    # the papers screening sought, which a paper nobody screened is not in)
    attach = re.findall(r'href="([^"]+)">attach a PDF</a>', page)
    assert len(attach) == 2 and all("/fulltext?show=missing#paper-" in a for a in attach), attach
    assert "tag bad" not in page


def test_the_confirmations_count_in_words(running: Running) -> None:
    with running.writer() as c:
        sid = _study(c)
        own = c.get("/trash/empty").text
        study = c.get(f"/study/{sid}/trash/empty").text
    assert "item(s)" not in own and "item(s)" not in study
    # nothing in either trash: said plainly, no "Delete the 0 items" and no button to press
    for text in (own, study):
        assert "The trash is empty: there is nothing to empty." in text
        assert "Delete the 0" not in text and 'id="confirm-action"' not in text


def test_a_missing_page_says_not_found(running: Running) -> None:
    with running.client() as c:
        r = c.get("/no/such/page")
    assert r.status_code == 404
    assert re.search(r"<h1>Not found</h1>", r.text)


@pytest.mark.slow
def test_a_long_study_name_and_the_filters_stay_on_a_phone(browser: Any, running: Running) -> None:
    with running.writer() as c:
        sid = _study(c, LONG_NAME)
    context = browser.new_context(viewport={"width": 390, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    try:
        pg.goto(f"{running.base}/search?q=tumour+growth&study={sid}")
        pg.locator("html[data-ready]").wait_for(state="attached")
        assert pg.locator("#whole-search select").count() == 1  # the form with the name is there
        width = pg.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the search page scrolls sideways at 390 px ({width} px)"
        select = pg.locator("#whole-search select").bounding_box()
        assert select is not None and select["x"] + select["width"] <= 390
        # Saved papers' filters are the bar every list has (its rules were in a sheet the
        # page did not load): raised, bordered, and inside the screen
        pg.goto(f"{running.base}/saved")
        pg.locator("html[data-ready]").wait_for(state="attached")
        bar = pg.evaluate(
            """() => { const s = getComputedStyle(document.querySelector('.filters-bar'));
                 return [s.display, s.borderTopStyle, s.backgroundColor]; }"""
        )
        assert bar[0] == "flex" and bar[1] == "solid" and bar[2] != "rgba(0, 0, 0, 0)", bar
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
        shoot(pg, "saved-390.png", full_page=True)
    finally:
        context.close()


def test_the_studys_notebook_and_evidence_lead_back_to_it(running: Running) -> None:
    with running.writer() as c:
        sid = _study(c)
        filtered = {w: c.get(f"/{w}", params={"study": sid}).text for w in ("evidence", "notebook")}
        whole = {w: c.get(f"/{w}").text for w in ("evidence", "notebook")}
    for what, text in filtered.items():
        crumbs = re.search(r'<nav class="crumbs"[^>]*>(.*?)</nav>', text, re.S)
        assert crumbs, f"/{what}?study= has no way back to the Study"
        assert f'href="/study/{sid}">Heart failure</a>' in crumbs.group(1)
    for what, text in whole.items():
        assert 'class="crumbs"' not in text, f"/{what} (every Study) names one"
