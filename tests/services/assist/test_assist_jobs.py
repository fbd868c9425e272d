"""AI-assistance model calls as jobs of the store's queue (issue 17), on SQLite and
PostgreSQL, against a scripted model server on loopback: the consent checked at submit
and against the exact text in the job, the allowance asked at submit and reserved once
per job (keyed by its id), a job whose worker died recovered without a second call, the
job seen by its owner only, and a cancel that stops waiting for the model."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from tests._model_servers import (
    Scripted,
    ScriptedModelServer,
    assist_settings,
    model_server,
    user_payload,
)
from tests.services.assist._extract_kit import answer, the_paper

from litdesk import ManualClock, Settings
from litdesk.adapters.store._assist import assist_calls
from litdesk.core.assist import ConsentRequired
from litdesk.services.app import App, open_app
from litdesk.services.assist import (
    EXTRACT_KIND,
    STRATEGY_KIND,
    SUMMARY_KIND,
    AllowanceRefused,
    AssistAllowance,
    AssistArea,
    AssistJob,
    EvidenceAssistant,
    EvidenceSource,
    StrategyRequest,
    SuggestEvidence,
    SummaryRequest,
)
from litdesk.services.assist._jobs import extract_draft_id
from litdesk.services.jobs import JobNotFound, Jobs
from litdesk.services.workspace import Workspace

T = TypeVar("T")
PAPER = "MED-424242"
GOOD = {"finding": ("faster clearance", "parasite clearance was faster with artesunate", "")}
QUOTE = "parasite clearance was faster with artesunate"
SUGGESTION = {"groups": [{"label": "Drug", "terms": ["artesunate", "quinine"]}]}


def _good() -> str:
    return answer({k: (v, q, "abstract") for k, (v, q, _b) in GOOD.items()})


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def model() -> Iterator[ScriptedModelServer]:
    with model_server("openai") as server:
        yield server


@pytest.fixture
def settings(
    request: pytest.FixtureRequest,
    backend: str,
    model: ScriptedModelServer,
    tmp_settings: Settings,
    tmp_path: Path,
) -> Settings:
    extra: dict[str, Any] = {"jobs_lease_seconds": 1.0}
    if backend == "postgres":
        extra["database_url"] = request.getfixturevalue("pg_schema")
    return assist_settings(model, tmp_path / "data", **extra)


def on_app(settings: Settings, body: Callable[[App], Any]) -> Any:
    """``body(app)`` in a worker thread while the app's loop runs (as in a server)."""

    async def go() -> Any:
        async with open_app(settings) as app:
            Workspace(app.store).save_paper(the_paper())
            return await asyncio.to_thread(body, app)

    return asyncio.run(go())


def wait(app: App, coro: Coroutine[object, object, T]) -> T:
    return app.providers.from_thread(coro).result(timeout=60)


def calls(app: App) -> list[tuple[str, str, str]]:
    """Every allowance row: (id, feature, status)."""
    c = assist_calls.c
    with app.store.read() as conn:
        rows = conn.execute(sa.select(c.id, c.feature, c.status).order_by(c.started_at))
        return [(r.id, r.feature, r.status) for r in rows]


def token_of(app: App, source: str = "abstract") -> str:
    what = EvidenceSource(PAPER, source)  # type: ignore[arg-type]
    return wait(app, app.assist.evidence_preview(what, owner="local")).notice.token


def suggest(ad: AssistArea, token: str) -> Coroutine[object, object, AssistJob]:
    """The submit of an evidence suggestion of the paper with ``token``, as ``local``."""
    return ad.suggest_evidence(SuggestEvidence(PAPER, token), owner="local")


def test_a_suggestion_is_a_job_whose_result_is_the_stored_draft(
    settings: Settings, model: ScriptedModelServer
) -> None:
    model.script(Scripted(_good()))

    def body(app: App) -> None:
        jobs = Jobs(app.store)
        ad = AssistArea(app.store, app.settings, app.providers, jobs)
        with pytest.raises(ConsentRequired) as stale:
            wait(app, suggest(ad, "sha256:" + "0" * 64))
        assert stale.value.code == "consent_stale" and jobs.list(owner="local") == []
        token = token_of(app)
        job = wait(app, suggest(ad, token))
        assert job.kind == EXTRACT_KIND and job.status == "queued" and model.requests == []
        params = jobs.get(job.id, owner="local").params
        assert params == {"paper_id": PAPER, "source": "abstract", "section": None} | {
            "consent": token,
            "study": None,  # read in no Study: the six standard fields
        }
        assert "sk-" not in json.dumps(params)  # no credential in the job
        done = ad.work(job.id, owner="local")
        assert done.status == "done" and done.error is None, done
        assert done.result is not None and done.result["draft_id"] == extract_draft_id(job.id)
        assert set(done.result["fields"]) == {"finding"}
        stored = EvidenceAssistant(app.providers).draft(done.result["draft_id"]).to_dict()
        assert stored == done.result  # the job's result is the draft as stored
        assert calls(app) == [(f"job-{job.id}", "extract", "ok")]
        assert len(model.requests) == 1
        sent = user_payload(model.requests[0].body)
        assert "parasite clearance was faster" in sent["blocks"][0]["text"]
        with pytest.raises(JobNotFound):
            ad.job(job.id, owner="someone-else")

    on_app(settings, body)


def test_the_job_sends_exactly_the_consented_text_or_nothing(
    settings: Settings, model: ScriptedModelServer
) -> None:
    """The abstract changes after the submit: the job's own consent check refuses."""
    model.script(Scripted(_good()))

    def body(app: App) -> None:
        ad = app.assist
        job = wait(app, suggest(ad, token_of(app)))
        with app.store.write() as conn:  # the stored abstract changes after the submit
            conn.execute(
                sa.text("UPDATE papers SET data = replace(data, 'in Mali', 'in Mali and Niger')")
            )
        ended = ad.work(job.id, owner="local")
        assert ended.status == "failed" and ended.error is not None
        assert ended.error["error"] == "ConsentRequired"
        assert ended.error["code"] == "consent_stale"
        assert model.requests == [] and calls(app) == []  # nothing sent, nothing reserved

    on_app(settings, body)


def test_an_allowance_refusal_comes_at_submit_with_its_wait(
    settings: Settings, model: ScriptedModelServer
) -> None:
    model.script(Scripted(_good()))
    limited = settings.model_copy(update={"assist_owner_daily_requests": 1})

    def body(app: App) -> None:
        ad = app.assist
        token = token_of(app)
        assert ad.work(wait(app, suggest(ad, token)).id, owner="local").status == "done"
        with pytest.raises(AllowanceRefused) as refused:
            wait(app, suggest(ad, token))
        assert refused.value.code == "owner_daily_limit"
        assert int(refused.value.details["retry_after"]) > 0
        assert len(model.requests) == 1 and len(calls(app)) == 1

    on_app(limited, body)


def test_an_allowance_spent_while_the_job_waited_is_its_failure(
    settings: Settings, model: ScriptedModelServer
) -> None:
    """Two jobs queued before either ran, one call left: the second fails with the refusal
    (its code and wait kept for the page), and no second call is made."""
    model.script(Scripted(_good()), Scripted(_good()))
    limited = settings.model_copy(update={"assist_owner_daily_requests": 1})

    def body(app: App) -> None:
        ad = app.assist
        token = token_of(app)
        first = wait(app, suggest(ad, token))
        second = wait(app, suggest(ad, token))
        assert ad.work(first.id, owner="local").status == "done"
        ended = ad.work(second.id, owner="local")
        assert ended.status == "failed" and ended.error is not None
        assert ended.error["error"] == "AllowanceRefused"
        assert ended.error["code"] == "owner_daily_limit"
        assert ended.error["retry_after"] > 0
        assert len(model.requests) == 1 and [f for _i, f, _s in calls(app)] == ["extract"]

    on_app(limited, body)


def _die_holding(jobs: Jobs, job_id: str) -> None:
    """A worker claims the job and dies (never heartbeats): its lease runs out."""
    claimed = jobs.claim([EXTRACT_KIND, SUMMARY_KIND, STRATEGY_KIND], "dead:1:x", 1.0)
    assert claimed is not None and claimed.id == job_id


def test_a_job_whose_worker_died_mid_call_is_not_called_or_counted_again(
    settings: Settings, model: ScriptedModelServer
) -> None:
    """The dead worker had reserved the call (it was under way): the job claimed again
    fails, naming why; one allowance row (settled failed), no second request."""
    model.script(Scripted(_good()), Scripted(_good()))

    def body(app: App) -> None:
        clock = ManualClock()
        jobs = Jobs(app.store, clock=clock)
        ad = AssistArea(app.store, app.settings, app.providers, jobs)
        job = wait(app, suggest(ad, token_of(app)))
        _die_holding(jobs, job.id)
        AssistAllowance(app.store, app.settings).reserve("local", "extract", key=job.id)
        assert calls(app) == [(f"job-{job.id}", "extract", "in_flight")]
        clock.advance(1.2)  # the dead worker's lease runs out
        ended = ad.work(job.id, owner="local")
        assert ended.status == "failed" and ended.attempts == 2, ended
        assert ended.error is not None and ended.error["code"] == "call_interrupted"
        assert "not made again" in ended.error["message"]
        assert calls(app) == [(f"job-{job.id}", "extract", "failed")]  # once, settled
        assert model.requests == []
        # the owner is not blocked by the dead call: the next suggestion runs
        again = wait(app, suggest(ad, token_of(app)))
        assert ad.work(again.id, owner="local").status == "done" and len(model.requests) == 1

    on_app(settings, body)


def test_a_job_whose_worker_died_after_storing_its_draft_gives_that_draft(
    settings: Settings, model: ScriptedModelServer
) -> None:
    model.script(Scripted(_good()))

    def body(app: App) -> None:
        clock = ManualClock()
        jobs = Jobs(app.store, clock=clock)
        ad = AssistArea(app.store, app.settings, app.providers, jobs)
        token = token_of(app)
        job = wait(app, suggest(ad, token))
        _die_holding(jobs, job.id)
        ea = EvidenceAssistant(app.providers)  # the dead worker's call, which was recorded
        draft = wait(
            app, ea.suggest(PAPER, consent=token, key=job.id, draft_id=extract_draft_id(job.id))
        )
        ea.close()
        clock.advance(1.2)
        ended = ad.work(job.id, owner="local")
        assert ended.status == "done" and ended.result == draft.to_dict(), ended
        assert len(model.requests) == 1 and calls(app) == [(f"job-{job.id}", "extract", "ok")]

    on_app(settings, body)


def test_summary_and_strategy_jobs(settings: Settings, model: ScriptedModelServer) -> None:
    def summary(body: dict[str, Any]) -> Scripted:
        content = user_payload(body)
        if "researchQuestion" in content:
            return Scripted(json.dumps(SUGGESTION))
        paper = next(s for s in content["sources"] if s["kind"] == "paper")
        point = {"text": "Faster.", "citations": [{"source": paper["id"], "quote": QUOTE}]}
        return Scripted(
            json.dumps({"overview": [point], "findings": [], "gaps": [], "next_steps": []})
        )

    model.respond_with(summary)

    def body(app: App) -> None:
        from litdesk.services.assist import Assistant
        from litdesk.services.assist._strategy import suggestion_notice
        from litdesk.services.assist._summary import summary_notice

        ws = Workspace(app.store)
        study = ws.create_study("Malaria")
        ws.add_to_study(study.id, PAPER)
        ad = app.assist
        with Assistant(app.store, app.settings) as a:
            _p, notice = summary_notice(a, study.id, focus="overview")
            question = "Is artesunate faster than quinine?"
            s_token = suggestion_notice(a, question).token
        job = wait(
            app,
            ad.summarise(SummaryRequest(study.id, "overview", consent=notice.token), owner="local"),
        )
        assert job.kind == SUMMARY_KIND
        done = ad.work(job.id, owner="local")
        assert done.status == "done" and done.result is not None, done.error
        assert done.result["draft_id"] == "sd_" + job.id[:24]
        assert [p["text"] for p in done.result["sections"]["overview"]] == ["Faster."]
        sjob = wait(app, ad.suggest_strategy(StrategyRequest(question, s_token), owner="local"))
        sdone = ad.work(sjob.id, owner="local")
        assert sdone.kind == STRATEGY_KIND and sdone.status == "done", sdone
        assert sdone.result is not None
        assert [g["terms"] for g in sdone.result["groups"]] == [["artesunate", "quinine"]]
        assert sorted(f for _i, f, _s in calls(app)) == ["strategy", "summary"]
        assert len(model.requests) == 2
        with pytest.raises(ConsentRequired):
            wait(app, ad.suggest_strategy(StrategyRequest(question + "?", s_token), owner="local"))

    on_app(settings, body)


def test_a_cancel_stops_waiting_for_the_model(
    settings: Settings, model: ScriptedModelServer
) -> None:
    gate = threading.Event()
    model.script(Scripted(_good(), gate=gate))

    def body(app: App) -> None:
        jobs = Jobs(app.store)
        ad = AssistArea(app.store, app.settings, app.providers, jobs)
        job = wait(app, suggest(ad, token_of(app)))
        worker = threading.Thread(target=lambda: ad.work(job.id, owner="local"))
        worker.start()
        try:
            deadline = time.monotonic() + 30
            while not model.requests and time.monotonic() < deadline:
                time.sleep(0.05)  # the call has reached the model server (held)
            assert ad.job(job.id, owner="local").status == "running"
            ad.cancel(job.id, owner="local")
            worker.join(30)
            assert not worker.is_alive()
        finally:
            gate.set()
        ended = ad.job(job.id, owner="local")
        assert ended.status == "cancelled" and ended.error is not None
        assert "may already have processed" in ended.error["message"]
        deadline = time.monotonic() + 10
        while calls(app)[0][2] == "in_flight" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert calls(app) == [(f"job-{job.id}", "extract", "cancelled")]
        assert len(model.requests) == 1

    on_app(settings, body)
