"""The shared model while a stage is blind (issue 28), on SQLite and PostgreSQL: nobody sees
it until the reveal (each reviewer is ranked by their own model), so no decision, undo,
import, model change, embedding done or record added queues its retrain — each reviewer's
own model's only; the owner's reveal queues it once, and once it has run every reviewer's
card is ranked by the shared model trained on all their decisions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk.adapters.store import accounts as access
from litdesk.core.screening import HANDOVER_MODEL, SVM_MODEL
from litdesk.services.app import App, open_app_sync
from litdesk.services.jobs import JobView
from litdesk.services.screening import (
    RETRAIN_KIND,
    ConfigureRequest,
    DecideRequest,
    ImportDecisionsRequest,
    ItemsRequest,
    NextRequest,
    StudyStageRequest,
    UndoRequest,
    retrain_owner,
)
from litdesk.services.studies import ImportRequest
from litdesk.services.workspace import now_iso

TA = "title_abstract"
ANA, BOB = "acct_ana", "acct_bob"  # the Study's owner and an editor

NEW_RECORDS = """TY  - JOUR
TI  - A record added while the stage is blind
AB  - Gambling harms among adolescents, a cohort.
PY  - 2021
ER  -

TY  - JOUR
TI  - Another record added while the stage is blind
AB  - Problem gambling treatment, a randomised trial.
PY  - 2022
ER  -
"""


@pytest.fixture
def app(any_settings: Settings) -> Iterator[App]:
    with open_app_sync(any_settings) as opened:
        yield opened


def _jobs(app: App, sid: str, reviewer: str = "") -> list[JobView]:
    return app.jobs.list(owner=retrain_owner(sid, TA, reviewer), kinds=[RETRAIN_KIND], limit=200)


def test_blind_decisions_queue_no_shared_retrain_the_reveal_queues_one(
    app: App, export: Path, tmp_path: Path
) -> None:
    s = app.screening
    sid = make_study(app, "Blind shared retrain", [export], owner=ANA)
    with app.store.write() as conn:
        access.set_member(conn, sid, BOB, "editor", ANA, now_iso())
    s.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=ANA)
    shared = len(_jobs(app, sid))
    assert not any(j.active for j in _jobs(app, sid))
    keys = [r["record_key"] for r in s.items(ItemsRequest(sid), owner=ANA).rows]

    # decisions of both, an undo, an import, two model changes, the embedding's end
    for i, key in enumerate(keys[:4]):
        s.decide(DecideRequest(sid, TA, key, "include" if i < 2 else "exclude"), owner=ANA)
    for i, key in enumerate(keys[4:8]):
        s.decide(DecideRequest(sid, TA, key, "include" if i < 1 else "exclude"), owner=BOB)
    s.undo(UndoRequest(sid, TA, keys[3]), owner=ANA)
    s.decide(DecideRequest(sid, TA, keys[3], "exclude"), owner=ANA)
    data = f"record_id,decision,reason\n{keys[8]},exclude,x\n".encode()
    assert s.import_decisions(ImportDecisionsRequest(sid, data, "b.csv"), owner=BOB).recorded == 1
    for model in (HANDOVER_MODEL, SVM_MODEL):
        s.configure(ConfigureRequest(sid, model=model), owner=ANA)
    s.rows.on_stored(sid)  # what the embedding job calls once every record has its row
    assert len(_jobs(app, sid)) == shared
    mine = {who: _jobs(app, sid, who) for who in (ANA, BOB)}
    assert all(any(j.active for j in jobs) for jobs in mine.values()), mine

    # records added: the reviewer's own model has not scored them; asking for the next
    # record queues a retrain — their own
    for who in (ANA, BOB):
        s.work_retrain(sid, TA, owner=who, embed=False)
    added = tmp_path / "added.ris"
    added.write_text(NEW_RECORDS, encoding="utf-8")
    app.studies.import_files(ImportRequest(study=sid, paths=(str(added),)), owner=ANA)
    card = s.next(NextRequest(sid, TA, order="ranked"), owner=ANA)
    assert card.order.model.blind and card.order.model.trained_on == 4, card.order
    assert any(j.active for j in _jobs(app, sid, ANA))
    assert len(_jobs(app, sid)) == shared  # still none for the shared model

    # the reveal: one shared retrain, on everyone's decisions
    s.reveal(StudyStageRequest(sid, TA), owner=ANA)
    queued = _jobs(app, sid)
    assert len(queued) == shared + 1 and queued[0].active
    s.work_retrain(sid, TA, owner=ANA, embed=False)
    assert len(_jobs(app, sid)) == shared + 1  # (the reveal's, not another)
    for who in (ANA, BOB):
        card = s.next(NextRequest(sid, TA, order="ranked"), owner=who)
        model = card.order.model
        assert not model.blind and model.state == "ready", model
        assert model.trained_on == 9  # ana's four, bob's four and his imported one
        assert card.order.label.startswith("ranked by model v"), card.order.label
