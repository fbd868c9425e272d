"""Every page of the web face, in Debian's chromium, at 1280 px and 420 px wide, light and
dark (issue 34): no table cell narrower than its longest word, no sideways page scroll
(outside ``.table-wrap``), axe-core clean (serious/critical, WCAG 2 A/AA); on each main page
at 1280 px the top bar is one row, the current page marked, no console error
(:data:`TOP_BAR_PAGES`). The other page tests leave these checks of a page to this test,
which loads every page anyway (``test_accessibility``'s page walk and
``test_design_browser``'s top-bar test were folded in here).

The pages come from the app's own routes (every GET outside ``/api/v1``): each is listed in
``PAGES`` with the address(es) that show it filled with a populated workspace's records, or
in ``NOT_PAGES`` with why it is no HTML page (a download, an image, a redirect). A route in
neither fails :func:`test_every_page_route_is_checked`, so a page added later is checked too.

The error texts the web face shows (a missing page, a bad form, a failed search) name no
exception class (:func:`test_error_texts_name_no_exception_class`).
"""

from __future__ import annotations

import importlib
import os
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from tests._model_servers import ScriptedModelServer, model_server
from tests.faces.web._hosting import Hosting, client_for
from tests.faces.web._idor import AnaRecords, make_ana_records
from tests.faces.web._oa_citations import write_openalex
from tests.faces.web._page_checks import AXE, COLOUR_RULES, view_checks, with_axe
from tests.faces.web._server import Running
from tests.faces.web.test_team_idor_pages import page_routes

from litdesk import LitdeskError, Settings
from litdesk.faces.web import create_app
from litdesk.faces.web.routes.chat import CHAT_COOKIE
from litdesk.services.demo import build_demo

pytestmark = pytest.mark.slow

#: where screenshots are kept (read at import: the settings fixture clears LITDESK_* variables)
ARTIFACTS = os.environ.get("LITDESK_ARTIFACTS", "")

#: the views of every page: width, colour scheme, which of axe's rules run there ("all": every
#: WCAG 2 A/AA rule; "colours": those of them that read colours, :data:`COLOUR_RULES`; "":
#: none). axe's rules read the colours and the layout; the dark scheme changes colours only
#: (:func:`test_dark_scheme_changes_colours_only`), so in the dark only the colour rules can
#: find what they did not find in the light at that width; and dark at 420 px has the colours
#: of dark at 1280 px and the layout of light at 420 px, so axe is spared there (the layout
#: checks still run)
VIEWS: tuple[tuple[int, str, str], ...] = (
    (1280, "light", "all"),
    (420, "light", "all"),
    (1280, "dark", "colours"),
    (420, "dark", ""),
)
#: axe's rules by the names in :data:`VIEWS` (None: every WCAG 2 A/AA rule)
AXE_RULES: dict[str, tuple[str, ...] | None] = {"all": None, "colours": COLOUR_RULES}

#: with $LITDESK_ARTIFACTS set, every page view is kept as a screenshot (else those with
#: problems only)
SHOOT_ALL = bool(ARTIFACTS)
#: every HTML page route → the addresses that show it (``{name}``: a record of the
#: populated workspace, see :class:`Ids`)
PAGES: dict[str, tuple[str, ...]] = {
    "/search": ("/search", "/search?q=tumour+growth", "/search?q=tumour+growth&study={study}"),
    "/saved": ("/saved", "/saved?text=tumour"),
    "/paper/{paper_id}": ("/paper/{paper}", "/paper/{noted}"),
    "/notebook": ("/notebook",),
    "/evidence": ("/evidence", "/evidence?subject=mesh:D003920"),
    "/studies": ("/studies",),
    "/study/{ref}": ("/study/{study}",),
    "/study/{ref}/form": ("/study/{study}/form",),
    "/study/{ref}/working-set": ("/study/{study}/working-set",),
    "/study/{ref}/prisma": ("/study/{study}/prisma",),
    "/study/{ref}/prisma-2020/records": ("/study/{study}/prisma-2020/records?box=screened",),
    "/study-search-jobs/{job_id}": ("/study-search-jobs/{search_job}",),
    "/citations": ("/citations?mode=references&ids=OAX-W100",),
    "/study/{ref}/dedup": ("/study/{study}/dedup",),
    "/library": ("/library",),
    "/library/pdf/{sha}": ("/library/pdf/{sha}",),
    "/library/pdf/{sha}/record": ("/library/pdf/{sha}/record",),
    "/chat": ("/chat",),
    "/chat/round/{number}": ("/chat/round/1",),
    "/chat/history": ("/chat/history",),
    "/chat/history/{chat_id}": ("/chat/history/{chat}",),
    "/chat/history/{chat_id}/round/{number}": ("/chat/history/{chat}/round/1",),
    "/reports": ("/reports",),
    "/reports/new": ("/reports/new",),
    "/reports/job/{job_id}": ("/reports/job/{build}",),
    "/reports/view/{build_id}": ("/reports/view/{build}",),
    "/zotero": ("/zotero",),
    "/zotero/push": ("/zotero/push?study={study}",),
    "/study/{ref}/fulltext": ("/study/{study}/fulltext",),
    "/study/{ref}/delete": ("/study/{study}/delete",),
    "/study/{ref}/trash": ("/study/{study}/trash",),
    "/trash": ("/trash",),
    "/study/{ref}/trash/empty": ("/study/{study}/trash/empty",),
    "/trash/empty": ("/trash/empty",),
    "/study/{ref}/history": ("/study/{study}/history",),
    "/study/{ref}/screen": ("/study/{study}/screen",),
    "/study/{ref}/screen/progress": ("/study/{study}/screen/progress",),
    "/study/{ref}/screen/items": ("/study/{study}/screen/items",),
    "/study/{ref}/screen/history": ("/study/{study}/screen/history?record={record}",),
    "/study/{ref}/screen/settings": ("/study/{study}/screen/settings",),
    "/study/{ref}/screen/conflicts": ("/study/{study}/screen/conflicts",),
    "/study/{ref}/screen/agreement": ("/study/{study}/screen/agreement",),
    "/study/{ref}/screen/exchange": ("/study/{study}/screen/exchange",),
    "/about": ("/about",),
    "/subject/{vocabulary}/{subject_id}": ("/subject/mesh/D003920",),
}
#: the main pages (the top menu's links and those under its "More"): at 1280 px, light, the
#: top bar is one row on each, as it is and with its widest header (:data:`_BAR_JS`), the
#: current page marked, no console error (the check of ``test_design_browser``'s top-bar
#: test, moved here: this test loads these pages anyway)
TOP_BAR_PAGES = (
    "/search", "/search?q=tumour+growth", "/saved", "/notebook", "/evidence", "/studies",
    "/study/{study}", "/study/{study}/screen", "/study/{study}/prisma", "/study/{study}/dedup",
    "/library", "/citations?mode=references&ids=OAX-W100", "/chat", "/reports", "/zotero",
    "/about",
)  # fmt: skip
#: the main pages under "More" (their link and "More" are marked as the current page)
UNDER_MORE = ("/citations", "/chat", "/reports", "/zotero", "/about")
#: addresses that answer with an error page (its status), checked like every page
ERROR_PAGES: dict[str, int] = {
    "/search?q=growth+AND+(": 400,
    "/paper/MED-1": 404,
    "/no/such/page": 404,
}
#: GET routes outside the API that are no HTML page, and what they are
NOT_PAGES: dict[str, str] = {
    "/": "a redirect to /search",
    "/runs/{run_id}/export": "a download (RIS/CSV/BibTeX)",
    "/saved/export": "a download (RIS/CSV/BibTeX)",
    "/notebook/export": "a download (Markdown)",
    "/evidence/export": "a download (CSV)",
    "/study/{ref}/working-set/export": "a download",
    "/study/{ref}/prisma/export": "a download",
    "/study/{ref}/prisma-2020/export": "a download",
    "/study/{ref}/prisma-2020.svg": "an image",
    "/study/{ref}/prisma.svg": "an image",
    "/study/{ref}/export.zip": "a download (ZIP)",
    "/library/pdf/{sha}/page/{number}.jpg": "an image",
    "/reports/download/{build_id}": "a download (the report's HTML file)",
    "/study/{ref}/reports/{report_id}.html": "a download (a Study report's HTML file)",
    "/study/{ref}/screen/export": "a download (decisions)",
    "/demo/export.ris": "a download (the demo export file; the demo workspace only)",
}


def _get_routes(app: Any) -> set[str]:
    return {r.path for r in page_routes(app) if "GET" in r.methods}


def test_every_page_route_is_checked(tmp_settings: Settings) -> None:
    routes = _get_routes(create_app(tmp_settings))
    assert len(routes) > 40  # the routes really were walked
    unlisted = routes - PAGES.keys() - NOT_PAGES.keys()
    assert not unlisted, f"GET routes this test does not check (add them to PAGES): {unlisted}"
    gone = (PAGES.keys() | NOT_PAGES.keys()) - routes
    assert not gone, f"routes listed here that the app no longer has: {gone}"


#: the web face's files, where a colour scheme could be told apart
WEB = Path(__file__).resolve().parents[3] / "src" / "litdesk" / "faces" / "web"
#: what a dark-scheme rule may set: colours (and the picture's colour filter)
_COLOUR_PROPERTIES = {"color", "background-color", "border-color", "outline-color", "filter"}
_COLOUR_VALUE = re.compile(r"#[0-9a-fA-F]{3,8}\b|\b(?:rgb|rgba|hsl|hsla)\(")


def _dark_blocks(css: str) -> list[str]:
    """The bodies of the ``@media (prefers-color-scheme: dark)`` rules of a style sheet."""
    blocks = []
    for m in re.finditer(r"@media\s*\(\s*prefers-color-scheme\s*:\s*dark\s*\)\s*\{", css):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(css[i], 0)
            i += 1
        blocks.append(css[m.end() : i - 1])
    return blocks


def test_dark_scheme_changes_colours_only() -> None:
    """The dark scheme sets colours only (colour variables, colour properties, the PRISMA
    picture's filter) and only in the style sheets' media rules: the page's DOM and layout
    are those of the light scheme, so axe's rules but the colour ones find in the dark what
    they find in the light (the every-page test runs only those in the dark)."""
    sheets = sorted((WEB / "static").rglob("*.css"))
    blocks = [b for sheet in sheets for b in _dark_blocks(sheet.read_text(encoding="utf-8"))]
    assert len(blocks) >= 2  # the sheets really were read
    wrong = []
    for block in blocks:
        for prop, value in re.findall(r"([\w-]+)\s*:\s*([^;{}]+)", block):
            if prop in _COLOUR_PROPERTIES or prop == "color-scheme":
                continue
            if not (prop.startswith("--") and _COLOUR_VALUE.search(value)):
                wrong.append(f"{prop}: {value.strip()}")
    assert not wrong, f"dark-scheme rules that set more than colours: {wrong}"
    elsewhere = [
        str(f.relative_to(WEB))
        for f in sorted(WEB.rglob("*"))
        if f.is_file()
        and f.suffix in {".js", ".html", ".py"}
        and re.search(r"prefers-color-scheme|color-scheme\s*:\s*dark", f.read_text("utf-8"))
    ]
    assert not elsewhere, f"a colour scheme told apart outside the style sheets: {elsewhere}"


# --- a populated workspace ----------------------------------------------------------------


@dataclass
class Ids:
    """The records the page addresses name."""

    paper: str
    study: str
    record: str
    sha: str
    report: str
    chat: str
    build: str
    search_job: str
    #: a paper with a highlight (its comment too), a note and evidence: the reader and the
    #: notebook with a highlight
    noted: str

    def fill(self, template: str) -> str:
        return template.format(**vars(self))


def _wait(c: httpx.Client, url: str, seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        got: dict[str, Any] = c.get(url).json()
        job = got.get("job", got)
        if job["status"] not in ("queued", "running") or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def _populate(c: httpx.Client, model: ScriptedModelServer, folder: Path) -> Ids:
    """Every kind of record a page shows (the IDOR test's, made by one account), a
    highlight with a comment, a finished report build and a Study search job."""
    ana: AnaRecords = make_ana_records(c, model, folder)
    v = ana.values
    abstract = c.get(f"/api/v1/papers/{ana.private_paper}").json()["paper"]["abstract"]
    marked = c.post(
        f"/api/v1/papers/{ana.private_paper}/highlights",
        json={"text": abstract[:12], "start": 0, "comment": "note"},
    )
    assert marked.status_code == 200, marked.text
    build = c.post(
        "/api/v1/reports/build", json={"papers": [ana.file], "questions": ["What was found?"]}
    )
    assert build.status_code == 202, build.text
    built = _wait(c, f"/api/v1/reports/jobs/{build.json()['id']}")
    assert built["status"] == "done", built
    job = c.post(
        f"/api/v1/studies/{ana.study_id}/searches",
        json={"q": "tumour growth", "provider": ["europepmc"], "cap": 100},
    )
    assert job.status_code == 202, job.text
    _wait(c, f"/api/v1/study-search-jobs/{job.json()['job']['id']}")
    return Ids(
        paper=ana.study_paper,
        study=ana.study_id,
        record=v["record_key"][0],
        sha=v["sha"][0],
        report=v["report_id"][0],
        chat=v["chat_id"][0],
        build=built["result"]["build_id"],
        search_job=job.json()["job"]["id"],
        noted=ana.private_paper,
    )


#: the records a page address may name that the demo workspace has (its Study, a paper of
#: it, a screening record): those pages are checked on the demo, with its real records
DEMO_NAMES = ("study", "paper", "record")


@dataclass
class Workspace:
    base: str
    ids: Ids
    #: the chat session of the account that populated it (its chat's rounds are its own)
    chat_cookie: str = ""

    def context(self, browser: Any, width: int, scheme: str) -> Any:
        """A browser context at ``width`` px in ``scheme`` with the chat session's cookie,
        axe loaded in each of its pages (:func:`with_axe`)."""
        context = with_axe(
            browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        )
        if self.chat_cookie:
            context.add_cookies(
                [{"name": CHAT_COOKIE, "value": self.chat_cookie, "url": self.base}]
            )
        return context


@contextmanager
def _populated(
    settings: Settings, cassette: Path, folder: Path, hosting: Hosting
) -> Iterator[Workspace]:
    """A workspace with every kind of record a page shows, served for the block."""
    write_openalex(cassette)
    with model_server("openai") as model:
        settings = settings.model_copy(
            update={
                "llm_backend": "openai",
                "chat_model": "scripted-model",
                "openai_base_url": model.base_url,
                "openai_api_key": SecretStr("sk-openai-TESTSECRET-pages"),
                "assist_spacing_seconds": 0,
            }
        )
        app = create_app(settings, host=hosting.host, port=hosting.port, replay=cassette)
        with hosting.serve(app) as transport:
            running = Running(
                hosting.base, hosting.host, hosting.port, cassette, folder / "data", transport
            )
            with running.writer() as c:
                ids = _populate(c, model, folder / "pdfs")
                chat_cookie = c.cookies.get(CHAT_COOKIE)
            assert chat_cookie
            yield Workspace(hosting.base, ids, chat_cookie)


@contextmanager
def _demo(settings: Settings, folder: Path, hosting: Hosting, ids: Ids) -> Iterator[Workspace]:
    """The demo workspace (built in a thread: Playwright's sync API keeps an event loop
    running in this one), served for the block; ``ids`` with its Study's records."""
    with ThreadPoolExecutor(1) as pool:
        made = pool.submit(build_demo, folder / "demo", settings).result()
    app = create_app(settings.for_demo(made.place.directory), host=hosting.host, port=hosting.port)
    with hosting.serve(app) as transport:
        with client_for(hosting.base, transport, 30) as c:
            study = c.get(f"/api/v1/studies/{made.study.study_id}").json()
            paper = study["papers"][0]["id"]
            card = c.get(f"/api/v1/studies/{made.study.study_id}/screening/next").json()
        study_ids = {"study": made.study.study_id, "paper": paper, "record": card["record_key"]}
        yield Workspace(hosting.base, replace(ids, **study_ids))


def _artefacts(tmp_path: Path, name: str) -> Path:
    root = ARTIFACTS
    folder = Path(root) / name if root else tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _view(pg: Any, width: int, scheme: str, at: list[str]) -> None:
    """The page at ``width`` px in ``scheme`` (the checks assert it: :func:`view_checks`);
    ``at`` holds the scheme the page is emulating now (set here): a view that keeps the width
    or the scheme sets it again no more (each resize or scheme switch restyles the whole
    page: ~10 ms of chromium's CPU)."""
    if pg.viewport_size["width"] != width:
        pg.set_viewport_size({"width": width, "height": 900})
    if at != [scheme]:
        pg.emulate_media(color_scheme=scheme)
        at[:] = [scheme]


def _in_order(views: list[tuple[int, str]], width: int, scheme: str) -> list[tuple[int, str]]:
    """``views`` (width, scheme) in the order that switches the least from (``width``,
    ``scheme``): each next view the one that keeps the width, else the scheme, if one does
    (then the first listed)."""
    todo, done = list(views), []
    while todo:
        best = min(todo, key=lambda v: (v[0] != width, v[1] != scheme))
        todo.remove(best)
        done.append(best)
        width, scheme = best
    return done


#: the top bar's boxes (its name, each link of the row, "More", Shortcuts, the account's
#: link), as the page shows it and then with its widest header (five-digit counts, a team
#: account's "Sign out": set on the page, so this runs after every other check of it), the
#: current page's links and whether "More" is marked current, the page's script ready
_BAR_JS = """() => {
  const top = document.querySelector('.top');
  const bar = () => ({height: top.getBoundingClientRect().height,
    parts: [...top.querySelectorAll(
      ':scope > .brand, .nav-links > a, .nav-more > summary, :scope > .help-toggle, :scope > .account'
    )].map(e => {
      const r = e.getBoundingClientRect();
      return {name: e.textContent.trim(), middle: r.top + r.height / 2, right: r.right};
    })});
  const seen = [bar()];
  for (const count of top.querySelectorAll('.nav-count')) {
    count.textContent = '12,345';
    count.hidden = false;
  }
  if (!top.querySelector('.account')) {
    const a = document.createElement('a');
    a.className = 'account';
    a.href = '/logout';
    a.textContent = 'Sign out reviewer.two';
    top.append(a);
  }
  seen.push(bar());
  return {ready: document.documentElement.dataset.ready === '1', bars: seen,
    view: [matchMedia('(prefers-color-scheme: dark)').matches, innerWidth],
    current: top.querySelectorAll('nav a[aria-current="page"]').length,
    more: top.querySelector('.nav-more > summary').getAttribute('class')};
}"""


def _top_bar(pg: Any, url: str, console_errors: list[str]) -> list[str]:
    """The top bar at 1280 px, light (:data:`TOP_BAR_PAGES`): one row, as the page has it and
    with its widest header, lower than 64 px, inside the window; the current page marked
    (its link; "More" when the link is under it); no console error on the page. Changes the
    page's header: the last check of a page."""
    got = pg.evaluate(_BAR_JS)
    assert got["view"] == [False, 1280], f"{url}: the page is in {got['view']}, not light 1280"
    found = [] if got["ready"] else ["the page's script is not ready (html[data-ready])"]
    for widest, bar in zip((False, True), got["bars"], strict=True):
        middles = [part["middle"] for part in bar["parts"]]
        header = f"the top bar{' with the widest header' if widest else ''}"
        if len(bar["parts"]) < 9:
            found.append(f"{header} has {len(bar['parts'])} parts, not 9 or more: {bar}")
            continue
        if max(middles) - min(middles) >= 4:
            found.append(f"{header} is more than one row: {bar}")
        if bar["height"] >= 64:
            found.append(f"{header} is {bar['height']} px high: {bar}")
        if max(part["right"] for part in bar["parts"]) > 1280:
            found.append(f"{header} reaches past 1280 px: {bar}")
    if got["current"] != 1:
        found.append(f"{got['current']} links marked as the current page, not 1")
    under_more = url.startswith(UNDER_MORE)
    if (got["more"] == "current") != under_more:
        found.append(f'"More" marked {got["more"]!r}; its links hold this page: {under_more}')
    found += [f"console error: {text}" for text in console_errors]
    return found


def _check(
    browser: Any, workspace: Workspace, urls: list[str], shots: Path, bars: set[str]
) -> tuple[dict[str, list[str]], list[tuple[float, float, str]]]:
    """Every view of each of ``urls`` in ``workspace``: the problems found, the timings; and
    on those of them in ``bars``, last, the top bar's check at 1280 px, light (:func:`_top_bar`).

    A page is loaded once, at the narrowest width (where its scripts do what they do on a
    phone at load: the nav row is scrolled to the current page's link; at the wider widths
    they do nothing of the kind), and seen at each width by resizing the viewport and in each
    colour scheme by switching the emulated ``prefers-color-scheme`` (the pages' layout is CSS
    media rules of the width, their dark colours CSS media rules of the scheme, which the
    browser applies to the page as it is, as when a reader's window or system changes). In
    each view, in one call (:func:`view_checks`): the view asserted, the layout checks, then
    axe where the view runs it (the rows of long lists it trims are put back after its run, so
    the next view's layout checks see the whole page). The views in the order that resizes
    and switches the least (:func:`_in_order`), from the narrowest width, light, where the
    page loads: axe's run at the narrowest width comes right after the load, with the page's
    scroll offsets as its scripts left them."""
    problems: dict[str, list[str]] = {}
    timing: list[tuple[float, float, str]] = []
    widths = sorted(dict.fromkeys(width for width, _scheme, _axe in VIEWS))
    context = workspace.context(browser, widths[0], "light")
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []  # the console's errors since the last page's load
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    at = ["light"]  # the scheme the page emulates
    views = _in_order([(w, scheme) for w, scheme, _axe in VIEWS], widths[0], "light")
    axed = {(w, scheme): axe for w, scheme, axe in VIEWS}
    for url in urls:
        t0 = time.monotonic()
        _view(pg, widths[0], "light", at)  # where the last page's views ended, if not here
        errors.clear()
        answer = pg.goto(workspace.base + url)
        status = answer.status if answer is not None else 0
        assert status == ERROR_PAGES.get(url, 200), f"{url} answered {status}"
        t1 = time.monotonic()
        found: dict[tuple[int, str], list[str]] = {}
        for width, scheme in views:
            _view(pg, width, scheme, at)
            axe = axed[width, scheme]
            found[width, scheme] = seen = view_checks(
                pg, (scheme == "dark", width), bool(axe), AXE_RULES.get(axe)
            )
            if seen or SHOOT_ALL:  # the page as it was for the checks (axe's trims undone)
                name = re.sub(r"[^\w.-]+", "_", url.strip("/")) or "home"
                pg.screenshot(path=str(shots / f"{name}-{width}-{scheme}.png"), full_page=True)
        if url in bars:
            _view(pg, 1280, "light", at)  # (the last view already)
            bar = _top_bar(pg, url, errors)
            if bar:
                problems[f"{url}: the top bar at 1280 px, light"] = bar
        took = (time.monotonic() - t1) / len(VIEWS)
        for (width, scheme), seen in found.items():
            timing.append((took, (t1 - t0) / len(VIEWS), f"{url} {width} {scheme}"))
            if seen:
                problems[f"{url} at {width} px, {scheme}"] = seen
    context.close()
    return problems, timing


def _on_demo(template: str) -> bool:
    return any("{" + name + "}" in template for name in DEMO_NAMES)


def test_every_page_keeps_its_words_fits_and_passes_axe(
    browser: Any,
    tmp_settings: Settings,
    cassette: Path,
    hosting: Hosting,
    tmp_path: Path,
) -> None:
    if not AXE.is_file():
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("axe-core is not installed (make node)")
        pytest.skip("axe-core is not installed (make node)")
    shots = _artefacts(tmp_path, "every-page")
    print(f"\nscreenshots of the pages {'' if SHOOT_ALL else 'with problems '}in {shots}")
    templates = [u for urls in PAGES.values() for u in urls]
    assert set(TOP_BAR_PAGES) <= set(templates)  # each main page's top bar is checked
    started = time.monotonic()
    with _populated(tmp_settings, cassette, tmp_path, hosting) as workspace:
        ids = workspace.ids
        urls = [ids.fill(u) for u in templates if not _on_demo(u)]
        urls += [u for u in ERROR_PAGES if u not in urls]
        bars = {ids.fill(u) for u in TOP_BAR_PAGES if not _on_demo(u)}
        problems, timing = _check(browser, workspace, urls, shots, bars)
    with _demo(tmp_settings, tmp_path, hosting, ids) as demo:
        urls = [demo.ids.fill(u) for u in templates if _on_demo(u)]
        bars = {demo.ids.fill(u) for u in TOP_BAR_PAGES if _on_demo(u)}
        more, more_timing = _check(browser, demo, urls, shots, bars)
    problems |= more
    timing += more_timing
    took = time.monotonic() - started
    load, check = sum(t[1] for t in timing), sum(t[0] for t in timing)
    print(f"{len(templates)} pages x {len(VIEWS)} views in {took:.0f} s (loading {load:.0f} s,")
    print(f"checks {check:.0f} s); slowest checks: {sorted(timing)[-3:]}")
    report = "\n".join(f"{page}:\n  " + "\n  ".join(found) for page, found in problems.items())
    assert not problems, f"{len(problems)} page views with problems:\n{report}"


# --- error texts --------------------------------------------------------------------------


def _exception_names() -> set[str]:
    for module in ("litdesk.faces.cli", "litdesk.services.app"):  # every area's errors
        importlib.import_module(module)

    names: set[str] = set()
    todo: list[type] = [LitdeskError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return names | {"Traceback", "ValueError", "KeyError", "TypeError", "HTTPException"}


def test_error_texts_name_no_exception_class(running: Running) -> None:
    names = _exception_names()
    assert len(names) > 20 and "CassetteMiss" in names  # the tree really was walked
    shown: dict[str, str] = {}
    with running.writer() as c:
        sid = c.post("/api/v1/studies", json={"name": "Errors"}).json()["id"]
        c.headers.pop("content-type", None)
        answers = {
            "a page that is not there": c.get("/no/such/page"),
            "a paper that is not there": c.get("/paper/MED-1"),
            "a Study that is not there": c.get("/study/no-such-study"),
            "a job that is not there": c.get("/study-search-jobs/" + "0" * 32),
            "a Study without a name": c.post("/studies", data={"name": ""}),
            "a bad query": c.get("/search", params={"q": "growth AND ("}),
            "a search the source cannot answer": c.get("/search", params={"q": "nothing known"}),
            "a file that is no Study export": c.post(
                "/study-imports", files=[("file", ("study.zip", b"just words", "application/zip"))]
            ),
            "a rename to nothing": c.post(f"/study/{sid}/rename", data={"name": ""}),
        }
    for what, r in answers.items():
        text = r.text
        found = sorted(n for n in names if re.search(rf"\b{n}\b", text))
        if found:
            shown[f"{what} ({r.request.method} {r.request.url.path}, {r.status_code})"] = ", ".join(
                found
            )
    assert not shown, f"error texts naming exception classes: {shown}"
