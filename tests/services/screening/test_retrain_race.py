"""A decision that comes while its retrain runs (issue 28), on SQLite and PostgreSQL: the
decision's retrain request reuses the running job (one active per Study and stage), so the
job must run again once it ends, else the model stays one decision behind ("retraining")
with no job left to train it. Seen in a clean-clone run: a reviewer's own model never
became ready. The job's rounds say what they read (``JobContext.listing``); a request that
reused the job after that puts it back in the queue when it finishes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk.services.app import App, open_app_sync
from litdesk.services.jobs import JobContext
from litdesk.services.screening import (
    RETRAIN_KIND,
    DecideRequest,
    ItemsRequest,
    NextRequest,
    retrain_owner,
)

TA = "title_abstract"


@pytest.fixture
def app(any_settings: Settings) -> Iterator[App]:
    with open_app_sync(any_settings) as opened:
        yield opened


def test_a_decision_during_a_running_retrain_is_trained_on_after_it(app: App, export: Path) -> None:
    s, owner = app.screening, app.owner
    sid = make_study(app, "Race", [export])
    keys = [r["record_key"] for r in s.items(ItemsRequest(sid), owner=owner).rows]
    s.decide(DecideRequest(sid, TA, keys[0], "include"), owner=owner)
    s.decide(DecideRequest(sid, TA, keys[1], "exclude"), owner=owner)

    job = app.jobs.claim([RETRAIN_KIND], "worker-1", 30.0)
    assert job is not None and job.owner == retrain_owner(sid, TA)
    result = s.handlers()[RETRAIN_KIND](JobContext(app.jobs, job, threading.Event()))
    assert result is not None and result["labels"] == 2
    # the third decision arrives after the job's last read of the decisions, before its end
    s.decide(DecideRequest(sid, TA, keys[2], "include"), owner=owner)
    ended = app.jobs.finish(job, result)
    assert ended.status == "queued"  # run again, not "done" one decision behind

    stale = s.next(NextRequest(sid), owner=owner).order.model
    assert (stale.state, stale.trained_on) == ("retraining", 2)
    s.work_retrain(sid, TA, owner=owner, embed=False)
    model = s.next(NextRequest(sid), owner=owner).order.model
    assert (model.state, model.trained_on) == ("ready", 3)


def test_a_request_after_the_round_s_read_is_not_lost_but_one_before_it_is_covered(
    app: App, export: Path
) -> None:
    """The mark is cleared by the round that reads after it: a decision before the job's
    round costs no extra run."""
    s, owner = app.screening, app.owner
    sid = make_study(app, "Covered", [export])
    keys = [r["record_key"] for r in s.items(ItemsRequest(sid), owner=owner).rows]
    s.decide(DecideRequest(sid, TA, keys[0], "include"), owner=owner)
    job = app.jobs.claim([RETRAIN_KIND], "worker-1", 30.0)
    assert job is not None
    s.decide(DecideRequest(sid, TA, keys[1], "exclude"), owner=owner)  # before the round
    result = s.handlers()[RETRAIN_KIND](JobContext(app.jobs, job, threading.Event()))
    assert result is not None and result["labels"] == 2
    assert app.jobs.finish(job, result).status == "done"
    model = s.next(NextRequest(sid), owner=owner).order.model
    assert (model.state, model.trained_on) == ("ready", 2)
