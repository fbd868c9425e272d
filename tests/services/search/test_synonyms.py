"""Europe PMC's vocabulary expansion as a search filter (issue 33), with the reference's
rules: sent to Europe PMC as synonym=TRUE|FALSE only when chosen, never to another
provider; refused for a semantic search and for a search without Europe PMC; kept in the
run's definition (a search with another choice is another search, not a cache hit), the
manifest and PRISMA-S."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from _fused_helpers import body_for, fused

from litdesk.adapters.store import open_store
from litdesk.core.query import compile_search
from litdesk.core.runs import RunInvalid, build_prisma, make_manifest, read_manifest, read_run
from litdesk.core.search import SearchFilters
from litdesk.services.search import SearchInputError, SearchRequest, make_definition


@pytest.fixture
def store(tmp_settings):
    s = open_store(tmp_settings)
    yield s
    s.dispose()


def _synonym(url: str) -> list[str]:
    return parse_qs(urlsplit(url).query).get("synonym", [])


def test_sent_to_europe_pmc_only_when_chosen(tmp_settings, store) -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        return httpx.Response(200, content=body_for(request))

    both = ("europepmc", "crossref")
    on = SearchRequest("malaria vaccine", providers=both, synonyms=True)
    off = SearchRequest("malaria vaccine", providers=both, synonyms=False)
    unset = SearchRequest("malaria vaccine", providers=both)

    async def go():
        transport, fs = fused(tmp_settings, store, handler)
        async with transport:
            return [await fs.search(r.definition) for r in (on, off, unset)]

    first, second, third = asyncio.run(go())
    assert len(sent) == 6  # three searches, none reused from another's cache
    epmc = [u for u in sent if "ebi.ac.uk" in u]
    assert [_synonym(u) for u in epmc] == [["TRUE"], ["FALSE"], []]
    assert all(_synonym(u) == [] for u in sent if "ebi.ac.uk" not in u)
    assert first.reuse != "cache" and second.reuse != "cache"
    assert read_run(first.to_dict()).definition.filters.synonyms is True
    assert read_run(third.to_dict()).definition.filters.synonyms is None
    assert "synonyms" not in third.definition.to_dict()["filters"]  # earlier runs read alike
    manifest = read_manifest(json.dumps(make_manifest(second)))
    assert manifest.run.definition.filters.synonyms is False
    report = build_prisma("Malaria", [first, third], [])
    notes = [n for n in report.notes if "vocabulary expansion" in n]
    assert len(notes) == 1 and "synonym=TRUE" in notes[0]


def test_the_reference_rules() -> None:
    with pytest.raises(SearchInputError, match="not a question"):
        SearchRequest("how do vaccines work?", mode="semantic", synonyms=True)
    with pytest.raises(SearchInputError, match="Europe PMC option"):
        SearchRequest("malaria", providers=("openalex",), synonyms=True)
    # off, or left to Europe PMC, is never refused; discovery asks Europe PMC too
    assert SearchRequest("malaria", providers=("openalex",), synonyms=False)
    assert SearchRequest("how do vaccines work?", mode="semantic").definition
    discovery = SearchRequest("malaria", mode="discovery", synonyms=True)
    assert "europepmc" in discovery.definition.providers


def test_compiled_and_read_back() -> None:
    on = compile_search("europepmc", "malaria", SearchFilters(synonyms=True))
    assert on.params[-1] == ("synonym", "TRUE")
    plain = compile_search("europepmc", "malaria", SearchFilters())
    assert all(name != "synonym" for name, _ in plain.params)
    pubmed = compile_search("pubmed", "malaria", SearchFilters(synonyms=True))
    assert all(name != "synonym" for name, _ in pubmed.params)
    with pytest.raises(RunInvalid, match="synonyms"):
        make_definition("malaria", providers=["europepmc"], filters={"synonyms": "yes"})
