"""Exact identifiers: planning, per-provider lookups (or refusals) and PubMed efetch."""

from __future__ import annotations

import pytest

from litdesk.core.query import (
    IdentifierError,
    compile_fetch,
    compile_lookup,
    full_url,
    plan_identifier,
)
from litdesk.core.search import PROVIDERS, CompileRefused

DOI = "10.1038/s42256-024-00832-8"


@pytest.mark.parametrize(
    ("text", "namespace", "value", "primary"),
    [
        (f"https://doi.org/{DOI}", "doi", DOI, "europepmc"),
        ("doi:10.1371/JOURNAL.PONE.0033693", "doi", "10.1371/journal.pone.0033693", "europepmc"),
        ("PMID:12345", "pmid", "12345", "europepmc"),
        ("31452104", "pmid", "31452104", "europepmc"),
        ("PMC6095483", "pmcid", "PMC6095483", "europepmc"),
        ("https://openalex.org/W2741809807", "openalex", "W2741809807", "openalex"),
        ("arXiv:1605.08386v2", "arxiv", "1605.08386", "europepmc"),
        ("PPR-PPR123456", "source", "PPR-PPR123456", "europepmc"),
    ],
)
def test_plan_identifier(text: str, namespace: str, value: str, primary: str) -> None:
    ident = plan_identifier(text)
    assert ident is not None
    assert ident.to_dict() == {"namespace": namespace, "value": value}
    assert ident.primary_provider == primary


@pytest.mark.parametrize("text", ["cancer", "gene therapy", "10.1/x", "", "TITLE:x"])
def test_plan_identifier_none(text: str) -> None:
    assert plan_identifier(text) is None


def test_plan_identifier_only_for_all_fields() -> None:
    assert plan_identifier("12345", field="title") is None


def url(provider: str, namespace: str, value: str) -> str:
    req = compile_lookup(provider, namespace, value)
    assert req.operation == "lookup"
    return full_url(req)


def test_lookup_golden_urls() -> None:
    epmc = "https://www.ebi.ac.uk/europepmc/webservices/rest/search?query="
    tail = "&format=json&resultType=core&pageSize=25&cursorMark=%2A"
    assert url("europepmc", "doi", DOI) == epmc + "DOI%3A%2210.1038%2Fs42256-024-00832-8%22" + tail
    assert url("europepmc", "pmid", "MED-123") == epmc + "EXT_ID%3A123+AND+SRC%3AMED" + tail
    assert url("europepmc", "pmcid", "pmc42") == epmc + "PMCID%3APMC42" + tail
    assert url("europepmc", "source", "ppr-ppr9") == epmc + "EXT_ID%3APPR9+AND+SRC%3APPR" + tail
    assert url("openalex", "openalex", "OAX-W2741809807") == (
        "https://api.openalex.org/works/W2741809807"
    )
    assert url("openalex", "doi", "10.1073/pnas.1414271111") == (
        "https://api.openalex.org/works/https://doi.org/10.1073%2Fpnas.1414271111"
    )
    assert url("openalex", "pmid", "123") == "https://api.openalex.org/works/pmid:123"
    assert url("openalex", "pmcid", "PMC9") == "https://api.openalex.org/works/pmcid:PMC9"
    s2 = "https://api.semanticscholar.org/graph/v1/paper/"
    assert url("semanticscholar", "doi", DOI).startswith(s2 + f"DOI:{DOI}?fields=")
    assert url("semanticscholar", "pmid", "7").startswith(s2 + "PMID:7?")
    assert url("semanticscholar", "pmcid", "PMC9").startswith(s2 + "PMCID:9?")
    assert url("semanticscholar", "arxiv", "hep-th/9901001v1").startswith(
        s2 + "ARXIV:hep-th/9901001?"
    )
    assert (
        url("crossref", "doi", "10.1371/x<y>")
        == "https://api.crossref.org/works/10.1371%2Fx%3Cy%3E"
    )
    assert url("pubmed", "pmid", "22351513") == (
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi?db=pubmed&id=22351513&retmode=xml"
    )
    assert url("pubmed", "doi", DOI) == (
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed&term="
        "%2210.1038%2Fs42256-024-00832-8%22%5Bdoi%5D&retmode=json&retmax=20"
    )
    assert url("arxiv", "arxiv", "1605.08386") == (
        "https://export.arxiv.org/api/query?search_query=&id_list=1605.08386&start=0&max_results=1"
    )
    assert "id_list=2401.01234" in url("arxiv", "doi", "10.48550/arXiv.2401.01234")


@pytest.mark.parametrize(
    ("provider", "namespace", "value"),
    [
        ("europepmc", "openalex", "W1"),
        ("europepmc", "arxiv", "1605.08386"),
        ("europepmc", "source", "OAX-W1"),
        ("openalex", "arxiv", "1605.08386"),
        ("openalex", "source", "PPR-PPR1"),
        ("semanticscholar", "openalex", "W1"),
        ("crossref", "pmid", "1"),
        ("pubmed", "pmcid", "PMC1"),
        ("pubmed", "openalex", "W1"),
        ("arxiv", "doi", DOI),
        ("arxiv", "pmid", "1"),
    ],
)
def test_lookup_refusals(provider: str, namespace: str, value: str) -> None:
    with pytest.raises(CompileRefused) as info:
        compile_lookup(provider, namespace, value)
    assert info.value.provider == provider
    assert namespace in info.value.reason or "ids are not" in info.value.reason


def test_every_provider_looks_up_or_refuses_every_identifier() -> None:
    samples = {
        "doi": DOI,
        "pmid": "1",
        "pmcid": "PMC1",
        "openalex": "W1",
        "arxiv": "1605.08386",
        "source": "PPR-PPR1",
    }
    done = 0
    for provider in PROVIDERS:
        for namespace, value in samples.items():
            try:
                req = compile_lookup(provider, namespace, value)
            except CompileRefused:
                continue
            assert req.provider == provider and req.operation == "lookup"
            done += 1
    assert done == 16


def test_bad_identifiers_are_input_errors() -> None:
    with pytest.raises(IdentifierError):
        compile_lookup("europepmc", "doi", "not a doi")
    with pytest.raises(IdentifierError):
        compile_lookup("europepmc", "isbn", "123")
    with pytest.raises(IdentifierError):
        compile_lookup("crossref", "doi", "10.1234/a\udcff")
    assert plan_identifier("10.1234/a\udcff") is None


def test_compile_fetch() -> None:
    req = compile_fetch("pubmed", ["12091962", "PMID:9997", "12091962"])
    assert req.operation == "fetch"
    assert req.params == (("db", "pubmed"), ("id", "12091962,9997"), ("retmode", "xml"))
    with pytest.raises(IdentifierError):
        compile_fetch("pubmed", ["12", "abc"])
    with pytest.raises(IdentifierError):
        compile_fetch("pubmed", [])
    with pytest.raises(CompileRefused):
        compile_fetch("pubmed", [str(i) for i in range(1, 202)])
    with pytest.raises(CompileRefused):
        compile_fetch("crossref", ["1"])
