"""Screening in a team (issue 28), on SQLite and PostgreSQL: roles (viewers read, members
screen, the owner configures), blind dual review (each reviewer sees only their own
decisions until the owner reveals the stage), the full-text stage after a pair agrees, and
two reviewers deciding at the same moment losing nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk._errors import NotFoundError
from litdesk.adapters.store import NotPermitted
from litdesk.adapters.store import accounts as access
from litdesk.adapters.store import screening as store_screening
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    CardRequest,
    ConfigureRequest,
    DecideRequest,
    HistoryRequest,
    ItemsRequest,
    NextRequest,
    NotScreenable,
    ProgressRequest,
    ScreeningRequestError,
    StudyScreenRequest,
)
from litdesk.services.workspace import now_iso

TA = "title_abstract"
FT = "full_text"
OWNER, BOB, CY, VIC = "acct_ana", "acct_bob", "acct_cy", "acct_vic"


@pytest.fixture
def team(any_settings: Settings, export: Path) -> Iterator[tuple[App, str]]:
    with open_app_sync(any_settings) as app:
        sid = make_study(app, "Gambling team", [export], owner=OWNER)
        with app.store.write() as conn:
            for who, role in ((BOB, "editor"), (CY, "editor"), (VIC, "viewer")):
                access.set_member(conn, sid, who, role, OWNER, now_iso())
        yield app, sid


def _decide(app: App, sid: str, who: str, key: str, verdict: str, stage: str = TA):
    request = DecideRequest(sid, stage, key, verdict, reason="wrong outcome")  # type: ignore[arg-type]
    return app.screening.decide(request, owner=who)


def test_roles_and_blind_pairs_until_revealed(team: tuple[App, str]) -> None:
    app, sid = team
    s = app.screening
    with pytest.raises(NotPermitted):
        s.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=BOB)
    with pytest.raises(NotFoundError):
        s.settings(StudyScreenRequest(sid), owner="acct_eve")  # not a member: no such Study
    viewer = s.settings(StudyScreenRequest(sid), owner=VIC)
    assert viewer.role == "viewer" and not viewer.can_screen and not viewer.can_configure
    s.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=OWNER)
    keys = [r["record_key"] for r in s.items(ItemsRequest(sid), owner=OWNER).rows]
    k1, k2, k3 = keys[:3]
    with pytest.raises(NotPermitted):
        _decide(app, sid, VIC, k1, "include")
    bob = _decide(app, sid, BOB, k1, "include")
    assert bob.outcome is None  # blind: where the pair stands is not shown
    _decide(app, sid, CY, k1, "exclude")  # a conflict
    _decide(app, sid, BOB, k2, "include")
    _decide(app, sid, CY, k2, "include")  # agreed
    _decide(app, sid, BOB, k3, "maybe")

    # blind: Bob sees only his own decisions, everywhere
    hist = s.history(HistoryRequest(sid, k1), owner=BOB)
    assert [e["reviewer"] for e in hist.entries] == [BOB]
    card = s.card(CardRequest(sid, TA, k1), owner=BOB)
    assert [d["reviewer"] for d in card.decisions] == [BOB] and card.my_verdict == "include"
    assert card.progress.all is None and card.progress.blind
    p = s.progress(ProgressRequest(sid), owner=BOB)
    assert p.blind and p.all is None
    assert p.mine["screened"] == 3 and p.mine["included"] == 2
    assert [y for _, y in p.guidance.to_dict()["recall_curve"]] == [1, 2, 3]  # his own work
    cy_items = s.items(ItemsRequest(sid, TA, "screened"), owner=CY)
    assert {r["record_key"] for r in cy_items.rows} == {k1, k2}
    assert all(r["verdict"] is None and r["status"] is None for r in cy_items.rows)
    with pytest.raises(ScreeningRequestError):
        s.items(ItemsRequest(sid, TA, "conflict"), owner=BOB)
    # a record two reviewers decided is not offered to a third; one with one review is
    offered = set()
    for seed in range(40):
        card = s.next(NextRequest(sid, order="random", seed=seed), owner=OWNER)
        offered.add(card.record_key)
    assert k1 not in offered and k2 not in offered
    assert s.next(NextRequest(sid, order="original"), owner=OWNER).record_key == k3

    # full text: only the pair's agreed include (k2); k1 is in conflict, k3 waits a 2nd review.
    # While title/abstract is blind that is the owner's to see: which records reached full
    # text is where each of the pair stands, so a reviewer, a third member and a viewer see
    # no full-text records (their counts, queue and cards) and cannot decide there
    ft = s.items(ItemsRequest(sid, FT), owner=OWNER)
    assert [r["record_key"] for r in ft.rows] == [k2]
    for who in (BOB, CY, VIC):
        assert s.items(ItemsRequest(sid, FT), owner=who).rows == ()
        assert s.progress(ProgressRequest(sid, FT), owner=who).mine["total"] == 0
        assert s.next(NextRequest(sid, FT), owner=who).done
        with pytest.raises(NotScreenable, match="is not at the full-text stage"):
            s.card(CardRequest(sid, FT, k2), owner=who)
    with pytest.raises(NotScreenable) as waits:
        _decide(app, sid, BOB, k2, "include", stage=FT)
    assert waits.value.code == "blind" and "reveals" in str(waits.value)
    with pytest.raises(NotScreenable):
        _decide(app, sid, BOB, k1, "include", stage=FT)
    from litdesk.services.screening import PrismaFlowRequest

    notes = s.prisma(PrismaFlowRequest(sid), owner=BOB).flow["notes"]
    assert notes == [
        "decisions at title and abstract are blind until the Study's owner reveals them"
    ]
    # the owner's full-text card lists no reviewer's blind title/abstract decision
    owner_card = s.card(CardRequest(sid, FT, k2), owner=OWNER)
    assert [d["reviewer"] for d in owner_card.decisions] == []

    # the owner reveals: everyone sees both decisions and the conflict
    s.configure(ConfigureRequest(sid, revealed={TA: True}), owner=OWNER)
    assert [r["record_key"] for r in s.items(ItemsRequest(sid, FT), owner=BOB).rows] == [k2]
    ft_card = s.card(CardRequest(sid, FT, k2), owner=BOB)
    assert sorted(d["reviewer"] for d in ft_card.decisions) == [BOB, CY]
    hist = s.history(HistoryRequest(sid, k1), owner=BOB)
    assert sorted(e["reviewer"] for e in hist.entries) == [BOB, CY]
    p = s.progress(ProgressRequest(sid), owner=VIC)
    assert p.all is not None and p.all["conflicts"] == 1 and p.all["pending"] == 1
    assert p.all["included"] == 1
    conflicts = s.items(ItemsRequest(sid, TA, "conflict"), owner=VIC)
    assert [r["record_key"] for r in conflicts.rows] == [k1]


def test_two_reviewers_deciding_at_once_lose_nothing(team: tuple[App, str]) -> None:
    app, sid = team
    keys = [r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=OWNER).rows]
    keys = keys[:15]
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def work(who: str, verdict: str) -> None:
        try:
            start.wait(timeout=30)
            for key in keys:  # the same records at the same moment
                _decide(app, sid, who, key, verdict)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=work, args=(BOB, "include")),
        threading.Thread(target=work, args=(CY, "exclude")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    with app.store.read() as conn:
        rows = store_screening.list_decisions(conn, sid)
    assert len(rows) == 2 * len(keys)
    assert {(r.reviewer, r.record_key) for r in rows} == {(w, k) for w in (BOB, CY) for k in keys}
    assert [r.id for r in rows] == sorted(r.id for r in rows)
    for who, verdict in ((BOB, "include"), (CY, "exclude")):
        p = app.screening.progress(ProgressRequest(sid), owner=who)
        assert p.mine["screened"] == len(keys)
        assert p.mine["included" if verdict == "include" else "excluded"] == len(keys)


def test_access_is_checked_before_a_decisions_file_is_read(team: tuple[App, str]) -> None:
    """A viewer's or a stranger's file is refused for who they are, never parsed: an
    unreadable file gives the same refusal as a good one."""
    from litdesk.core.screening import DecisionsFileError
    from litdesk.services.screening import ImportDecisionsRequest

    app, sid = team
    unreadable = ImportDecisionsRequest(sid, b"\x00\x01 not a decisions file", "x.csv", TA)
    with pytest.raises(NotPermitted):
        app.screening.import_decisions(unreadable, owner=VIC)
    with pytest.raises(NotFoundError):
        app.screening.import_decisions(unreadable, owner="acct_stranger")
    with pytest.raises(DecisionsFileError):  # a member gets the file's own error
        app.screening.import_decisions(unreadable, owner=BOB)


def test_decisions_exports_name_reviewers_by_user_name(team: tuple[App, str]) -> None:
    """The decisions CSV and RIS (and so the Study ZIP's stage files) say who decided by
    user name, as every page and command does — never by account id (they read
    'acct_…: include; resolved by acct_…' before)."""
    from litdesk.services.screening import ExportDecisionsRequest, ResolveRequest

    app, sid = team
    ana = app.accounts.add("ana-rev", "ana-password-long-enough")
    bo = app.accounts.add("bo-rev", "bo-password-long-enough")
    cy = app.accounts.add("cy-third", "cy-password-long-enough")
    with app.store.write() as conn:
        for who in (ana, bo, cy):
            access.set_member(conn, sid, who.id, "editor", OWNER, now_iso())
    s = app.screening
    s.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=OWNER)
    key = s.items(ItemsRequest(sid), owner=OWNER).rows[0]["record_key"]
    _decide(app, sid, ana.id, key, "include")
    _decide(app, sid, bo.id, key, "exclude")
    s.configure(ConfigureRequest(sid, revealed={TA: True}), owner=OWNER)
    s.resolve(ResolveRequest(sid, TA, key, "include"), owner=cy.id)
    csv_text = s.export_decisions(ExportDecisionsRequest(sid), owner=OWNER).text
    ris_text = s.export_decisions(ExportDecisionsRequest(sid, format="ris"), owner=OWNER)
    for text in (csv_text, ris_text.text):
        assert "ana-rev: include; bo-rev: exclude; resolved by cy-third: include" in text
        assert "acct_" not in text
