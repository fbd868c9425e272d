"""A report recorded not retrieved after full-text decisions exist on it (issue 28): the mark
is taken (refusing it would tell a blind reviewer that others have decided), the decisions
stay in the history, shown as not counted, and count nowhere — progress, agreement,
conflicts, PRISMA — until the report is marked retrieved again, when they all count again.
Progress and the PRISMA flow say the same at every step."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    AgreementRequest,
    ConfigureRequest,
    ConflictsRequest,
    DecideRequest,
    HistoryRequest,
    ItemsRequest,
    PrismaFlowRequest,
    ProgressRequest,
    ResolveRequest,
    RetrievalRequest,
    ScreeningRequestError,
)
from litdesk.services.workspace import now_iso

TA, FT = "title_abstract", "full_text"
OWNER, BOB, CY = "acct_ana", "acct_bob", "acct_cy"


@pytest.fixture
def team(any_settings: Settings, export: Path) -> Iterator[tuple[App, str]]:
    with open_app_sync(any_settings) as app:
        sid = make_study(app, "Not retrieved", [export], owner=OWNER)
        with app.store.write() as conn:
            for who in (BOB, CY):
                access.set_member(conn, sid, who, "editor", OWNER, now_iso())
        yield app, sid


def _decide(app: App, sid: str, who: str, key: str, verdict: str, stage: str = FT) -> None:
    reason = "wrong outcome" if verdict == "exclude" and stage == FT else ""
    request = DecideRequest(sid, stage, key, verdict, reason=reason)  # type: ignore[arg-type]
    app.screening.decide(request, owner=who)


def _agree_with_prisma(app: App, sid: str) -> dict[str, int]:
    """Progress at full text (everyone's and the owner's) checked against the flow's boxes;
    the everyone figures returned."""
    progress = app.screening.progress(ProgressRequest(sid, FT), owner=OWNER)
    everyone, mine = progress.all, progress.mine
    assert everyone is not None
    (r,) = app.screening.prisma(PrismaFlowRequest(sid), owner=OWNER).flow["rounds"]  # type: ignore[misc]
    assert progress.total == r["sought"]
    assert everyone["not_retrieved"] == mine["not_retrieved"] == r["not_retrieved"]
    # settled but "maybe" waits for assessment in PRISMA
    assert everyone["screened"] - everyone["maybe"] == r["assessed"]
    assert everyone["included"] == r["included"]
    assert everyone["excluded"] == r["excluded_reports"]
    assert everyone["remaining"] + everyone["maybe"] == r["awaiting_full_text"] + r["not_retrieved"]
    for c in r["checks"]:
        assert c["ok"], c
    return everyone


def test_marked_not_retrieved_after_decisions_counts_nowhere_until_retrieved(
    team: tuple[App, str],
) -> None:
    app, sid = team
    s = app.screening
    s.configure(ConfigureRequest(sid, dual_review={FT: True}), owner=OWNER)
    keys = [r["record_key"] for r in s.items(ItemsRequest(sid), owner=OWNER).rows]
    k0, k1, k2, k3, k4 = keys[:5]
    for k in (k0, k1, k2, k3, k4):
        _decide(app, sid, OWNER, k, "include", stage=TA)
    s.configure(ConfigureRequest(sid, revealed={FT: True}), owner=OWNER)
    for who in (BOB, CY):
        _decide(app, sid, who, k0, "include")  # agreed: included
        _decide(app, sid, who, k1, "exclude")  # agreed: excluded
        _decide(app, sid, who, k3, "include")  # agreed: included
    _decide(app, sid, BOB, k2, "include")
    _decide(app, sid, CY, k2, "exclude")  # a conflict

    def conflicts() -> list[str]:
        view = s.conflicts(ConflictsRequest(sid, FT), owner=OWNER)
        return [r.record_key for r in view.conflicts]

    def pair_n() -> int:
        (pair,) = s.agreement(AgreementRequest(sid, FT), owner=OWNER).pairs
        return int(pair["n"])  # type: ignore[call-overload]

    before = _agree_with_prisma(app, sid)
    assert (before["included"], before["excluded"], before["conflicts"]) == (2, 1, 1)
    assert conflicts() == [k2] and pair_n() == 4

    # marked not retrieved after the decisions: the mark is taken, not refused
    for k in (k2, k3):
        s.retrieval(RetrievalRequest(sid, k, False, "no library access"), owner=BOB)
    after = _agree_with_prisma(app, sid)
    assert (after["included"], after["excluded"], after["conflicts"]) == (1, 1, 0)
    assert after["not_retrieved"] == 2
    assert conflicts() == [] and pair_n() == 2
    flow = s.prisma(PrismaFlowRequest(sid), owner=OWNER).flow
    assert any("recorded not retrieved after full-text decisions" in n for n in flow["notes"])  # type: ignore[union-attr]
    # the decisions stay in the history, shown as not counted
    hist = s.history(HistoryRequest(sid, k3), owner=OWNER).entries
    ft = [e for e in hist if e["stage"] == FT]
    assert len(ft) == 2 and all(e["status"] == "current" and e["not_counted"] for e in ft)
    assert all(not e["not_counted"] for e in hist if e["stage"] == TA)
    # no decision and no resolution on it while it is not retrieved
    with pytest.raises(ScreeningRequestError) as refused:
        s.resolve(ResolveRequest(sid, FT, k2, "include"), owner=OWNER)
    assert refused.value.code == "not_retrieved"

    # marked retrieved again: every decision counts again
    for k in (k2, k3):
        s.retrieval(RetrievalRequest(sid, k, True), owner=BOB)
    again = _agree_with_prisma(app, sid)
    assert again == before
    assert conflicts() == [k2] and pair_n() == 4
    hist = s.history(HistoryRequest(sid, k3), owner=OWNER).entries
    assert not any(e["not_counted"] for e in hist)
