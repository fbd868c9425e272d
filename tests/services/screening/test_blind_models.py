"""A reviewer's own model in a blind stage (issue 28), on SQLite and PostgreSQL: while a
stage has dual review and is not revealed, each reviewer's queue — the Study's owner's too —
is ranked by a model trained on their own decisions only. Two reviewers decide the same
records oppositely: each one's scores, order, progress and model (version, count, time)
are exactly what they were before the other decided anything; after the reveal everyone is
back on the shared model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    CardRequest,
    ConfigureRequest,
    DecideRequest,
    ItemsRequest,
    NextRequest,
    ProgressRequest,
)
from litdesk.services.workspace import now_iso

TA = "title_abstract"
ANA, BOB = "acct_ana", "acct_bob"  # the Study's owner and an editor
DECIDED = 8
INCLUDED = 3  # ana includes the first three of them and excludes the rest; bob the opposite


@pytest.fixture
def app(any_settings: Settings) -> Iterator[App]:
    with open_app_sync(any_settings) as opened:
        yield opened


def _study(app: App, export: Path, name: str) -> tuple[str, list[str]]:
    sid = make_study(app, name, [export], owner=ANA)
    with app.store.write() as conn:
        access.set_member(conn, sid, BOB, "editor", ANA, now_iso())
    app.screening.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=ANA)
    keys = [r["record_key"] for r in app.screening.items(ItemsRequest(sid), owner=ANA).rows]
    return sid, keys


def _decide_all(
    app: App, sid: str, who: str, keys: list[str], *, include_first: bool, retrain: bool = True
) -> None:
    for i, key in enumerate(keys[:DECIDED]):
        include = (i < INCLUDED) == include_first
        verdict = "include" if include else "exclude"
        app.screening.decide(DecideRequest(sid, TA, key, verdict, reason="x"), owner=who)
    if retrain:
        app.screening.work_retrain(sid, TA, owner=who, embed=False)


def _seen(app: App, sid: str, who: str, keys: list[str]) -> dict[str, object]:
    """Everything the reviewer's screen shows of the model, the order and the progress:
    the head of the ranked queue card after card, every record's score in force for them
    (their own model's while blind) and, as cards show them, a few undecided records'."""
    s = app.screening
    queue: list[object] = []
    skip: tuple[str, ...] = ()
    for _ in range(6):  # the head of the ranked queue, one card after the other
        card = s.next(NextRequest(sid, TA, order="ranked", skip=skip), owner=who)
        assert card.record_key is not None
        queue.append((card.record_key, card.score, card.order.to_dict()))
        skip = (*skip, card.record_key)
    progress = s.progress(ProgressRequest(sid, TA), owner=who).to_dict()
    stored = s.retrainer.scores(sid, TA, who if progress["model"]["blind"] else "")  # type: ignore[index]
    scores = dict(stored.scores) if stored is not None else {}
    shown = {k: s.card(CardRequest(sid, TA, k), owner=who).score for k in keys[-3:]}
    assert shown == {k: scores.get(k) for k in shown}  # the cards show those scores
    assert all(score == scores[k] for k, score, _ in queue if score is not None)  # type: ignore[misc]
    return {"queue": queue, "scores": scores, "progress": progress}


def test_a_blind_reviewer_s_model_owes_nothing_to_the_other_s_decisions(
    app: App, export: Path
) -> None:
    """Each reviewer decides and is looked at; then the other decides the same records the
    other way round: what the first sees has not changed by a byte — both ways round, the
    Study's owner as the first (bob decides after her) and the editor (she decides again,
    on the same records, after him)."""
    sid, keys = _study(app, export, "Blind models")
    _decide_all(app, sid, ANA, keys, include_first=True)
    ana = _seen(app, sid, ANA, keys)
    model = ana["progress"]["model"]  # type: ignore[index]
    assert model["blind"] is True and model["state"] == "ready", model
    assert model["trained_on"] == DECIDED and model["version"] == 1
    label = ana["queue"][0][2]["label"]  # type: ignore[index]
    assert label.startswith("ranked by a model trained on your 8 decisions"), label
    scores = ana["scores"]
    assert isinstance(scores, dict) and len(scores) == len(keys) and None not in scores.values()

    _decide_all(app, sid, BOB, keys, include_first=False)  # the editor after the owner
    bob = _seen(app, sid, BOB, keys)
    assert bob["progress"]["model"]["trained_on"] == DECIDED  # type: ignore[index]
    assert bob["scores"] != scores  # his own model learnt the opposite
    assert _seen(app, sid, ANA, keys) == ana
    # the owner after the editor: she changes every one of her decisions (to his) and
    # decides new records too; her own model is retrained on them
    _decide_all(app, sid, ANA, keys, include_first=False, retrain=False)
    for key in keys[DECIDED : DECIDED + 2]:
        app.screening.decide(DecideRequest(sid, TA, key, "exclude"), owner=ANA)
    app.screening.work_retrain(sid, TA, owner=ANA, embed=False)
    assert _seen(app, sid, BOB, keys) == bob
    assert _seen(app, sid, ANA, keys)["progress"]["model"]["version"] > 1  # type: ignore[index]

    # the reveal: everyone is back on the shared model (the union of the decisions)
    app.screening.configure(ConfigureRequest(sid, revealed={TA: True}), owner=ANA)
    app.screening.work_retrain(sid, TA, owner=ANA, embed=False)
    for who in (ANA, BOB):
        card = app.screening.next(NextRequest(sid, TA, order="ranked"), owner=who)
        shared = card.order.model
        assert not shared.blind and shared.trained_on == DECIDED + 2, shared
        assert card.order.label.startswith("ranked by model v"), card.order.label


def test_until_a_reviewer_has_an_include_and_an_exclude_their_queue_falls_back(
    app: App, export: Path
) -> None:
    """The other reviewer's include and exclude give ``first`` no model: only their own."""
    sid, keys = _study(app, export, "Blind cold start")
    s = app.screening
    s.decide(DecideRequest(sid, TA, keys[0], "include"), owner=ANA)
    s.decide(DecideRequest(sid, TA, keys[1], "exclude"), owner=BOB)
    s.decide(DecideRequest(sid, TA, keys[2], "include"), owner=BOB)
    s.work_retrain(sid, TA, owner=ANA)
    s.work_retrain(sid, TA, owner=BOB)
    ana = s.next(NextRequest(sid, TA, order="ranked"), owner=ANA)
    assert ana.order.mode == "random" and ana.score is None, ana.order
    assert ana.order.model.blind and ana.order.model.state == "none"
    assert not ana.order.model.due
    assert "your own model needs an include and an exclude" in ana.order.label
    bob = s.next(NextRequest(sid, TA, order="ranked"), owner=BOB)
    assert bob.order.mode == "ranked" and bob.score is not None, bob.order
    assert bob.order.model.trained_on == 2


def _normal(seen: dict[str, object], keys: list[str]) -> dict[str, object]:
    """``seen`` with record keys as positions in the working set and without what only the
    Study's identity or the clock decide (its id, the check set drawn by it, training times),
    to compare two Studies made of the same records."""
    at = {k: i for i, k in enumerate(keys)}

    def strip(value: object) -> object:
        if isinstance(value, dict):
            skip = {"study_id", "trained_at", "check_set"}
            return {at.get(k, k): strip(v) for k, v in value.items() if k not in skip}
        if isinstance(value, (list, tuple)):
            return [strip(v) for v in value]
        return at.get(value, value) if isinstance(value, str) else value

    return strip(seen)  # type: ignore[return-value]


def test_interleaved_the_other_s_decisions_change_nothing_a_retrain_learns(
    app: App, export: Path
) -> None:
    """Both reviewers decide the same records the other way round, in turns, each one's
    model retrained between their own decisions: everything each sees equals what they see
    in a Study of the same records where nobody else decided anything."""
    s = app.screening
    half = DECIDED // 2

    def decide(sid: str, keys: list[str], who: str, part: slice) -> None:
        include_first = who == ANA  # bob decides every record the other way round
        for i in range(DECIDED)[part]:
            verdict = "include" if (i < INCLUDED) == include_first else "exclude"
            s.decide(DecideRequest(sid, TA, keys[i], verdict, reason="x"), owner=who)

    seen: dict[tuple[str, str], object] = {}
    for who in (ANA, BOB):  # alone: the reviewer's first half, a retrain, the second half
        sid, keys = _study(app, export, f"Blind {who} alone")
        decide(sid, keys, who, slice(half))
        s.work_retrain(sid, TA, owner=who, embed=False)
        decide(sid, keys, who, slice(half, None))
        s.work_retrain(sid, TA, owner=who, embed=False)
        seen[(who, "alone")] = _normal(_seen(app, sid, who, keys), keys)
    sid, keys = _study(app, export, "Blind both in turns")
    for part in (slice(half), slice(half, None)):  # the queued retrains run between turns
        for who in (ANA, BOB) if part.start is None else (BOB, ANA):
            decide(sid, keys, who, part)
            s.work_retrain(sid, TA, owner=who, embed=False)
    for who in (ANA, BOB):
        model = seen[(who, "alone")]["progress"]["model"]  # type: ignore[index]
        assert model["state"] == "ready" and model["trained_on"] == DECIDED, model
        assert _normal(_seen(app, sid, who, keys), keys) == seen[(who, "alone")], who
