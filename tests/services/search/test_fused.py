"""Fused search over the real compilers and parsers, with MockTransport at the provider
edge and a real SQLite store: lane plans, RRF, cache, coalescing, cancellation,
allowances failing closed, saving runs."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import sqlalchemy as sa
from _fused_helpers import body_for, fused
from pydantic import SecretStr

from litdesk.adapters.http import StoreMeter, TransportRefused
from litdesk.adapters.store import Store, open_store, usage
from litdesk.core.fusion import RANKING_VERSION
from litdesk.core.runs import read_run
from litdesk.services.search import (
    FusedSearchError,
    load_run,
    make_definition,
    plan_search,
    save_run,
)


@pytest.fixture
def settings(tmp_settings):
    return tmp_settings.model_copy(update={"openalex_api_key": SecretStr("OAX-KEY-123")})


@pytest.fixture
def store(settings):
    s = open_store(settings)
    yield s
    s.dispose()


def _run(coro):
    return asyncio.run(coro)


def test_lane_plans():
    d = make_definition("malaria vaccine", mode="discovery")
    plan = plan_search(d)
    assert [lane.lane for lane in plan.lanes] == [
        "europepmc-keyword",
        "openalex-keyword",
        "openalex-semantic",
    ]
    assert plan.coverage == "bounded-discovery" and plan.candidate_limit == 150
    boolean = plan_search(make_definition("malaria AND vaccine", mode="discovery"))
    assert [lane.lane for lane in boolean.lanes] == ["europepmc-keyword", "openalex-keyword"]
    assert boolean.candidate_limit == 100
    semantic = plan_search(make_definition("malaria", mode="semantic"))
    assert [lane.lane for lane in semantic.lanes] == ["openalex-semantic"]
    assert semantic.candidate_limit == 50
    assert ("per_page", "50") in semantic.lanes[0].request.params
    kw = plan_search(make_definition("malaria", providers=["crossref"]))
    assert [lane.lane for lane in kw.lanes] == ["crossref-keyword"]
    assert kw.coverage == "provider-order"
    exact = plan_search(make_definition("10.1000/xyz", mode="discovery"))
    assert len(exact.lanes) == 1 and exact.lanes[0].provider == "europepmc"
    oax = plan_search(make_definition("W2741809807", mode="discovery"))
    assert oax.lanes[0].provider == "openalex"
    many = plan_search(make_definition("malaria", providers=["crossref", "arxiv", "pubmed"]))
    assert len(many.lanes) == 3 and many.coverage == "bounded-discovery"
    with pytest.raises(FusedSearchError):
        plan_search(make_definition("malaria", mode="discovery"), cursor="abc")


def test_discovery_fuses_with_rrf(settings, store):
    calls = []

    def handler(request):
        calls.append(request.url.host)
        return httpx.Response(200, content=body_for(request))

    async def go():
        transport, fs = fused(settings, store, handler)
        async with transport:
            return await fs.search(make_definition("malaria vaccine", mode="discovery"))

    run = _run(go())
    assert len(calls) == 3
    assert run.coverage == "bounded-discovery" and run.ranking_version == RANKING_VERSION
    assert [lane.status for lane in run.lanes] == ["ok", "ok", "ok"]
    # MED-111 (= W1 = doi a) was found by all three lanes at rank 1: first, one hit
    top = run.hits[0]
    assert top.paper.id == "MED-111"
    assert {c.lane for c in top.contributions} == {
        "europepmc-keyword",
        "openalex-keyword",
        "openalex-semantic",
    }
    assert top.score == pytest.approx(3 / 61)
    assert [h.paper.id for h in run.hits] == ["MED-111", "OAX-W9", "MED-222"]
    assert run.hits[1].score == pytest.approx(2 / 62)
    assert run.unique_retrieved == 3 and run.total == 3 and run.next_cursor is None
    # provider totals stay per lane
    assert [lane.total for lane in run.lanes] == [2, 2, None]
    assert read_run(run.to_dict()) == run


def test_cache_hit_is_a_reused_copy_and_only_successes_are_cached(settings, store):
    calls = []
    fail = {"on": False}

    def handler(request):
        calls.append(1)
        if fail["on"]:
            return httpx.Response(503, text="down")
        return httpx.Response(200, content=body_for(request))

    d = make_definition("malaria", providers=["europepmc"])
    d2 = make_definition("malaria 2", providers=["europepmc"])

    async def go():
        transport, fs = fused(settings, store, handler)
        async with transport:
            first = await fs.search(d)
            second = await fs.search(d)
            fail["on"] = True
            bad1 = await fs.search(d2)
            bad2 = await fs.search(d2)
            return first, second, bad1, bad2

    first, second, bad1, bad2 = _run(go())
    assert second.reuse == "cache" and second.reused_from == first.id
    assert second.id != first.id and second.retrieved_at == first.retrieved_at
    assert [h.paper.id for h in second.hits] == [h.paper.id for h in first.hits]
    assert first.reuse is None and first.coverage == "provider-order"
    assert bad1.lanes[0].status == "unavailable" and bad2.reuse is None
    assert len(calls) == 3  # the failed run was not cached


def test_owners_never_share_the_cache(settings, store):
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(200, content=body_for(request))

    d = make_definition("malaria", providers=["europepmc"])

    async def go(owner):
        transport, fs = fused(settings, store, handler, owner=owner)
        async with transport:
            return await fs.search(d)

    a, b = _run(go("alice")), _run(go("bob"))
    assert a.reuse is None and b.reuse is None and len(calls) == 2


def test_coalesced_callers_and_a_cancelled_caller_does_not_cancel_the_lane(settings, store):
    calls = []

    async def go():
        gate = asyncio.Event()

        async def slow(request):
            calls.append(1)
            await gate.wait()
            return httpx.Response(200, content=body_for(request))

        d = make_definition("malaria", providers=["europepmc"])
        transport, fs = fused(settings, store, slow)
        async with transport:
            a = asyncio.create_task(fs.search(d))
            await asyncio.sleep(0.05)
            b = asyncio.create_task(fs.search(d))
            await asyncio.sleep(0.05)
            a.cancel()
            await asyncio.sleep(0.05)
            gate.set()
            with pytest.raises(asyncio.CancelledError):
                await a
            run_b = await b
            return run_b

    run_b = _run(go())
    assert len(calls) == 1
    assert run_b.reuse == "coalesced" and run_b.reused_from and run_b.hits


def test_allowance_fails_closed_and_every_reservation_counts(settings, store):
    limited = settings.model_copy(update={"owner_daily_requests": 2})
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(503, text="down")  # failed upstream: still counted

    async def go():
        transport, fs = fused(limited, store, handler)
        async with transport:
            out = []
            for q in ("a1", "a2", "a3"):
                out.append(await fs.search(make_definition(q, providers=["europepmc"])))
            return out

    runs = _run(go())
    assert [r.lanes[0].status for r in runs] == ["unavailable", "unavailable", "budget_exhausted"]
    assert 0 < runs[2].lanes[0].retry_after <= 86_400  # until the next UTC day
    assert len(calls) == 2
    from datetime import UTC, datetime

    assert usage(store, "europepmc", datetime.now(UTC).date())["local"] == 2


def test_store_failure_means_no_request(settings, tmp_path):
    broken_dir = tmp_path / "a-directory"
    broken_dir.mkdir()
    broken = Store(sa.create_engine(f"sqlite:///{broken_dir}"))
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(200, content=body_for(request))

    async def go():
        transport, fs = fused(settings, None, handler, meter=StoreMeter(broken, settings))
        async with transport:
            return await fs.search(make_definition("malaria", mode="discovery"))

    run = _run(go())
    assert [lane.status for lane in run.lanes] == ["budget_exhausted"] * 3
    assert calls == [] and run.hits == ()
    assert "could not be checked" in run.lanes[0].message


def test_semantic_gap_in_the_store_and_refusal_gives_the_gate_back(settings, store):
    from litdesk import ManualClock

    clock = ManualClock()
    meter = StoreMeter(store, settings, clock=clock)
    meter.reserve("openalex", lane="openalex-semantic")
    with pytest.raises(TransportRefused) as caught:
        meter.reserve("openalex", lane="openalex-semantic")
    assert caught.value.lane_status == "rate_limited"
    meter.reserve("openalex", lane="openalex-keyword")  # the gap is for the semantic lane
    # a daily refusal does not close the gate (reference defect 10)
    other = settings.model_copy(update={"owner_daily_requests": 1})
    tight = StoreMeter(store, other, owner="someone", clock=clock)
    tight.reserve("openalex", lane="openalex-keyword")
    clock.advance(1.05)  # the semantic lane's gap has passed
    with pytest.raises(TransportRefused) as daily:
        tight.reserve("openalex", lane="openalex-semantic")
    assert daily.value.lane_status == "budget_exhausted"
    meter.reserve("openalex", lane="openalex-semantic")  # the gate is still open


def test_save_and_load_into_a_study(settings, store):
    from litdesk.services.workspace import Workspace

    Workspace(store).create_study("Malaria")

    def handler(request):
        return httpx.Response(200, content=body_for(request))

    async def go():
        transport, fs = fused(settings, store, handler)
        async with transport:
            return await fs.search(make_definition("malaria", mode="discovery"))

    run = _run(go())
    save_run(store, run, study="Malaria")
    assert load_run(store, run.id) == run
    summary = Workspace(store).study_summary("Malaria")
    assert run.id in summary.search_runs


def test_a_lone_cancelled_caller_still_fills_the_cache(settings, store):
    calls = []

    async def go():
        gate = asyncio.Event()

        async def slow(request):
            calls.append(1)
            await gate.wait()
            return httpx.Response(200, content=body_for(request))

        d = make_definition("malaria", providers=["europepmc"])
        transport, fs = fused(settings, store, slow)
        async with transport:
            a = asyncio.create_task(fs.search(d))
            await asyncio.sleep(0.05)
            a.cancel()
            gate.set()
            with pytest.raises(asyncio.CancelledError):
                await a
            while fs._inflight:  # the shared work finishes on its own
                await asyncio.sleep(0.01)
            return await fs.search(d)

    later = _run(go())
    assert len(calls) == 1 and later.reuse == "cache"


def test_exact_lookups_are_metered_too(settings, store):
    """Reference defect 5: singleton lookups were unmetered; here every call reserves."""
    from datetime import UTC, datetime

    def handler(request):
        return httpx.Response(200, content=body_for(request))

    async def go():
        transport, fs = fused(settings, store, handler)
        async with transport:
            return await fs.search(make_definition("W2741809807", mode="discovery"))

    run = _run(go())
    assert [lane.provider for lane in run.lanes] == ["openalex"]
    assert usage(store, "openalex", datetime.now(UTC).date())["local"] == 1


@pytest.mark.postgres
def test_allowance_and_gate_on_postgres(settings, pg_schema):
    pg = open_store(pg_schema)  # a fresh schema: other engineers share the database
    try:
        owner = "pg-owner"
        tight = settings.model_copy(update={"owner_daily_requests": 1})
        meter = StoreMeter(pg, tight, owner=owner)
        provider = "europepmc"
        meter.reserve(provider)
        with pytest.raises(TransportRefused) as caught:
            meter.reserve(provider)
        assert caught.value.lane_status == "budget_exhausted"
    finally:
        pg.dispose()


def test_refused_lanes_keep_known_lane_names_and_failed_runs_are_not_saved(settings, store):
    from litdesk.core.runs import LANES

    plan = plan_search(
        make_definition(
            "sepsis", providers=["crossref", "semanticscholar"], filters={"type": "preprint"}
        )
    )
    assert [(lane.lane, lane.request is None) for lane in plan.lanes] == [
        ("crossref-keyword", False),
        ("semanticscholar-relevance", True),
    ]
    assert all(lane.lane in LANES for lane in plan.lanes)

    def handler(request):
        return httpx.Response(503, text="down")

    async def go():
        transport, fs = fused(settings, store, handler)
        async with transport:
            return await fs.search(
                make_definition(
                    "sepsis",
                    providers=["crossref", "semanticscholar"],
                    filters={"type": "preprint"},
                )
            )

    run = _run(go())
    assert [lane.status for lane in run.lanes] == ["unavailable", "unsupported"]
    assert "preprint" in run.lanes[1].message
    with pytest.raises(FusedSearchError) as caught:
        save_run(store, run)
    assert caught.value.code == "run_failed"


def test_a_large_run_is_saved_without_abstracts(settings, store):
    from litdesk.core.fusion import Sighting, fuse
    from litdesk.core.records import make_paper
    from litdesk.core.runs import LaneResult, RunDefinition, build_run

    papers = [make_paper(pmid=str(i + 1), title=f"P{i}", abstract="w " * 3000) for i in range(150)]
    run = build_run(
        run_id="big",
        definition=RunDefinition("q", "keyword", ("europepmc",)),
        lanes=[LaneResult("europepmc-keyword", "europepmc", "ok", "q", 150, 150)],
        hits=fuse(
            [Sighting("europepmc-keyword", "europepmc", r, p) for r, p in enumerate(papers, 1)]
        ),
        coverage="provider-order",
        candidate_limit=150,
        retrieved_at="2026-11-30T10:00:00+00:00",
    )
    save_run(store, run)
    back = load_run(store, "big")
    assert len(back.hits) == 150 and all(h.paper.abstract is None for h in back.hits)
    assert [h.paper.id for h in back.hits] == [h.paper.id for h in run.hits]


def test_a_lane_answering_over_its_limit_keeps_its_limit(settings, store, fixtures_dir):
    """Semantic Scholar's bulk search ignores ``limit`` (a real page: 1,000 records): a run of
    several lanes keeps the lane's limit and says so — before, 1,000 records entered a run
    whose candidate limit was 40 and PRISMA-S read "Limit 20, Records 1,000"."""
    bulk = (
        fixtures_dir / "providers/semanticscholar/paper-search-bulk-citationcount-asc-first.json"
    ).read_bytes()

    def handler(request):
        if request.url.host == "api.semanticscholar.org":
            return httpx.Response(200, content=bulk)
        return httpx.Response(200, content=body_for(request))

    definition = make_definition(
        "malaria AND vaccine", providers=["europepmc", "semanticscholar"], limit=20
    )
    plan = plan_search(definition)
    assert plan.coverage == "bounded-discovery" and plan.candidate_limit == 40
    seen = []

    async def go():
        transport, fs = fused(settings, store, handler)
        async with transport:
            return await fs.execute(definition, on_lane=seen.append)

    run = _run(go())
    s2 = next(lane for lane in run.lanes if lane.provider == "semanticscholar")
    assert s2.status == "ok" and s2.returned == 20 and s2.total == 3027
    assert any("returned 1,000 records for a limit of 20" in w for w in s2.warnings), s2
    assert (
        sum(1 for h in run.hits for c in h.contributions if c.provider == "semanticscholar") == 20
    )
    assert len(run.hits) <= plan.candidate_limit
    assert next(lane for lane in seen if lane.provider == "semanticscholar").returned == 20
    # one provider's page stays whole: its next page (the token) continues after it
    alone = make_definition("malaria AND vaccine", providers=["semanticscholar"], limit=20)
    assert plan_search(alone).coverage == "provider-order"

    async def one():
        transport, fs = fused(settings, store, handler)
        async with transport:
            return await fs.execute(alone)

    whole = _run(one())
    assert whole.lanes[0].returned == 1000 and whole.lanes[0].next_cursor
    assert any("the page is kept whole" in w for w in whole.lanes[0].warnings)
