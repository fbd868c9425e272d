"""The README's quick start ("Your first review in ten minutes") walked in a browser on the
demo workspace, step by step as the README tells it: what a newcomer clicks and types, and a
screenshot after each step. Used by the browser test (every width and colour scheme) and by
``tools/screenshots.py`` (the README's images)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CLICKED", "QUERY", "STEPS", "Walked", "walk_quickstart"]

#: the ten steps, named as the README's images are (docs/img/quickstart-<step>.png)
STEPS = (
    "01-run",
    "02-study",
    "03-search",
    "04-import",
    "05-dedup",
    "06-screen",
    "07-read",
    "08-evidence",
    "09-prisma",
    "10-export",
)
#: the query of step 3 (the README's)
QUERY = "knee AND cartilage"
#: what each step clicks or types, as the README's quick start must say it
CLICKED: dict[str, tuple[str, ...]] = {
    "01-run": ("make run", "http://127.0.0.1:8765"),
    "02-study": ("Studies", "Stem cells for knee osteoarthritis (demo)"),
    "03-search": ("Search for more", QUERY, "Search"),
    "04-import": ("Import export files", "demo-export.ris"),
    "05-dedup": ("Deduplicate",),
    "06-screen": ("Screen titles and abstracts", "Include", "Exclude"),
    "07-read": (),
    "08-evidence": ("Record evidence", "Finding", "Supporting passage"),
    "09-prisma": ("PRISMA flow and report",),
    "10-export": ("Evidence table", "Export as CSV", "Export this Study (ZIP)"),
}
#: how many records step 6 screens
SCREENED = 3
#: a step's wait for what it changed (the machine may be busy)
WAIT_MS = 60_000

Shot = Callable[[str], None]


@dataclass
class Walked:
    """What the walk saw: the figures a test checks."""

    study_url: str = ""
    papers_before: int = 0
    papers_after_import: int = 0
    results: int = 0
    paper_url: str = ""
    quote: str = ""
    downloads: dict[str, int] = field(default_factory=dict)


def _role(pg: Any, role: str, name: str, *, exact: bool = False) -> Any:
    """The first element of ``role`` whose accessible name is ``name`` (a regular expression
    unless ``exact``), in the main part of the page."""
    named: Any = name if exact else re.compile(name, re.I)
    return pg.locator("main").get_by_role(role, name=named, exact=exact).first


def _papers(pg: Any) -> int:
    """The Study page's paper count (its heading "283 papers")."""
    heading = pg.locator("main h2").filter(has_text=re.compile(r"^\s*[\d,]+ papers?\s*$"))
    text = heading.first.inner_text(timeout=WAIT_MS)
    return int(re.sub(r"\D", "", text))


def _back_to_study(pg: Any, walked: Walked) -> None:
    """The breadcrumb back to the Study (every page of a Study has one)."""
    crumbs = pg.locator("nav.crumbs")
    if crumbs.count():
        crumbs.get_by_role("link").last.click()
        pg.wait_for_url(re.compile(re.escape(walked.study_url) + r"(\?|#|$)"))
    else:  # a page without crumbs: the Study's address, as the README's link
        pg.goto(walked.study_url)


def walk_quickstart(pg: Any, base: str, export: Path, shot: Shot) -> Walked:
    """Walk the ten steps from ``base`` (the demo workspace), importing ``export`` (the demo
    export file) in step 4; ``shot(step)`` after each step."""
    walked = Walked()
    pg.set_default_timeout(WAIT_MS)
    # 1 run: the address `make run` opens
    pg.goto(base + "/")
    pg.locator("main h1").first.wait_for()
    shot("01-run")
    # 2 the demo Study: Studies in the top navigation, then the Study
    pg.get_by_role("navigation", name="Workspace").get_by_role("link", name="Studies").click()
    _role(pg, "link", r"\(demo\)").click()
    pg.wait_for_url(re.compile(r"/study/[^/?#]+$"))
    walked.study_url = pg.url
    walked.papers_before = _papers(pg)
    shot("02-study")
    # 3 search the demo source from the Study
    _role(pg, "link", r"^Search for more").click()
    pg.get_by_label("Query", exact=True).fill(QUERY)
    _role(pg, "button", "Search", exact=True).click()
    results = pg.locator("#results")
    results.locator("h2, h3").first.wait_for()
    walked.results = results.locator("h2, h3").count()
    pg.locator("#results-h").scroll_into_view_if_needed()  # the query and the first results
    shot("03-search")
    # 4 import the demo export file on the Study page; the count follows without a reload
    pg.goto(walked.study_url)
    pg.locator("main input[type=file]#import-files").set_input_files(str(export))
    pg.wait_for_function(
        "before => { const h = Array.from(document.querySelectorAll('main h2'))"
        ".find(e => /^\\s*[\\d,]+ papers?\\s*$/.test(e.textContent));"
        " return h && parseInt(h.textContent.replace(/\\D/g, ''), 10) > before; }",
        arg=walked.papers_before,
    )
    walked.papers_after_import = _papers(pg)
    shot("04-import")
    # 5 deduplicate: run it, the duplicates found
    _role(pg, "link", r"^Deduplicate").click()
    pg.wait_for_url(re.compile(r"/dedup"))
    _role(pg, "button", r"^(Run|Find)").click()
    pg.wait_for_url(re.compile(r"/dedup\?job="))
    pg.locator("#job").wait_for(state="detached")  # the run's progress, shown while it runs
    shot("05-dedup")
    # 6 screen a few records by title and abstract
    _back_to_study(pg, walked)
    _role(pg, "link", r"^Screen titles and abstracts").click()
    for i in range(SCREENED):
        heading = pg.locator("main h2").nth(0).inner_text()
        _role(pg, "button", r"^(Include|Exclude)" if i else r"^Include").click()
        pg.wait_for_function(
            "before => { const h = document.querySelector('main h2');"
            " return h && h.textContent !== before; }",
            arg=heading,
        )
    pg.evaluate("() => window.scrollTo(0, 0)")
    shot("06-screen")
    # 7 read one: a paper's title on the Study page opens the reader
    _back_to_study(pg, walked)
    pg.locator("main a[href^='/paper/']").first.click()
    pg.wait_for_url(re.compile(r"/paper/"))
    walked.paper_url = pg.url
    abstract = pg.locator("main section").filter(has=pg.get_by_role("heading", name="Abstract"))
    text = abstract.first.inner_text().replace("Abstract", "", 1).strip()
    shot("07-read")
    # 8 record evidence: a finding and a passage copied verbatim from the abstract
    walked.quote = _sentence(text)
    pg.locator("details.record-evidence > summary").click()
    pg.get_by_label(re.compile(r"^Finding")).fill("What the authors report (quick start).")
    pg.get_by_label(re.compile(r"^Supporting passage")).fill(walked.quote)
    evidence = pg.locator("#evidence-list")
    before = evidence.inner_text()
    _role(pg, "button", "Record evidence", exact=True).click()
    pg.wait_for_function(
        "before => { const e = document.querySelector('#evidence-list');"
        " return e && e.innerText !== before; }",
        arg=before,
    )
    pg.locator("#evidence").scroll_into_view_if_needed()
    shot("08-evidence")
    # 9 PRISMA: the Study's flow
    _back_to_study(pg, walked)
    _role(pg, "link", r"^PRISMA").click()
    pg.wait_for_url(re.compile(r"/prisma"))
    shot("09-prisma")
    # 10 export: the evidence table as CSV, and the whole Study as a ZIP
    _back_to_study(pg, walked)
    with pg.expect_download() as got:
        _role(pg, "link", r"^Export this Study").click()
    walked.downloads["study.zip"] = Path(got.value.path()).stat().st_size
    _role(pg, "link", r"^Evidence table").click()
    pg.wait_for_url(re.compile(r"/evidence"))
    with pg.expect_download() as got:
        _role(pg, "link", r"^Export as CSV").click()
    walked.downloads["evidence.csv"] = Path(got.value.path()).stat().st_size
    shot("10-export")
    return walked


def _sentence(text: str) -> str:
    """A passage of the abstract to quote: its first sentence of some length, verbatim."""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if 40 <= len(sentence) <= 400:
            return sentence
    return text[:200]
