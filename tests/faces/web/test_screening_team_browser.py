"""Two reviewers screening the same Study blind, in two chromium sessions signed in to a team
server over PostgreSQL (issue 28; a fresh schema cloned from the session's migrated template):
each decides with the keyboard and sees only their own decisions and counts; neither sees a
conflict or the agreement until the owner reveals the stage from the settings page; then the
other reviewer sees both decisions and the conflict, the owner resolves it and the record's
history keeps both original decisions beside the resolution; the agreement page shows the
kappa and percent agreement that scikit-learn computes from the same decisions; the decisions
are rows of the PostgreSQL schema. axe-core finds nothing serious on the team pages
(conflicts, agreement, import and export); screenshots of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests._store_template import pg_schema_url
from tests.faces.web._hosting import Hosting
from tests.faces.web._team import PASSWORD, TeamServer, add_accounts, team_server
from tests.faces.web.test_accessibility import _violations, axe_path  # noqa: F401 - fixture
from tests.faces.web.test_screening_browser import _decide, _record, _shoot, _shots
from tests.faces.web.test_screening_web import _api, make_screening_study

from litdesk import Settings

pytestmark = pytest.mark.slow


@pytest.fixture
def server(
    tmp_settings: Settings,
    cassette: Path,
    hosting: Hosting,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[TeamServer]:
    template = request.getfixturevalue("pg_template")
    schema = template.take()
    request.addfinalizer(lambda: template.give_back(schema))
    url = pg_schema_url(template.base_url, schema)
    settings = tmp_settings.model_copy(update={"database_url": url})
    add_accounts(settings, "ana", "bob")
    with team_server(settings, cassette, hosting) as running:
        yield running


def _signed_in(browser: Any, base: str, name: str, **kw: Any) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **kw)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.console_errors = []  # type: ignore[attr-defined]
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))  # type: ignore[attr-defined]
    pg.goto(base + "/studies")  # to the sign-in form, then back
    pg.fill("#l-user", name)
    pg.fill("#l-pass", PASSWORD)
    pg.click("button[type=submit]")
    pg.wait_for_url(base + "/studies")
    return pg


def _history(pg: Any) -> list[str]:
    return [str(t) for t in pg.locator("#record-history li").all_inner_texts()]


def _verdicts(pg: Any, keys: str) -> list[tuple[str, str]]:
    """Decide the records in the queue's order with ``keys``: (record, verdict) each."""
    words = {"i": "include", "e": "exclude", "m": "maybe"}
    made = []
    for key in keys:
        made.append((_record(pg), words[key]))
        _decide(pg, key)
    return made


def _decision_rows(url: str, sid: str) -> list[tuple[str, str, str, str]]:
    """The Study's screening rows as stored in PostgreSQL: (reviewer, record, kind, verdict)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT reviewer, record_key, kind, coalesce(verdict, '')"
                    " FROM screening_decisions WHERE study_id = :s ORDER BY id"
                ),
                {"s": sid},
            ).all()
    finally:
        engine.dispose()
    return [(str(a), str(b), str(c), str(d)) for a, b, c, d in rows]


def test_two_sessions_screen_blind_then_reveal(
    browser: Any,
    server: TeamServer,
    tmp_path: Path,
    axe_path: Path,  # noqa: F811
) -> None:
    from sklearn.metrics import cohen_kappa_score

    assert sa.make_url(server.settings.database_url).get_backend_name() == "postgresql"
    shots = _shots()
    with server.signed_in("ana") as c:
        sid = make_screening_study(c, "Blind pair")
        assert c.post(
            f"/api/v1/studies/{sid}/members", json={"username": "bob", "role": "editor"}
        ).is_success
        c.post(f"{_api(sid)}/settings", json={"dual_review": {"title_abstract": True}})
    ana = _signed_in(browser, server.base, "ana")
    bob = _signed_in(browser, server.base, "bob")
    screen = f"{server.base}/study/{sid}/screen?stage=title_abstract"
    for pg in (ana, bob):
        pg.goto(screen)
        pg.locator("html[data-screen-ready]").wait_for(state="attached")
    first = _record(ana)
    assert _record(bob) == first  # the same queue (original order), each their own
    # turn by turn, so that both decide the same records at about the same moment
    made: dict[str, list[tuple[str, str]]] = {"ana": [], "bob": []}
    for a, b in zip("ieie", "eeie", strict=True):
        made["ana"] += _verdicts(ana, a)
        made["bob"] += _verdicts(bob, b)
    assert made["ana"][0] == (first, "include") and made["bob"][0] == (first, "exclude")
    for pg in (ana, bob):
        pg.locator("#progress-line", has_text="4 of 8 screened").wait_for()
        assert "(yours; blind)" in pg.locator("#progress-line").inner_text()
    # blind: each sees only their own decision on the first record
    for pg, verdict in ((ana, "Include"), (bob, "Exclude")):
        pg.goto(f"{screen}&record={first}")
        history = _history(pg)
        assert len(history) == 1 and history[0].startswith(verdict) and "· you ·" in history[0]
    # no conflict before the reveal, for the reviewer nor for the owner
    for pg in (bob, ana):
        pg.goto(f"{server.base}/study/{sid}/screen/conflicts")
        assert "still blind" in pg.locator("#conflicts-state").inner_text()
        assert pg.locator("#conflict-list article").count() == 0
    # the agreement is hidden from the reviewer while blind (the owner sees it: below)
    bob.goto(f"{server.base}/study/{sid}/screen/agreement")
    assert bob.locator("#hidden-title_abstract").count() == 1
    assert bob.locator("#agreement").count() == 0
    bob.goto(f"{server.base}/study/{sid}/screen/conflicts")
    _shoot(bob, shots, "scr-web-conflicts-blind.png")
    # the members page's role form fits a phone (its long role names overflowed 420 px)
    size = ana.viewport_size
    ana.set_viewport_size({"width": 420, "height": 900})
    ana.goto(f"{server.base}/study/{sid}/members")
    assert ana.evaluate("document.documentElement.scrollWidth") <= 420
    ana.set_viewport_size(size)
    # the owner reveals from the settings page
    ana.goto(f"{server.base}/study/{sid}/screen/settings")
    _shoot(ana, shots, "scr-web-settings-team.png")
    ana.locator("#reveal-title_abstract").click()
    ana.wait_for_url(f"{server.base}/study/{sid}/screen/conflicts?stage=title_abstract")
    disagree = [r for (r, v), (_, w) in zip(made["ana"], made["bob"], strict=True) if v != w]
    assert disagree == [first]
    assert "1 conflict waiting" in ana.locator("#conflicts-state").inner_text()
    _shoot(ana, shots, "scr-web-conflicts.png")
    bob.goto(f"{screen}&record={first}")
    assert len(_history(bob)) == 2  # revealed: both decisions
    bob.goto(f"{server.base}/study/{sid}/screen/conflicts")
    assert "1 conflict waiting" in bob.locator("#conflicts-state").inner_text()
    ana.locator("#conflict-1 button.v-include").click()
    ana.locator("#conflicts-state", has_text="0 conflicts waiting").wait_for()
    # the resolution keeps both original decisions in the record's history
    bob.goto(f"{screen}&record={first}")
    history = _history(bob)
    assert len(history) == 3, history
    assert sum("(resolution)" in h for h in history) == 1
    originals = [h for h in history if "(resolution)" not in h]
    assert sorted(h.split(" ")[0] for h in originals) == ["Exclude", "Include"]
    assert any("· you ·" in h and h.startswith("Exclude") for h in originals)
    # kappa and percent agreement on the page, as scikit-learn computes them
    on_both = [r for r, _ in made["ana"] if r in dict(made["bob"])]
    a = [dict(made["ana"])[r] for r in on_both]
    b = [dict(made["bob"])[r] for r in on_both]
    kappa = float(cohen_kappa_score(a, b))
    agreed = sum(x == y for x, y in zip(a, b, strict=True))
    for pg in (ana, bob):
        pg.goto(f"{server.base}/study/{sid}/screen/agreement")
        row = pg.locator("#agreement tbody tr").first
        cells = {
            k: row.locator(f'td[data-label="{k}"]').inner_text().strip()
            for k in ("Records both decided", "Agreed", "Percent agreement", "Cohen's kappa")
        }
        assert cells == {
            "Records both decided": str(len(on_both)),
            "Agreed": str(agreed),
            "Percent agreement": f"{agreed / len(on_both) * 100:.1f} %",
            "Cohen's kappa": f"{kappa:.2f}",
        }, cells
    _shoot(ana, shots, "scr-web-agreement-pair.png")
    assert ana.console_errors == [] and bob.console_errors == []  # type: ignore[attr-defined]
    bob.context.close()
    # axe on the team pages, as ana (signed in already): axe loaded into each page as the
    # context's init script (through the debugging protocol: the page's CSP stays in force)
    ana.context.add_init_script(path=str(axe_path))
    for name, path in (
        ("conflicts", "/screen/conflicts"),
        ("agreement", "/screen/agreement"),
        ("exchange", "/screen/exchange"),
    ):
        ana.goto(f"{server.base}/study/{sid}{path}")
        _shoot(ana, shots, f"scr-web-{name}-team.png")
        found = _violations(ana, axe_path)
        assert found == [], (name, found)
    assert ana.console_errors == []  # type: ignore[attr-defined]  # no CSP violation either
    ana.context.close()
    # every decision is a row of the PostgreSQL schema: four each, and the resolution
    rows = _decision_rows(server.settings.database_url, sid)
    decisions = [r for r in rows if r[2] == "decision"]
    assert len(decisions) == 8 and len({r[0] for r in decisions}) == 2
    assert [(r[1], r[3]) for r in rows if r[2] == "resolution"] == [(first, "include")]
