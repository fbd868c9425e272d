"""A discovery search replayed from a cassette built here from the recorded provider
bodies ($LITDESK_FIXTURES/providers): real compilers, parsers, fusion; no network."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest
from pydantic import SecretStr

from litdesk.adapters.http import CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.adapters.store import open_store
from litdesk.core.runs import make_manifest, read_manifest
from litdesk.services.app import open_app
from litdesk.services.search import load_run, make_definition, plan_search

pytestmark = pytest.mark.fixtures


def run_fused(settings, definition, *, replay, **kw):
    """One fused search through the runtime (the one transport and meter), replayed."""

    async def go():
        async with open_app(settings, replay=replay) as runtime_app:
            runtime = runtime_app.providers
            return await runtime.fused_search(definition, **kw)

    return asyncio.run(go())


BODIES = {
    "europepmc-keyword": "europepmc/search-cancer-core.json",  # 25 results (PROVENANCE)
    "openalex-keyword": "openalex/works-filter-cites-cursor-first.json",  # 5 results
    "openalex-semantic": "openalex/works-title-search-augmenting-llm-chemistry.json",  # 2
}
COUNTS = {"europepmc-keyword": 25, "openalex-keyword": 5, "openalex-semantic": 2}


def _cassette(folder, fixtures, definition):
    recorder = CassetteRecorder(folder)
    for lane in plan_search(definition).lanes:
        body = (fixtures / "providers" / BODIES[lane.lane]).read_bytes()
        req = lane.request
        recorder.record(
            Exchange(
                provider=req.provider,
                method=req.method,
                url=sanitised_url(req),
                request_body=req.body,
                status=200,
                headers={"content-type": "application/json"},
                body=body,
                received_at=datetime(2026, 11, 30, tzinfo=UTC),
            ),
            Redactor(),
        )


def test_discovery_replay(tmp_settings, fixtures_dir, tmp_path):
    settings = tmp_settings.model_copy(update={"openalex_api_key": SecretStr("k-123456")})
    definition = make_definition("cancer", mode="discovery")
    _cassette(tmp_path / "cas", fixtures_dir, definition)
    run = run_fused(settings, definition, replay=tmp_path / "cas", save=True)
    assert {lane.lane: lane.returned for lane in run.lanes} == COUNTS
    assert all(lane.status == "ok" for lane in run.lanes)
    assert run.candidate_limit == 150 and run.coverage == "bounded-discovery"
    # distinct papers: at most the sum of lane records, never the provider totals
    assert 0 < run.unique_retrieved <= sum(COUNTS.values())
    assert run.unique_retrieved == len(run.hits)
    scores = [h.score for h in run.hits]
    assert scores == sorted(scores, reverse=True)
    for hit in run.hits:
        assert hit.score == pytest.approx(sum(1 / (60 + c.rank) for c in hit.contributions))
    epmc_total = run.lanes[0].total
    assert epmc_total is not None and epmc_total > 25 and run.total == run.unique_retrieved
    store = open_store(settings)
    try:
        assert load_run(store, run.id) == run
    finally:
        store.dispose()
    m = read_manifest(json.dumps(make_manifest(run)))
    assert len(m.run.hits) == min(150, run.unique_retrieved)


def test_boolean_discovery_has_no_semantic_lane(tmp_settings, fixtures_dir, tmp_path):
    settings = tmp_settings.model_copy(update={"openalex_api_key": SecretStr("k-123456")})
    definition = make_definition("cancer AND therapy", mode="discovery")
    _cassette(tmp_path / "cas", fixtures_dir, definition)
    run = run_fused(settings, definition, replay=tmp_path / "cas")
    assert [lane.lane for lane in run.lanes] == ["europepmc-keyword", "openalex-keyword"]
    assert run.candidate_limit == 100
