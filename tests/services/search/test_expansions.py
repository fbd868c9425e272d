"""Expansion provenance (a subject picked into the query from a vocabulary) through a real
fused search: kept in the run's definition, the manifest's strategy and PRISMA-S; never
sent to a provider; the same search with another subject reuses the cached results and
records its own subject."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from _fused_helpers import body_for, fused

from litdesk.adapters.store import open_store
from litdesk.core.runs import build_prisma, make_manifest, read_manifest, read_run
from litdesk.core.vocab import Expansion
from litdesk.services.search import SearchInputError, SearchRequest, make_definition

DIABETES = Expansion("mesh", "D003920", ("Diabetes Mellitus",))
TYPE2 = Expansion("mesh", "D003924", ("Diabetes Mellitus, Type 2",))


@pytest.fixture
def store(tmp_settings):
    s = open_store(tmp_settings)
    yield s
    s.dispose()


def test_provenance_is_kept_and_never_sent(tmp_settings, store) -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        return httpx.Response(200, content=body_for(request))

    picked = SearchRequest('"Diabetes Mellitus"', providers=("europepmc",), expansions=(DIABETES,))
    other = SearchRequest('"Diabetes Mellitus"', providers=("europepmc",), expansions=(TYPE2,))

    async def go():
        transport, fs = fused(tmp_settings, store, handler)
        async with transport:
            first = await fs.search(picked.definition)
            second = await fs.search(other.definition)
            return first, second

    first, second = asyncio.run(go())
    assert len(sent) == 1  # the second search reused the cached results
    assert "D003920" not in sent[0] and "mesh" not in sent[0].lower()
    assert first.definition.expansions == (DIABETES,)
    assert second.reuse == "cache" and second.definition.expansions == (TYPE2,)
    assert read_run(first.to_dict()).definition.expansions == (DIABETES,)
    doc = make_manifest(first)
    assert doc["strategy"]["expansions"] == [DIABETES.to_dict()]
    manifest = read_manifest(json.dumps(doc))
    assert manifest.run.definition.expansions == (DIABETES,)
    report = build_prisma("Diabetes", [first], [])
    assert any("mesh D003920 (Diabetes Mellitus)" in note for note in report.notes)


def test_a_definition_without_subjects_is_unchanged() -> None:
    plain = make_definition("malaria", providers=["europepmc"])
    assert "expansions" not in plain.to_dict()
    with_subject = make_definition("malaria", providers=["europepmc"], expansions=[DIABETES])
    assert with_subject.without_expansions() == plain


def test_bad_provenance_is_an_input_error() -> None:
    with pytest.raises(SearchInputError):
        SearchRequest("malaria", expansions=(Expansion("mesh", "", ("Malaria",)),))


def test_an_openalex_topic_is_kept_like_a_mesh_heading(tmp_settings, store) -> None:
    """A subject picked from OpenAlex's suggestions (remote33): the same provenance path."""
    topic = Expansion("openalex_topic", "T10001", ("Malaria Vaccine Development and Trials",))
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        return httpx.Response(200, content=body_for(request))

    picked = SearchRequest("malaria vaccine", providers=("europepmc",), expansions=(topic,))

    async def go():
        transport, fs = fused(tmp_settings, store, handler)
        async with transport:
            return await fs.search(picked.definition)

    run = asyncio.run(go())
    assert len(sent) == 1 and "T10001" not in sent[0]
    doc = make_manifest(run)
    assert doc["strategy"]["expansions"] == [topic.to_dict()]
    assert read_manifest(json.dumps(doc)).run.definition.expansions == (topic,)
    report = build_prisma("Malaria", [run], [])
    assert any(
        "openalex_topic T10001 (Malaria Vaccine Development and Trials)" in note
        for note in report.notes
    )
