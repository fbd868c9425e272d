"""The screening area over a real Study on SQLite (issue 28): settings, the order in
force, append-only decisions with change and undo, the full-text stage's eligibility and
required reasons, retrieval, progress and the records behind a number, decisions that
follow a record into its group, and the retrain job (the next record never waits for it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk._errors import NotFoundError
from litdesk.adapters.store import screening as store_screening
from litdesk.services.app import App
from litdesk.services.screening import (
    DEFAULT_REASONS,
    CardRequest,
    ConfigureRequest,
    DecideRequest,
    HistoryRequest,
    ItemsRequest,
    NextRequest,
    NotScreenable,
    PrismaFlowRequest,
    ProgressRequest,
    ReasonNotListed,
    RetrievalRequest,
    ScreeningRequestError,
    StudyScreenRequest,
    UndoRequest,
)
from litdesk.services.studies import ImportRequest, WorkingSetRequest

TA = "title_abstract"
FT = "full_text"


def _studies(app: App, sid: str) -> int:
    """The Study's working set as the studies area counts it."""
    return app.studies.working_set(WorkingSetRequest(sid), owner=app.owner).counts.studies


def _keys(app: App, sid: str) -> list[str]:
    rows = app.screening.items(ItemsRequest(sid, page_size=500), owner=app.owner).rows
    return [r["record_key"] for r in rows]


def _decide(app: App, sid: str, key: str, verdict: str, stage: str = TA, **kw: str):
    return app.screening.decide(
        DecideRequest(sid, stage, key, verdict, **kw),  # type: ignore[arg-type]
        owner=app.owner,
    )


def test_settings_default_then_configured(app: App, export: Path) -> None:
    sid = make_study(app, "Gambling", [export])
    view = app.screening.settings(StudyScreenRequest(sid), owner=app.owner).to_dict()
    assert view["reasons"] == list(DEFAULT_REASONS)
    assert view["dual_review"] == {TA: False, FT: False}
    assert view["default_order"] == "ranked" and view["can_configure"]
    changed = app.screening.configure(
        ConfigureRequest(
            sid,
            reasons=["Wrong population", "wrong population ", "No outcome data"],
            inclusion="Adults with gambling problems",
            include_keywords=["gambling", "harm"],
            dual_review={"ft": True},
            default_order="original",
        ),
        owner=app.owner,
    ).to_dict()
    assert changed["reasons"] == ["Wrong population", "No outcome data"]  # deduplicated
    assert changed["criteria"]["inclusion"] == "Adults with gambling problems"
    assert changed["keywords"] == {"include": ["gambling", "harm"], "exclude": []}
    assert changed["dual_review"] == {TA: False, FT: True}
    # what a later change does not name stays
    again = app.screening.configure(ConfigureRequest(sid, exclusion="Animals"), owner=app.owner)
    assert again.settings.include_keywords == ("gambling", "harm")
    assert again.settings.default_order == "original"
    for bad in (
        {"reasons": []},
        {"default_order": "best"},
        {"dual_review": {"abstract": True}},
        {"include_keywords": ["x" * 101]},
    ):
        with pytest.raises(ScreeningRequestError):
            ConfigureRequest(sid, **bad)  # type: ignore[arg-type]


def test_orders_and_the_end_of_the_queue(app: App, export: Path) -> None:
    sid = make_study(app, "Gambling", [export])
    first = app.screening.next(NextRequest(sid, order="original"), owner=app.owner)
    keys = [
        r["record_key"]
        for r in app.screening.items(ItemsRequest(sid, page_size=500), owner=app.owner).rows
    ]
    n = _studies(app, sid)
    assert len(keys) == n and n > 40 and first.record_key == keys[0]
    assert first.order.mode == "original" and first.title
    r1 = app.screening.next(NextRequest(sid, order="random", seed=1), owner=app.owner)
    r1b = app.screening.next(NextRequest(sid, order="random", seed=1), owner=app.owner)
    seeds = {
        app.screening.next(NextRequest(sid, order="random", seed=s), owner=app.owner).record_key
        for s in range(8)
    }
    assert r1.record_key == r1b.record_key and len(seeds) > 1
    # ranked without a model: random, and the card says so
    ranked = app.screening.next(NextRequest(sid), owner=app.owner)
    assert ranked.order.mode == "random" and "no model yet" in ranked.order.label
    # every record decided: nothing left, done
    for i, key in enumerate(keys):
        _decide(app, sid, key, "include" if i % 7 == 0 else "exclude")
        if i == 10:
            nxt = app.screening.next(NextRequest(sid, order="original"), owner=app.owner)
            assert nxt.record_key == keys[11]  # decided records are skipped
    done = app.screening.next(NextRequest(sid), owner=app.owner)
    assert done.done and done.record_key is None
    assert done.progress.mine["screened"] == n and done.progress.mine["remaining"] == 0
    assert done.progress.mine["included"] == len(range(0, n, 7))


def test_change_and_undo_keep_every_decision(app: App, export: Path) -> None:
    sid = make_study(app, "Gambling", [export])
    key = app.screening.next(NextRequest(sid, order="original"), owner=app.owner).record_key
    other = app.screening.items(ItemsRequest(sid), owner=app.owner).rows[1]["record_key"]
    assert key is not None
    _decide(app, sid, key, "include", note="looks relevant")
    _decide(app, sid, other, "exclude")
    changed = _decide(app, sid, key, "exclude", reason="wrong population")
    assert changed.my_verdict == "exclude"
    # undo without a record: the reviewer's last decision (the change on ``key``)
    undone = app.screening.undo(UndoRequest(sid), owner=app.owner)
    assert undone.record_key == key and undone.my_verdict == "include"
    assert undone.entry["kind"] == "undo"
    history = app.screening.history(HistoryRequest(sid, key), owner=app.owner)
    kinds = [(e["kind"], e["verdict"], e["status"]) for e in history.entries]
    assert kinds == [
        ("decision", "include", "current"),
        ("decision", "exclude", "undone"),
        ("undo", None, "undo"),
    ]
    assert history.entries[0]["note"] == "looks relevant"
    # undo on a named record; then nothing of the reviewer's is left on it to undo
    app.screening.undo(UndoRequest(sid, TA, key), owner=app.owner)
    with pytest.raises(NotFoundError):
        app.screening.undo(UndoRequest(sid, TA, key), owner=app.owner)
    back = app.screening.card(CardRequest(sid, TA, key), owner=app.owner)
    assert back.my_verdict is None and len(back.decisions) == 4
    # the store holds every row, none changed
    with app.store.read() as conn:
        rows = store_screening.list_decisions(conn, sid)
    assert [r.kind for r in rows] == ["decision", "decision", "decision", "undo", "undo"]
    assert rows[0].verdict == "include" and rows[2].verdict == "exclude"


def test_full_text_stage_needs_a_pass_and_a_listed_reason(app: App, export: Path) -> None:
    sid = make_study(app, "Gambling", [export])
    keys = [r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=app.owner).rows]
    a, b, c = keys[:3]
    _decide(app, sid, a, "include")
    _decide(app, sid, b, "maybe")
    _decide(app, sid, c, "exclude")
    with pytest.raises(NotScreenable):
        _decide(app, sid, c, "include", stage=FT)  # excluded at title/abstract
    with pytest.raises(NotScreenable):
        _decide(app, sid, keys[3], "include", stage=FT)  # not screened yet
    items = app.screening.items(ItemsRequest(sid, FT), owner=app.owner)
    assert {r["record_key"] for r in items.rows} == {a, b} and items.total == 2
    with pytest.raises(ReasonNotListed) as no_reason:  # it lists the Study's reasons
        _decide(app, sid, a, "exclude", stage=FT)
    assert no_reason.value.code == "reason_required"
    assert "wrong outcome" in no_reason.value.message and "; " in no_reason.value.message
    with pytest.raises(ReasonNotListed):
        _decide(app, sid, a, "exclude", stage=FT, reason="did not like it")
    done = _decide(app, sid, a, "exclude", stage=FT, reason="Wrong Outcome")
    assert done.entry["reason"] == "wrong outcome"  # the Study's own spelling
    _decide(app, sid, b, "include", stage=FT)
    # retrieval noted on the full-text card
    app.screening.retrieval(
        RetrievalRequest(sid, b, False, "library has no access"), owner=app.owner
    )
    card = app.screening.card(CardRequest(sid, FT, b), owner=app.owner)
    assert card.full_text is not None
    assert card.full_text["retrieval"]["status"] == "not_retrieved"
    with pytest.raises(NotScreenable):
        app.screening.card(CardRequest(sid, FT, c), owner=app.owner)
    progress = app.screening.progress(ProgressRequest(sid, FT), owner=app.owner)
    assert progress.total == 2 and progress.all is not None
    # b's include, made before it was recorded not retrieved, stays recorded but does not
    # count: b is not assessed (PRISMA: a report not retrieved)
    assert (progress.all["included"], progress.all["excluded"]) == (0, 1)
    assert progress.mine["remaining"] == 1 and progress.mine["not_retrieved"] == 1
    # a report left to assess but recorded not retrieved is said so beside "left for you"
    # (PRISMA's "awaiting assessment" leaves it out)
    d = keys[3]
    _decide(app, sid, d, "include")
    app.screening.retrieval(RetrievalRequest(sid, d, False, "paywalled"), owner=app.owner)
    left = app.screening.progress(ProgressRequest(sid, FT), owner=app.owner).mine
    assert (left["remaining"], left["not_retrieved"]) == (2, 2)
    flow = app.screening.prisma(PrismaFlowRequest(sid), owner=app.owner).flow
    (r,) = flow["rounds"]  # type: ignore[misc]
    assert (r["not_retrieved"], r["awaiting_full_text"]) == (2, 0)  # b (above) and d
    # a change at title/abstract takes a record out of the full-text stage
    _decide(app, sid, b, "exclude")
    assert app.screening.progress(ProgressRequest(sid, FT), owner=app.owner).total == 2  # a, d


def test_a_report_recorded_not_retrieved_leaves_the_queue_and_takes_no_decision(
    app: App, export: Path
) -> None:
    """PRISMA counts a report recorded not retrieved under "reports not retrieved", never as
    assessed: the full-text queue passes over it in every order, and a full-text decision on
    it is refused until it is marked retrieved again — else progress would count a decision
    that the PRISMA flow leaves out (an include at full text that no box shows)."""
    sid = make_study(app, "Gambling", [export])
    keys = _keys(app, sid)
    for key in keys[:4]:
        _decide(app, sid, key, "include")
    on_top = app.screening.next(NextRequest(sid, FT, order="original"), owner=app.owner)
    gone = on_top.record_key
    assert gone in keys[:4]
    app.screening.retrieval(RetrievalRequest(sid, gone, False, "no access"), owner=app.owner)
    for order in ("original", "random", "ranked"):
        nxt = app.screening.next(NextRequest(sid, FT, order=order), owner=app.owner)  # type: ignore[arg-type]
        assert nxt.record_key is not None and nxt.record_key != gone, order
    with pytest.raises(ScreeningRequestError) as refused:
        _decide(app, sid, gone, "include", stage=FT)
    assert refused.value.code == "not_retrieved" and "mark it as retrieved" in refused.value.message
    left = app.screening.progress(ProgressRequest(sid, FT), owner=app.owner).mine
    assert (left["screened"], left["remaining"], left["not_retrieved"]) == (0, 4, 1)
    # the others are assessed; progress and PRISMA then say the same
    for key in keys[:4]:
        if key != gone:
            _decide(app, sid, key, "include", stage=FT)
    done = app.screening.next(NextRequest(sid, FT, order="original"), owner=app.owner)
    assert done.done and done.record_key is None
    progress = app.screening.progress(ProgressRequest(sid, FT), owner=app.owner).all
    assert progress is not None and progress["included"] == 3
    (r,) = app.screening.prisma(PrismaFlowRequest(sid), owner=app.owner).flow["rounds"]  # type: ignore[misc]
    assert (r["not_retrieved"], r["assessed"], r["included"]) == (1, 3, 3)
    # marked retrieved again, it is back in the queue and takes its decision
    app.screening.retrieval(RetrievalRequest(sid, gone, True), owner=app.owner)
    back = app.screening.next(NextRequest(sid, FT, order="original"), owner=app.owner)
    assert back.record_key == gone
    _decide(app, sid, gone, "exclude", stage=FT, reason="wrong outcome")
    (r,) = app.screening.prisma(PrismaFlowRequest(sid), owner=app.owner).flow["rounds"]  # type: ignore[misc]
    assert (r["not_retrieved"], r["assessed"], r["excluded_reports"]) == (0, 4, 1)


def test_decisions_follow_a_record_into_its_group(app: App, tmp_path: Path) -> None:
    ris = tmp_path / "dupes.ris"
    ris.write_text(
        "TY  - JOUR\nTI  - Loot boxes and problem gambling in adolescents\n"
        "DO  - 10.1000/loot.1\nPY  - 2020\nER  - \n"
        "TY  - JOUR\nTI  - Loot boxes and problem gambling in adolescents.\n"
        "DO  - 10.1000/loot.1\nPY  - 2020\nER  - \n"
        "TY  - JOUR\nTI  - Sports betting advertising exposure\n"
        "DO  - 10.1000/bet.2\nPY  - 2021\nER  - \n",
        encoding="utf-8",
    )
    sid = make_study(app, "Dupes", [ris])
    items = app.screening.items(ItemsRequest(sid), owner=app.owner)
    assert items.total == 2
    group = next(r for r in items.rows if r["members"] == 2)
    card = app.screening.card(CardRequest(sid, TA, group["record_key"]), owner=app.owner)
    member = next(m["key"] for m in card.members if m["key"] != card.record_key)
    decided = _decide(app, sid, member, "include")  # by the member's key
    assert decided.record_key == group["record_key"]
    assert app.screening.history(HistoryRequest(sid, member), owner=app.owner).entries
    left = app.screening.next(NextRequest(sid, order="original"), owner=app.owner)
    assert left.record_key != group["record_key"]
    with pytest.raises(NotScreenable):
        _decide(app, sid, "imp-nothing:0", "include")


def test_retrain_job_ranks_and_next_never_waits(app: App, export: Path) -> None:
    sid = make_study(app, "Gambling", [export])
    keys = [r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=app.owner).rows]
    d = _decide(app, sid, keys[0], "include")
    assert d.retrain_queued
    _decide(app, sid, keys[1], "exclude")
    # the job is queued, not run: the order is still random and the model none
    before = app.screening.next(NextRequest(sid), owner=app.owner)
    assert before.order.model.state == "none"
    model = app.screening.work_retrain(sid, TA, owner=app.owner)
    assert (model.state, model.version, model.trained_on) == ("ready", 1, 2)
    ranked = app.screening.next(NextRequest(sid), owner=app.owner)
    assert ranked.order.mode == "ranked" and "model v1 trained on 2" in ranked.order.label
    assert ranked.score is not None
    with app.store.read() as conn:
        stored = store_screening.get_model(conn, sid, TA)
    assert stored is not None and set(stored.scores) == set(keys)
    # the highest-scored remaining record comes first
    remaining = [k for k in keys[2:]]
    assert ranked.record_key == max(remaining, key=lambda k: stored.scores[k])
    # a new decision: the model is behind (retraining) and the previous scores still order
    _decide(app, sid, keys[2], "include")
    behind = app.screening.next(NextRequest(sid), owner=app.owner)
    assert behind.order.model.state == "retraining"
    assert behind.order.model.version == 1
    model = app.screening.work_retrain(sid, TA, owner=app.owner)
    assert (model.version, model.trained_on, model.state) == (2, 3, "ready")
    progress = app.screening.progress(ProgressRequest(sid), owner=app.owner)
    g = progress.guidance.to_dict()
    assert g["recall_curve"] == [[1, 1], [2, 1], [3, 2]]
    assert g["consecutive_irrelevant"] == 0 and progress.model.version == 2


def test_progress_guidance_and_items(app: App, export: Path) -> None:
    sid = make_study(app, "Gambling", [export])
    keys = [r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=app.owner).rows]
    verdicts = ["include", "exclude", "exclude", "maybe", "exclude", "exclude"]
    for key, verdict in zip(keys, verdicts, strict=False):
        _decide(app, sid, key, verdict)
    n = _studies(app, sid)
    p = app.screening.progress(ProgressRequest(sid), owner=app.owner)
    assert p.mine == {
        "total": n,
        "screened": 6,
        "included": 1,
        "excluded": 4,
        "maybe": 1,
        "remaining": n - 6,
    }
    assert p.all is not None and p.all["screened"] == 6 and not p.blind
    assert p.guidance.stopping.consecutive_irrelevant == 2
    assert [y for _, y in p.guidance.to_dict()["recall_curve"]] == [1, 1, 1, 2, 2, 2]
    assert p.guidance.check_set["size"] == 30
    assert "stop" not in p.guidance.stopping.advice.lower()
    by = {
        s: app.screening.items(ItemsRequest(sid, TA, s), owner=app.owner).total  # type: ignore[arg-type]
        for s in ("all", "remaining", "screened", "included", "excluded", "maybe", "mine")
    }
    assert by == {
        "all": n,
        "remaining": n - 6,
        "screened": 6,
        "included": 1,
        "excluded": 4,
        "maybe": 1,
        "mine": 6,
    }
    page2 = app.screening.items(ItemsRequest(sid, page=2, page_size=20), owner=app.owner)
    assert page2.pages == 3 and len(page2.rows) == 20
    with pytest.raises(ScreeningRequestError):
        ItemsRequest(sid, page=0)


def test_records_added_later_are_new_unscreened_items(
    app: App, export: Path, fixtures_dir: Path
) -> None:
    sid = make_study(app, "Gambling", [export])
    keys = [r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=app.owner).rows]
    _decide(app, sid, keys[0], "include")
    _decide(app, sid, keys[1], "exclude")
    app.screening.work_retrain(sid, TA, owner=app.owner)
    before = app.screening.progress(ProgressRequest(sid), owner=app.owner)
    more = fixtures_dir / "bib/ris/asreview__pubmed_zotero.ris"
    app.studies.import_files(ImportRequest(study=sid, paths=(str(more),)), owner=app.owner)
    after = app.screening.progress(ProgressRequest(sid), owner=app.owner)
    added = _studies(app, sid) - before.total
    assert added > 0 and after.total == before.total + added
    assert (
        after.mine["screened"] == 2 and after.mine["remaining"] == before.mine["remaining"] + added
    )
    # the new records have no score yet: they come last, and the next record queues the
    # retrain that scores them
    new = set(_keys(app, sid)) - set(keys)
    card = app.screening.next(NextRequest(sid), owner=app.owner)
    assert card.record_key not in new and card.order.model.version == 1
    model = app.screening.work_retrain(sid, TA, owner=app.owner)
    assert model.version == 2
    with app.store.read() as conn:
        stored = store_screening.get_model(conn, sid, TA)
    assert stored is not None and new <= set(stored.scores)


def test_a_paper_added_by_hand_is_named_by_its_paper_id(app: App) -> None:
    """``study show`` and the reader name a paper added by hand by its saved paper's id
    (``DOI-…``); screening calls that record ``paper:<id>``: either names it."""
    from litdesk.core.records import make_paper
    from litdesk.services.studies import CreateStudyRequest
    from litdesk.services.workspace import Workspace

    sid = app.studies.create_study(CreateStudyRequest("By hand", None), owner=app.owner).id
    (saved,) = Workspace(app.store).save_papers(
        [make_paper(doi="10.1000/hand.1", title="Heart failure programmes")], study=sid
    )
    pid = saved.paper.id
    (key,) = _keys(app, sid)
    assert key == f"paper:{pid}"
    decided = _decide(app, sid, pid, "include")  # the id `study show` prints
    assert decided.record_key == key
    _decide(app, sid, pid, "exclude", FT, reason="wrong population")
    progress = app.screening.progress(ProgressRequest(sid, FT), owner=app.owner)
    assert progress.all is not None and progress.all["excluded"] == 1
    assert app.screening.history(HistoryRequest(sid, pid), owner=app.owner).entries
    with pytest.raises(NotScreenable):
        _decide(app, sid, "DOI-NOT-IN-THE-STUDY", "include")
