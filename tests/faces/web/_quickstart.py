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

__all__ = ["CLICKED", "PASSAGE", "QUERY", "STEPS", "Walked", "walk_quickstart"]

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
QUERY = 'knee AND "stem cell"'
#: the paper read in step 7 and the passage of its abstract quoted in step 8 (the README's)
PAPER = "Platelet-Rich Plasma and Adipose-Derived Mesenchymal Stem Cells"
PASSAGE = "Thirty-eight patients diagnosed with a knee monocompartmental cartilage defect"
FINDING = "38 patients randomised after microfracture"
#: what each step clicks or types, as the README's quick start says it
CLICKED: dict[str, tuple[str, ...]] = {
    "01-run": ("make run", "http://127.0.0.1:8765"),
    "02-study": ("Studies", "Stem cells for knee osteoarthritis (demo)"),
    "03-search": ("Search", QUERY),
    "04-import": ("Import export files", "demo-export.ris"),
    "05-dedup": ("Deduplicate", "Run again"),
    "06-screen": ("Screen titles and abstracts", "Include", "Exclude"),
    "07-read": (PAPER,),
    "08-evidence": ("Record evidence", "Use the selected passage", PASSAGE),
    "09-prisma": ("PRISMA flow and report",),
    "10-export": ("Export this Study (ZIP)", "Evidence", "Export as CSV"),
}
#: how many records step 6 screens
SCREENED = 3
#: a step's wait for what it changed (the machine may be busy)
WAIT_MS = 60_000
#: how often a wait for a condition reads the page again: Playwright's default reads it
#: every frame (60 a second; the Study page's text read each time cost chromium 0.1-0.25 s
#: of CPU a second waited), the condition once met stays met
POLL_MS = 100

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


#: the Study page's paper count as it says it ("283 papers")
_COUNT_JS = (
    "() => { const m = document.querySelector('main').innerText.match(/(\\d[\\d,]*) papers?\\b/);"
    " return m ? parseInt(m[1].replace(/,/g, ''), 10) : -1; }"
)


def _papers(pg: Any) -> int:
    """The Study page's paper count."""
    pg.wait_for_function(f"() => ({_COUNT_JS})() >= 0", polling=POLL_MS)
    count: int = pg.evaluate(_COUNT_JS)
    return count


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
    nav = pg.get_by_role("navigation", name="Workspace")
    # 1 run: the address `make run` opens
    pg.goto(base + "/")
    pg.locator("main h1").first.wait_for()
    shot("01-run")
    # 2 the demo Study: Studies in the top navigation, then the Study
    nav.get_by_role("link", name="Studies", exact=True).click()
    _role(pg, "link", "Stem cells for knee osteoarthritis (demo)", exact=True).click()
    pg.wait_for_url(re.compile(r"/study/[^/?#]+$"))
    walked.study_url = pg.url
    walked.papers_before = _papers(pg)
    shot("02-study")
    # 3 search: Search in the top navigation, the query, Search (the demo sample is ticked)
    nav.get_by_role("link", name="Search", exact=True).click()
    pg.get_by_label("Query", exact=True).fill(QUERY)
    _role(pg, "button", "Search", exact=True).click()
    results = pg.locator("main a[href^='/paper/']")  # each result's title opens the reader
    results.first.wait_for()
    walked.results = results.count()
    # the query at the top of the window, the first results below it
    pg.get_by_label("Query", exact=True).evaluate("q => q.scrollIntoView({block: 'start'})")
    shot("03-search")
    # 4 import the demo export file on the Study page; the count follows without a reload
    pg.goto(walked.study_url)
    pg.locator("main input[type=file]#import-files").set_input_files(str(export))
    pg.wait_for_function(
        f"before => ({_COUNT_JS})() > before", arg=walked.papers_before, polling=POLL_MS
    )
    walked.papers_after_import = _papers(pg)
    imports = pg.locator("main h2", has_text=re.compile(r"^\s*Import export files"))
    if imports.count():  # the import as listed under its heading
        imports.first.evaluate("h => h.scrollIntoView({block: 'start'})")
    shot("04-import")
    # 5 deduplicate: run it again, the counts of what was merged
    _role(pg, "link", r"^(Deduplicate|Find duplicates)").click()
    pg.wait_for_url(re.compile(r"/dedup"))
    _role(pg, "button", r"^Run again").click()
    pg.wait_for_url(re.compile(r"/dedup\?job="))
    pg.locator("#job").wait_for(state="detached")  # the run's progress, shown while it runs
    shot("05-dedup")
    # 6 screen a few records by title and abstract
    _back_to_study(pg, walked)
    _role(pg, "link", "Screen titles and abstracts", exact=True).click()
    for i in range(SCREENED):
        heading = pg.locator("main h2").nth(0).inner_text()
        _role(pg, "button", r"^Exclude" if i == 1 else r"^Include").click()
        pg.wait_for_function(
            "before => { const h = document.querySelector('main h2');"
            " return h && h.textContent !== before; }",
            arg=heading,
            polling=POLL_MS,
        )
    pg.evaluate("() => window.scrollTo(0, 0)")
    shot("06-screen")
    # 7 read one: its title on the Study page opens the reader
    _back_to_study(pg, walked)
    paper = _role(pg, "link", "^" + re.escape(PAPER))
    # (each page looked through by its titles' text: the role query works out the accessible
    # name of every link of the page, ~0.1 s of chromium's CPU a look; the click below is
    # the role's, by that name)
    listed = pg.locator("main #papers td.title a", has_text=PAPER)
    for _ in range(20):  # the Study's papers come 50 a page: "Next papers" until it is there
        if listed.count():
            break
        pg.locator("#papers-next").click()
        pg.wait_for_load_state()
    paper.click()
    pg.wait_for_url(re.compile(r"/paper/"))
    walked.paper_url = pg.url
    shot("07-read")
    # 8 record evidence: a finding, its passage selected in the abstract, Record evidence
    pg.locator("main summary", has_text="Record evidence").click()
    form = pg.locator("#evidence-form")
    form.get_by_label(re.compile(r"^Finding")).fill(FINDING)
    pg.evaluate(
        """passage => {
          const el = document.querySelector('#abstract');
          const node = Array.from(el.childNodes).find(n => n.nodeValue && n.nodeValue.includes(passage));
          const start = node.nodeValue.indexOf(passage);
          const range = document.createRange();
          range.setStart(node, start);
          range.setEnd(node, start + passage.length);
          const sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          document.dispatchEvent(new Event('selectionchange'));
        }""",
        PASSAGE,
    )
    _role(pg, "button", "Use the selected passage", exact=True).click()
    walked.quote = form.get_by_label(re.compile(r"^Supporting passage")).input_value()
    _role(pg, "button", "Record evidence", exact=True).click()
    recorded = pg.locator("#evidence").get_by_text(FINDING, exact=True)  # listed once saved
    recorded.first.wait_for()
    pg.locator("#evidence").scroll_into_view_if_needed()
    shot("08-evidence")
    # 9 PRISMA: the Study's report and flow
    _back_to_study(pg, walked)
    _role(pg, "link", r"^(PRISMA flow and report|PRISMA-S report and flow diagram)").click()
    pg.wait_for_url(re.compile(r"/prisma"))
    shot("09-prisma")
    # 10 export: the whole Study as a ZIP, then the evidence table as CSV
    _back_to_study(pg, walked)
    link = _role(pg, "link", "Export this Study (ZIP)", exact=True)
    link.scroll_into_view_if_needed()
    shot("10-export")
    with pg.expect_download() as got:
        link.click()
    walked.downloads["study.zip"] = Path(got.value.path()).stat().st_size
    nav.get_by_role("link", name="Evidence", exact=True).click()
    pg.wait_for_url(re.compile(r"/evidence"))
    with pg.expect_download() as got:
        _role(pg, "link", r"\bCSV\b").click()
    walked.downloads["evidence.csv"] = Path(got.value.path()).stat().st_size
    return walked
