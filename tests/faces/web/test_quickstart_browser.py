"""The README's quick start walked in Debian's chromium on the demo workspace, as the README
tells it (issue 34): run, the demo Study, search the demo source, import the demo export
file, deduplicate, screen, read, record evidence with a verbatim quote, PRISMA, export — at
1280 px and 420 px, light and dark. The walk is walked once per width, each on a fresh copy
of the demo workspace, at 1280 px in light and at 420 px in dark (each scheme's clicks run
once); every step's page is seen in both schemes by switching the emulated
``prefers-color-scheme`` on it (the pages' dark colours are CSS media rules, which change no
layout and no clickability; ``test_every_page_browser`` does the same), so each step is
checked at each width in each scheme as when the walk was walked four times. Every step's
page keeps its table words and does not scroll sideways (the checks of the every-page test).
With ``$LITDESK_ARTIFACTS`` set, a screenshot of every step in every view is kept in
``$LITDESK_ARTIFACTS/quickstart`` (as ``test_every_page_browser`` keeps every page's); else
only the views with problems are shot, in the test's tmp folder (the path is printed)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.faces.web._hosting import Hosting
from tests.faces.web._page_checks import view_checks
from tests.faces.web._quickstart import CLICKED, PASSAGE, QUERY, STEPS, Walked, walk_quickstart

from litdesk import Settings
from litdesk.faces.web import create_app

demo = pytest.importorskip("litdesk.services.demo", reason="the demo workspace (branch demo)")

pytestmark = pytest.mark.slow

#: where screenshots are kept (read at import: the settings fixture clears LITDESK_* variables)
ARTIFACTS = os.environ.get("LITDESK_ARTIFACTS", "")
#: every view shot with $LITDESK_ARTIFACTS set, else those with problems only
SHOOT_ALL = bool(ARTIFACTS)

README = Path(__file__).resolve().parents[3] / "README.md"
#: each walk: its width and the scheme it is walked in (every step is also seen in the others)
WALKS = ((1280, "light"), (420, "dark"))
#: the colour schemes every step's page is seen in
SCHEMES = ("light", "dark")


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo workspace built once; each walk gets a copy (a walk changes it). Built in a
    thread of its own: Playwright's sync API keeps an event loop running in this one."""
    real = Settings(data_dir=tmp_path_factory.mktemp("real-data"))
    target = tmp_path_factory.mktemp("demo-template") / "demo"
    with ThreadPoolExecutor(1) as pool:
        made = pool.submit(demo.build_demo, target, real).result()
    yield made.place.directory


def _artefacts(tmp_path: Path) -> Path:
    root = ARTIFACTS
    folder = Path(root) / "quickstart" if root else tmp_path / "quickstart"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _walk(
    browser: Any, base: str, place: Path, width: int, scheme: str, shots: Path
) -> tuple[Walked, list[tuple[str, str]], dict[str, list[str]]]:
    """One walk at ``width`` in ``scheme``, each step's page also seen in the other schemes:
    what it saw, the (step, scheme) views shot, each view's problems."""
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=scheme, accept_downloads=True
    )
    pg = context.new_page()
    taken: list[tuple[str, str]] = []
    problems: dict[str, list[str]] = {}
    # the walk's own scheme last: the page is left in it for the next step's clicks
    views = sorted(SCHEMES, key=lambda s: s == scheme)

    def shot(step: str) -> None:
        for seen in views:
            pg.emulate_media(color_scheme=seen)
            taken.append((step, seen))
            # the view asserted (scheme, width) and the layout checks in one call
            found = view_checks(pg, (seen == "dark", width), False)
            if found or SHOOT_ALL:
                pg.screenshot(path=str(shots / f"quickstart-{step}-{width}-{seen}.png"))
            if found:
                problems[f"step {step} ({pg.url}) at {width} px, {seen}"] = found

    try:
        walked = walk_quickstart(pg, base, place / "files" / "demo-export.ris", shot)
    finally:
        context.close()
    return walked, taken, problems


def test_the_quick_start_walks_on_the_demo(
    browser: Any, demo_template: Path, tmp_settings: Settings, hosting: Hosting, tmp_path: Path
) -> None:
    shots = _artefacts(tmp_path)
    print(f"\nquick-start screenshots: {shots}")
    problems: dict[str, list[str]] = {}
    for width, scheme in WALKS:
        place = tmp_path / f"demo-{width}-{scheme}"
        shutil.copytree(demo_template, place)
        app = create_app(tmp_settings.for_demo(place), host=hosting.host, port=hosting.port)
        with hosting.serve(app):
            walked, taken, found = _walk(browser, hosting.base, place, width, scheme, shots)
        problems |= found
        assert [step for step, _ in taken[:: len(SCHEMES)]] == list(STEPS), taken
        assert sorted(taken) == sorted((s, c) for s in STEPS for c in SCHEMES), taken
        assert walked.results > 0, "the demo source found nothing for " + QUERY
        assert walked.papers_after_import > walked.papers_before, walked
        assert walked.quote == PASSAGE, walked.quote
        assert walked.downloads["study.zip"] > 1000 and walked.downloads["evidence.csv"] > 100
    report = "\n".join(f"{step}:\n  " + "\n  ".join(found) for step, found in problems.items())
    assert not problems, f"quick-start pages with problems:\n{report}"


def _quick_start() -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^## [^\n]*first review[^\n]*$(.*?)(?=^## )", text, re.M | re.S | re.I)
    if found is None:
        pytest.skip("the README has no quick start yet (branch clidocs)")
    return re.sub(r"\s+", " ", found.group(1))  # words wrapped over lines read as one line


def test_the_readme_tells_the_steps_the_walk_takes() -> None:
    section = _quick_start()
    images = re.findall(r"docs/img/quickstart-(\d\d-[a-z]+)\.png", section)
    assert images == list(STEPS), images
    missing = {
        step: [w for w in words if w.lower() not in section.lower()]
        for step, words in CLICKED.items()
    }
    missing = {step: words for step, words in missing.items() if words}
    assert not missing, (
        f"what the walk clicks that the README's quick start does not say: {missing}"
    )
