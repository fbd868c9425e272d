"""The providers are declared once (litdesk.core.providers): every derived table agrees
with the declarations, every compiler builds its URLs and lanes from them, and each search
lane's declared fields, sorts and types are exactly what its compiler expresses."""

from __future__ import annotations

import subprocess
import sys
from itertools import product
from typing import get_args
from urllib.parse import urlsplit

import pytest

from litdesk import LitdeskError
from litdesk.core import search
from litdesk.core.providers import (
    DECLARED,
    HOSTS,
    LANE_PROVIDER,
    MODE_DEFAULTS,
    PROVIDER_SPECS,
    PROVIDERS,
    ProviderName,
    UnknownLane,
    UnknownProvider,
    display_name,
    provider_spec,
)
from litdesk.core.query import (
    citing_request,
    compile_fetch,
    compile_lookup,
    compile_search,
    doi_lookup_request,
    fulltext_request,
    openalex_work_request,
    pmid_lookup_request,
    work_request,
    works_by_id_request,
)
from litdesk.core.runs import LANES
from litdesk.core.search import CompiledRequest, CompileRefused, SearchFilters
from litdesk.core.trace import CACHE_POLICIES

#: The run lanes as they were listed by hand before the declarations (runs on disk hold them).
RUN_LANES = {
    "europepmc-keyword": "europepmc",
    "openalex-keyword": "openalex",
    "openalex-semantic": "openalex",
    "semanticscholar-relevance": "semanticscholar",
    "semanticscholar-bulk": "semanticscholar",
    "crossref-keyword": "crossref",
    "pubmed-keyword": "pubmed",
    "arxiv-keyword": "arxiv",
    **{f"{p}-lookup": p for p in PROVIDERS},
    # the offline demo sample (declared, never one of PROVIDERS)
    "demo-keyword": "demo",
    "demo-lookup": "demo",
}


def test_the_registry_is_the_one_list():
    assert DECLARED == get_args(ProviderName) == tuple(PROVIDER_SPECS)
    assert PROVIDERS == ("europepmc", "openalex", "semanticscholar", "crossref", "pubmed", "arxiv")
    assert (*PROVIDERS, "demo") == DECLARED and PROVIDER_SPECS["demo"].demo
    assert search.PROVIDERS is PROVIDERS and search.HOSTS is HOSTS
    assert dict(LANE_PROVIDER) == RUN_LANES and frozenset(RUN_LANES) == LANES
    assert {name: policy.mode for name, policy in CACHE_POLICIES.items()} == {
        "europepmc": "body",
        "openalex": "body",
        "semanticscholar": "digest",
        "crossref": "deny",
        "pubmed": "body",
        "arxiv": "body",
        "demo": "deny",
    }
    assert [display_name(p) for p in PROVIDERS] == [
        "Europe PMC",
        "OpenAlex",
        "Semantic Scholar",
        "Crossref",
        "PubMed",
        "arXiv",
    ]
    assert display_name("elsewhere") == "elsewhere"
    for mode, names in MODE_DEFAULTS.items():
        assert names and set(names) <= set(PROVIDERS), mode


def test_unknown_names_are_typed_errors():
    with pytest.raises(UnknownProvider) as caught:
        provider_spec("scopus")
    assert isinstance(caught.value, LitdeskError) and "europepmc" in caught.value.message
    with pytest.raises(UnknownLane):
        provider_spec("crossref").lane("semantic")


def _requests() -> list[CompiledRequest]:
    out = [compile_search(p, "malaria vaccine") for p in PROVIDERS]
    out.append(compile_search("openalex", "malaria vaccine", mode="semantic"))
    out.append(compile_search("semanticscholar", "malaria AND vaccine"))
    out += [compile_lookup(p, "doi", "10.1000/xyz") for p in PROVIDERS[:4]]
    out.append(compile_lookup("pubmed", "pmid", "123"))
    out.append(compile_lookup("arxiv", "arxiv", "2101.00001"))
    out.append(compile_fetch("pubmed", ["123"]))
    out += [fulltext_request("PMC123"), pmid_lookup_request("123"), doi_lookup_request("10.1/x")]
    out += [openalex_work_request("W1"), work_request("W1"), works_by_id_request(["W1"])]
    out.append(citing_request("W1", 1))
    return out


def test_every_request_is_on_a_declared_host_and_lane():
    for request in _requests():
        spec = provider_spec(request.provider)
        assert urlsplit(request.url).hostname in spec.hosts, request.url
        assert request.lane in {lane.name for lane in spec.lanes}, request.lane


FIELDS = ("all", "title", "abstract", "author")
SORTS = ("relevance", "newest", "cited")
TYPES = ("all", "review", "preprint", "journal")


@pytest.mark.parametrize(
    ("provider", "mode"),
    [(s.name, m) for s in PROVIDER_SPECS.values() for m in ("keyword", "semantic")],
)
def test_declared_fields_sorts_and_types_are_what_the_compiler_expresses(provider, mode):
    lanes = PROVIDER_SPECS[provider].search_lanes(mode)
    accepted: dict[str, set[str]] = {"fields": set(), "sorts": set(), "types": set()}
    for field, sort, kind in product(FIELDS, SORTS, TYPES):
        filters = SearchFilters(field=field, sort=sort, type=kind)
        try:
            request = compile_search(provider, "malaria vaccine", filters, mode=mode)
        except CompileRefused:
            continue
        lane = next(lane for lane in lanes if lane.name == request.lane)
        assert field in lane.fields and sort in lane.sorts and kind in lane.types, request.lane
        accepted["fields"].add(field)
        accepted["sorts"].add(sort)
        accepted["types"].add(kind)
    assert accepted["fields"] == {f for lane in lanes for f in lane.fields}
    assert accepted["sorts"] == {s for lane in lanes for s in lane.sorts}
    assert accepted["types"] == {t for lane in lanes for t in lane.types}


def test_the_cli_names_providers_without_heavy_imports():
    probe = (
        "import sys\n"
        "import litdesk.core.providers as p\n"
        "assert len(p.PROVIDERS) == 6\n"
        "print(sorted(m for m in ('pydantic', 'lxml', 'httpx') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
