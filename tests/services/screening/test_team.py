"""Screening in a team (issue 28) with real accounts on SQLite and PostgreSQL: dual review
blind until the Study owner reveals it, the resolution queue (the owner or a third
reviewer settles; a reviewer cannot settle their own conflict; both originals stay),
agreement (Cohen's kappa) hidden while blind, and the PRISMA flow counting only settled
records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk.adapters.store import NotPermitted
from litdesk.adapters.store import accounts as access
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    AgreementRequest,
    ConfigureRequest,
    ConflictsRequest,
    DecideRequest,
    HistoryRequest,
    ImportDecisionsRequest,
    ItemsRequest,
    NextRequest,
    NotInConflict,
    PrismaFlowRequest,
    ResolveRequest,
    ScreeningRequestError,
    StudyStageRequest,
)
from litdesk.services.studies import CreateStudyRequest, ImportRequest
from litdesk.services.workspace import now_iso

__all__ = ["pg_schema", "store_url"]

ANA, ED, BOB, TOM, VIC = "acct_ana", "acct_ed", "acct_bob", "acct_tom", "acct_vic"


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


def _study(app: App, tmp_path: Path, n: int = 12) -> tuple[str, list[str]]:
    path = tmp_path / "records.csv"
    lines = ["title,doi,year"] + [
        f"Trial {i} of a beta blocker in heart failure cohort {i * 7},10.1000/t{i},{2000 + i}"
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sid = app.studies.create_study(CreateStudyRequest("Team review", None), owner=ANA).id
    app.studies.import_files(ImportRequest(study=sid, paths=(str(path),)), owner=ANA)
    with app.store.write() as conn:
        for who, role in ((ED, "editor"), (BOB, "editor"), (TOM, "editor"), (VIC, "viewer")):
            access.set_member(conn, sid, who, role, ANA, now_iso())
    items = app.screening.items(ItemsRequest(sid), owner=ANA)
    return sid, [str(r["record_key"]) for r in items.rows]


def _kappa(pairs: list[tuple[str, str]]) -> float:
    n = len(pairs)
    p_o = sum(a == b for a, b in pairs) / n
    cats = {v for p in pairs for v in p}
    p_e = sum(
        (sum(a == c for a, _ in pairs) / n) * (sum(b == c for _, b in pairs) / n) for c in cats
    )
    return (p_o - p_e) / (1 - p_e)


def test_blind_pairs_reveal_resolve_and_agreement(app: App, tmp_path: Path) -> None:
    sid, keys = _study(app, tmp_path)
    app.screening.configure(ConfigureRequest(sid, dual_review={"title_abstract": True}), owner=ANA)
    ed = ["include", "exclude", "include", "exclude", "include", "maybe", "exclude", "exclude"]
    bob = ["include", "exclude", "exclude", "include", "include", "include", "exclude", "include"]
    for k, a, b in zip(keys, ed, bob, strict=False):
        app.screening.decide(DecideRequest(sid, "title_abstract", k, a), owner=ED)  # type: ignore[arg-type]
        app.screening.decide(DecideRequest(sid, "title_abstract", k, b), owner=BOB)  # type: ignore[arg-type]
    conflicts = [
        k for k, a, b in zip(keys, ed, bob, strict=False) if {a, b} == {"include", "exclude"}
    ]
    assert len(conflicts) == 3

    # blind: no queue, no agreement for reviewers, nothing resolvable
    stage = StudyStageRequest(sid, "title_abstract")
    queue_of = ConflictsRequest(sid, "title_abstract")
    for who in (ED, VIC, ANA):
        view = app.screening.conflicts(queue_of, owner=who)
        assert view.conflicts == () and not view.revealed
    assert app.screening.agreement(AgreementRequest(sid), owner=ED).pairs == ()
    owner_view = app.screening.agreement(AgreementRequest(sid), owner=ANA)
    (pair,) = owner_view.pairs
    assert pair["n"] == len(ed)
    assert pair["kappa"] == pytest.approx(_kappa(list(zip(ed, bob, strict=True))))  # symmetric
    with pytest.raises(NotInConflict):
        app.screening.resolve(
            ResolveRequest(sid, "title_abstract", conflicts[0], "include"), owner=ANA
        )
    with pytest.raises(NotPermitted):
        app.screening.reveal(stage, owner=ED)
    flow_blind = app.screening.prisma(PrismaFlowRequest(sid), owner=ED).to_dict()
    assert flow_blind["rounds"][0]["screened"] == 0  # type: ignore[index]

    # revealed: the queue for everyone; a reviewer may not settle their own conflict
    assert app.screening.reveal(stage, owner=ANA).conflicts == 3
    queue = app.screening.conflicts(queue_of, owner=VIC)
    assert [c.record_key for c in queue.conflicts] == conflicts and not queue.can_resolve
    with pytest.raises(NotPermitted):
        app.screening.resolve(
            ResolveRequest(sid, "title_abstract", conflicts[0], "include"), owner=ED
        )
    with pytest.raises(NotPermitted):
        app.screening.resolve(
            ResolveRequest(sid, "title_abstract", conflicts[0], "include"), owner=VIC
        )
    with pytest.raises(NotInConflict):  # agreed records are not in the queue
        app.screening.resolve(ResolveRequest(sid, "title_abstract", keys[0], "exclude"), owner=TOM)
    app.screening.resolve(ResolveRequest(sid, "title_abstract", conflicts[0], "include"), owner=TOM)
    app.screening.resolve(ResolveRequest(sid, "title_abstract", conflicts[1], "exclude"), owner=ANA)
    left = app.screening.conflicts(queue_of, owner=ED)
    assert [c.record_key for c in left.conflicts] == conflicts[2:] and left.resolved == 2
    hist = app.screening.history(HistoryRequest(sid, conflicts[0]), owner=ED).to_dict()
    kinds = [(e["reviewer"], e["kind"]) for e in hist["entries"]]  # type: ignore[union-attr]
    assert (ED, "decision") in kinds and (BOB, "decision") in kinds and (TOM, "resolution") in kinds
    assert app.screening.agreement(AgreementRequest(sid), owner=ED).pairs  # visible now

    # a member imports their own decisions, not other reviewers'
    rayyan = (
        "title,notes\n"
        f"{'Trial 9 of a beta blocker in heart failure cohort 63'},"
        '"RAYYAN-INCLUSION: {""Ed""=>""Included"", ""Bob""=>""Excluded""}"\n'
    ).encode()
    with pytest.raises(NotPermitted):
        app.screening.import_decisions(ImportDecisionsRequest(sid, rayyan), owner=ED)
    mine = app.screening.import_decisions(
        ImportDecisionsRequest(sid, b"doi,decision\n10.1000/t9,exclude\n"), owner=ED
    )
    assert mine.recorded == 1 and mine.reviewers == (ED,)

    flow = app.screening.prisma(PrismaFlowRequest(sid), owner=ANA).to_dict()
    (r,) = flow["rounds"]  # type: ignore[misc]
    settled = len(ed) - 1  # one conflict left open
    assert r["screened"] == settled and r["to_screen"] == len(keys)
    assert all(c["ok"] for c in r["checks"])
    excluded = sum(1 for a, b in zip(ed, bob, strict=False) if a == b == "exclude") + 1
    assert r["excluded_screening"] == excluded and r["sought"] == settled - excluded

    # the Study's policy: "maybe" against include is a conflict too
    maybe = [k for k, a, b in zip(keys, ed, bob, strict=False) if {a, b} == {"maybe", "include"}]
    assert len(maybe) == 1
    app.screening.configure(ConfigureRequest(sid, maybe_is_conflict=True), owner=ANA)
    stricter = app.screening.conflicts(queue_of, owner=ED)
    assert sorted(c.record_key for c in stricter.conflicts) == sorted([*conflicts[2:], *maybe])
    assert stricter.maybe_is_conflict


def test_full_text_reasons_a_pair_disagrees_on_are_resolved(app: App, tmp_path: Path) -> None:
    """Dual review at full text: both reviewers exclude, with different reasons. The record
    is in the resolution queue, not counted under either reason until the owner resolves it;
    then PRISMA counts it under the resolution's reason. Before: agreed silently, counted
    under whichever reviewer decided first. On SQLite and PostgreSQL."""
    sid, keys = _study(app, tmp_path, n=3)
    both = {"title_abstract": True, "full_text": True}
    app.screening.configure(
        ConfigureRequest(sid, dual_review=both, reasons=("wrong population", "not an RCT")),
        owner=ANA,
    )
    for k in keys:
        for who in (ED, BOB):
            app.screening.decide(DecideRequest(sid, "title_abstract", k, "include"), owner=who)
    # full text opens once the blind title/abstract stage is revealed
    app.screening.reveal(StudyStageRequest(sid, "title_abstract"), owner=ANA)
    ft = "full_text"
    app.screening.decide(DecideRequest(sid, ft, keys[0], "exclude", "wrong population"), owner=ED)
    app.screening.decide(DecideRequest(sid, ft, keys[0], "exclude", "not an RCT"), owner=BOB)
    for who in (ED, BOB):
        app.screening.decide(DecideRequest(sid, ft, keys[1], "exclude", "not an RCT"), owner=who)
        app.screening.decide(DecideRequest(sid, ft, keys[2], "include"), owner=who)
    app.screening.reveal(StudyStageRequest(sid, ft), owner=ANA)
    queue = app.screening.conflicts(ConflictsRequest(sid, ft), owner=ANA)
    assert [c.record_key for c in queue.conflicts] == [keys[0]]
    flow = app.screening.prisma(PrismaFlowRequest(sid), owner=ANA).to_dict()
    (r,) = flow["rounds"]  # type: ignore[misc]
    assert r["assessed"] == 2 and r["awaiting_full_text"] == 1
    assert r["excluded_reasons"] == {"not an RCT": 1}
    app.screening.resolve(
        ResolveRequest(sid, ft, keys[0], "exclude", "wrong population"), owner=ANA
    )
    flow = app.screening.prisma(PrismaFlowRequest(sid), owner=ANA).to_dict()
    (r,) = flow["rounds"]  # type: ignore[misc]
    assert r["excluded_reasons"] == {"not an RCT": 1, "wrong population": 1}
    assert r["included"] == 1 and all(c["ok"] for c in r["checks"])


def test_decisions_imported_for_a_colleague_by_user_name_are_their_account_s(
    app: App, tmp_path: Path
) -> None:
    """`import-decisions --reviewer bob` in a team: "bob" is the account named bob, so the
    decisions are bob's (his queue, the pair's agreement) and not a second reviewer called
    "bob". Before: recorded under the plain name unless a Rayyan map was given. A viewer's
    name is refused; a name no account has stays a reviewer without an account."""
    sid, keys = _study(app, tmp_path, n=4)
    with app.store.write() as conn:
        for acct, name in ((BOB, "bob"), (VIC, "vic")):
            access.insert_account(conn, acct, name, "x", now_iso())
    app.screening.configure(
        ConfigureRequest(sid, dual_review={"title_abstract": True, "full_text": False}),
        owner=ANA,
    )
    rows = "doi,decision\n" + "".join(f"10.1000/t{i},include\n" for i in range(4))
    view = app.screening.import_decisions(
        ImportDecisionsRequest(sid, rows.encode(), reviewer="bob"), owner=ANA
    )
    assert view.recorded == 4 and view.reviewers == (BOB,) and view.reviewer_names == ("bob",)
    assert app.screening.next(NextRequest(sid), owner=BOB).done  # all decided by bob
    assert not app.screening.next(NextRequest(sid), owner=ED).done
    for k in keys:
        app.screening.decide(DecideRequest(sid, "title_abstract", k, "include"), owner=ED)
    app.screening.reveal(StudyStageRequest(sid, "title_abstract"), owner=ANA)
    (pair,) = app.screening.agreement(AgreementRequest(sid), owner=ANA).pairs
    assert set(pair["reviewers"]) == {ED, BOB} and pair["n"] == 4  # type: ignore[arg-type]

    with pytest.raises(ScreeningRequestError) as refused:
        app.screening.import_decisions(
            ImportDecisionsRequest(sid, rows.encode(), reviewer="vic"), owner=ANA
        )
    assert refused.value.code == "not_a_screener"
    outside = app.screening.import_decisions(
        ImportDecisionsRequest(sid, rows.encode(), reviewer="Dr Outside"), owner=ANA
    )
    assert outside.reviewers == ("Dr Outside",)
