"""Stopping guidance names what it counts once a stage has two reviewers (issue 28).

On a revealed dual-review stage the progress page showed three "screened" figures that
disagree: "Screened by you 60", "Settled 45" and the guidance's "74 of 269 screened, 59
included or maybe" — the guidance counts every record that any reviewer has decided (its
recall curve's x axis), which is neither. Now it says so; a single reviewer's wording stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    ConfigureRequest,
    DecideRequest,
    ItemsRequest,
    ProgressRequest,
    StudyStageRequest,
)
from litdesk.services.workspace import now_iso

TA = "title_abstract"
OWNER, BOB = "acct_ana", "acct_bob"


@pytest.fixture
def team(tmp_settings: Settings, export: Path) -> Iterator[tuple[App, str]]:
    with open_app_sync(tmp_settings) as app:
        sid = make_study(app, "Words", [export], owner=OWNER)
        with app.store.write() as conn:
            access.set_member(conn, sid, BOB, "editor", OWNER, now_iso())
        yield app, sid


def _decide(app: App, sid: str, who: str, key: str, verdict: str) -> None:
    app.screening.decide(DecideRequest(sid, TA, key, verdict), owner=who)  # type: ignore[arg-type]


def test_the_guidance_of_a_revealed_pair_says_decided_by_a_reviewer(
    team: tuple[App, str],
) -> None:
    app, sid = team
    s = app.screening
    keys = [r["record_key"] for r in s.items(ItemsRequest(sid), owner=OWNER).rows]
    single = s.progress(ProgressRequest(sid), owner=OWNER).guidance.stopping
    assert single.advice.startswith("0 of 47 screened")  # one reviewer: as before
    s.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=OWNER)
    for k in keys[:4]:
        _decide(app, sid, OWNER, k, "include")
    _decide(app, sid, BOB, keys[2], "include")  # agreed: settled
    for k in keys[3:6]:
        _decide(app, sid, BOB, k, "exclude")  # one conflict, two waiting for a second review
    blind = s.progress(ProgressRequest(sid), owner=BOB).guidance.stopping
    assert blind.advice.startswith("4 of 47 screened, 1 included or maybe")  # his own, blind
    s.reveal(StudyStageRequest(sid, TA), owner=OWNER)
    view = s.progress(ProgressRequest(sid), owner=OWNER)
    assert view.mine["screened"] == 4 and view.all is not None and view.all["screened"] == 1
    advice = view.guidance.stopping.advice
    # six records have a decision of someone's: neither "yours" (4) nor "settled" (1)
    assert advice.startswith("6 of 47 decided by at least one reviewer"), advice
    assert "6 of 47 screened" not in advice
