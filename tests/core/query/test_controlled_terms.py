"""``MESH:`` — a MeSH heading searched as a controlled term: PubMed ``[MeSH Terms]``,
Europe PMC ``MESH:``; every other provider refuses it and says why (issue 33)."""

from __future__ import annotations

import pytest

from litdesk.core.query import compile_search, parse_query, render
from litdesk.core.search import CompileRefused, SearchFilters

ALL = SearchFilters(include_retracted=True)
QUERY = 'MESH:"Insulin Resistance" AND obesity'


def test_the_field_parses_and_renders_back() -> None:
    tree = parse_query(QUERY)
    assert [(t.field, t.text) for t in tree.terms] == [
        ("mesh", "Insulin Resistance"),
        (None, "obesity"),
    ]
    assert render(tree.root) == QUERY
    assert parse_query('MESH:(asthma OR "lung diseases")').terms[1].field == "mesh"


def test_pubmed_and_europe_pmc_compile_the_heading() -> None:
    pubmed = dict(compile_search("pubmed", QUERY, ALL).params)
    assert pubmed["term"] == '"Insulin Resistance"[MeSH Terms] AND "obesity"[All Fields]'
    epmc = dict(compile_search("europepmc", QUERY, ALL).params)
    assert epmc["query"] == 'MESH:"Insulin Resistance" AND "obesity"'


@pytest.mark.parametrize(
    ("provider", "why"),
    [
        ("openalex", "OpenAlex has no MeSH field"),
        ("arxiv", "arXiv has no MeSH field"),
        ("semanticscholar", "MeSH subject headings"),
        ("crossref", "MeSH subject headings"),
    ],
)
def test_other_providers_refuse_with_the_reason(provider: str, why: str) -> None:
    with pytest.raises(CompileRefused) as info:
        compile_search(provider, 'MESH:"Insulin Resistance"', ALL)
    assert why in info.value.reason
