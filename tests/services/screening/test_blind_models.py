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


def _decide_all(app: App, sid: str, who: str, keys: list[str], *, include_first: bool) -> None:
    for i, key in enumerate(keys[:DECIDED]):
        include = (i < INCLUDED) == include_first
        verdict = "include" if include else "exclude"
        app.screening.decide(DecideRequest(sid, TA, key, verdict, reason="x"), owner=who)
    app.screening.work_retrain(sid, TA, owner=who)


def _seen(app: App, sid: str, who: str, keys: list[str]) -> dict[str, object]:
    """Everything the reviewer's screen shows of the model, the order and the progress."""
    s = app.screening
    queue: list[object] = []
    skip: tuple[str, ...] = ()
    for _ in range(6):  # the head of the ranked queue, one card after the other
        card = s.next(NextRequest(sid, TA, order="ranked", skip=skip), owner=who)
        assert card.record_key is not None
        queue.append((card.record_key, card.score, card.order.to_dict()))
        skip = (*skip, card.record_key)
    scores = {k: s.card(CardRequest(sid, TA, k), owner=who).score for k in keys[DECIDED:]}
    return {
        "queue": queue,
        "scores": scores,
        "progress": s.progress(ProgressRequest(sid, TA), owner=who).to_dict(),
    }


@pytest.mark.parametrize("first", [ANA, BOB])
def test_a_blind_reviewer_s_model_owes_nothing_to_the_other_s_decisions(
    app: App, export: Path, first: str
) -> None:
    """``first`` decides alone and is looked at; then the other decides the same records
    the other way round: what ``first`` sees has not changed by a byte."""
    sid, keys = _study(app, export, f"Blind models, {first} first")
    other = BOB if first == ANA else ANA
    _decide_all(app, sid, first, keys, include_first=True)
    alone = _seen(app, sid, first, keys)
    model = alone["progress"]["model"]  # type: ignore[index]
    assert model["blind"] is True and model["state"] == "ready", model
    assert model["trained_on"] == DECIDED and model["version"] == 1
    label = alone["queue"][0][2]["label"]  # type: ignore[index]
    assert label.startswith("ranked by a model trained on your 8 decisions"), label
    scores = alone["scores"]
    assert isinstance(scores, dict) and all(v is not None for v in scores.values())

    _decide_all(app, sid, other, keys, include_first=False)
    theirs = _seen(app, sid, other, keys)
    assert theirs["progress"]["model"]["trained_on"] == DECIDED  # type: ignore[index]
    assert theirs["scores"] != scores  # the other's own model learnt the opposite
    assert _seen(app, sid, first, keys) == alone

    # the reveal: everyone is back on the shared model (the union of the decisions)
    app.screening.configure(ConfigureRequest(sid, revealed={TA: True}), owner=ANA)
    app.screening.work_retrain(sid, TA, owner=ANA)
    for who in (ANA, BOB):
        card = app.screening.next(NextRequest(sid, TA, order="ranked"), owner=who)
        shared = card.order.model
        assert not shared.blind and shared.trained_on == DECIDED, shared
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


@pytest.mark.parametrize("first", [ANA, BOB])
def test_interleaved_the_other_s_decisions_change_nothing_a_retrain_learns(
    app: App, export: Path, first: str
) -> None:
    """``first``'s model is trained after the other decided the same records the other way
    round (in between ``first``'s own decisions): everything ``first`` sees equals what
    they see in a Study of the same records where nobody else decided anything."""
    other = BOB if first == ANA else ANA
    seen = {}
    for world in ("alone", "with the other"):
        sid, keys = _study(app, export, f"Blind {first} {world}")
        s = app.screening
        for i, key in enumerate(keys[:DECIDED]):
            if i == DECIDED // 2:  # the queued retrains run here in both worlds
                if world == "alone":
                    s.work_retrain(sid, TA, owner=first)
                else:
                    _decide_all(app, sid, other, keys, include_first=False)
            verdict = "include" if i < INCLUDED else "exclude"
            s.decide(DecideRequest(sid, TA, key, verdict, reason="x"), owner=first)
        s.work_retrain(sid, TA, owner=first)
        seen[world] = _normal(_seen(app, sid, first, keys), keys)
    model = seen["alone"]["progress"]["model"]  # type: ignore[index]
    assert model["state"] == "ready" and model["trained_on"] == DECIDED, model
    assert seen["with the other"] == seen["alone"]
