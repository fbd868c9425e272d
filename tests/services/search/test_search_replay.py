"""A six-provider search replayed from a cassette built here from the recorded fixture
bodies: the real compilers and parsers, no network, no keys."""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from litdesk.adapters.http import CassetteMiss, CassetteRecorder, Exchange, Redactor, sanitised_url
from litdesk.core.query import compile_fetch
from litdesk.core.search import PROVIDERS, SearchFilters
from litdesk.core.trace import validate_request
from litdesk.services.app import open_app
from litdesk.services.search import default_kit

pytestmark = pytest.mark.fixtures


def run_search(settings, request, *, replay):
    """One search through the runtime (the one transport and meter), replayed."""

    async def go():
        async with open_app(settings, replay=replay) as runtime_app:
            runtime = runtime_app.providers
            return await runtime.search(request)

    return asyncio.run(go())


BODIES = {
    "europepmc": "europepmc/search-cancer-core.json",
    "openalex": "openalex/works-title-search-augmenting-llm-chemistry.json",
    "semanticscholar": "semanticscholar/paper-search-turing-title-offset0.json",
    "crossref": "crossref/works-query-ecology-rows2.json",
    "arxiv": "arxiv/query-testing-start0-max10.xml",
}
# counts stated in the fixtures' PROVENANCE.md
EXPECTED = {
    "europepmc": 25,
    "openalex": 2,
    "semanticscholar": 100,
    "crossref": 2,
    "pubmed": 2,
    "arxiv": 10,
}
# a hand-made esearch answer naming the two PMIDs of the recorded efetch body
ESEARCH = json.dumps(
    {
        "header": {"type": "esearch", "version": "0.3"},
        "esearchresult": {
            "count": "2",
            "retmax": "2",
            "retstart": "0",
            "idlist": ["9997", "12091962"],
        },
    }
).encode()


def _exchange(request, body: bytes) -> Exchange:
    return Exchange(
        provider=request.provider,
        method=request.method,
        url=sanitised_url(request),
        request_body=request.body,
        status=200,
        headers={"content-type": "application/json"},
        body=body,
        received_at=datetime(2026, 11, 30, tzinfo=UTC),
    )


def _cassette(folder: Path, fixtures: Path, query: str) -> dict[str, str]:
    kit = default_kit()
    recorder = CassetteRecorder(folder)
    digests = {}
    for provider in PROVIDERS:
        request = kit.compile(provider, query, SearchFilters(), 20, None)
        if provider == "pubmed":
            body = ESEARCH
            fetch = compile_fetch("pubmed", ["9997", "12091962"])
            efetch = (fixtures / "providers/pubmed/efetch-pubmed-12091962-9997.xml").read_bytes()
            recorder.record(_exchange(fetch, efetch), Redactor())
        else:
            body = (fixtures / "providers" / BODIES[provider]).read_bytes()
        digests[provider] = hashlib.sha256(body).hexdigest()
        recorder.record(_exchange(request, body), Redactor())
    return digests


def test_six_provider_search_replays_from_cassette(tmp_settings, tmp_path, fixtures_dir):
    folder = tmp_path / "cassette"
    digests = _cassette(folder, fixtures_dir, "cancer")
    request = validate_request("cancer", list(PROVIDERS))
    trace = run_search(tmp_settings, request, replay=folder)  # no keys, no network
    data = trace.to_dict()
    assert data["status"] == "success", [a["message"] for a in data["attempts"]]
    lanes = [(a["provider"], a["reuse"]) for a in data["attempts"]]
    assert ("pubmed", "replay") in lanes and len(lanes) == 7  # esearch + efetch
    for provider in PROVIDERS:
        first = next(a for a in data["attempts"] if a["provider"] == provider)
        assert first["response_digest"] == digests[provider]
        assert first["parser"]["id"].startswith("litdesk.providers.")
        assert len(trace.sightings_of(provider)) == EXPECTED[provider], provider
    # PubMed sightings keep esearch order and carry the fetched records
    pubmed = trace.sightings_of("pubmed")
    assert [s.paper.pmid for s in pubmed] == ["9997", "12091962"]
    assert all(s.paper.title for s in pubmed)
    assert data["summary"]["sightings"] == sum(EXPECTED.values())
    assert (
        trace.cache_identity
        == run_search(
            tmp_settings, validate_request("cancer", list(reversed(PROVIDERS))), replay=folder
        ).cache_identity
    )


def test_replay_of_an_unrecorded_query_fails_clearly(tmp_settings, tmp_path, fixtures_dir):
    folder = tmp_path / "cassette"
    _cassette(folder, fixtures_dir, "cancer")
    with pytest.raises(CassetteMiss, match="record it first"):
        run_search(tmp_settings, validate_request("tumour", ["crossref"]), replay=folder)


def test_exact_doi_is_one_lookup_per_provider_and_404_is_empty(
    tmp_settings, tmp_path, fixtures_dir
):
    doi = "10.1038/s42256-024-00832-8"
    kit = default_kit()
    folder = tmp_path / "cassette"
    recorder = CassetteRecorder(folder)
    answers = {
        "crossref": (200, "crossref/work-10.1038-s42256-024-00832-8.json"),
        "semanticscholar": (404, "semanticscholar/paper-doi-not-found-404.json"),
    }
    for provider, (status, name) in answers.items():
        request = kit.compile(provider, doi, SearchFilters(), 20, None)
        assert request.operation == "lookup"
        ex = _exchange(request, (fixtures_dir / "providers" / name).read_bytes())
        recorder.record(
            Exchange(**{**{f: getattr(ex, f) for f in ex.__slots__}, "status": status}), Redactor()
        )
    trace = run_search(
        tmp_settings, validate_request(doi, ["crossref", "semanticscholar"]), replay=folder
    )
    by = {a.provider: a for a in trace.attempts}
    assert by["crossref"].outcome == "ok" and by["crossref"].http_status == 200
    assert [s.paper.doi for s in trace.sightings_of("crossref")] == [doi]
    assert by["semanticscholar"].outcome == "ok" and by["semanticscholar"].http_status == 404
    assert by["semanticscholar"].returned == 0 and by["semanticscholar"].status == "success"
