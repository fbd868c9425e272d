"""The one default kit (services.search.default_kit) reads the providers' adapter
declarations: PubMed's follow-up efetch, parser identities."""

from __future__ import annotations

from litdesk.core.query import compile_lookup, compile_search
from litdesk.core.records import Paper
from litdesk.core.search import ProviderPage
from litdesk.services.search import default_kit


def test_the_kit_follows_up_as_declared():
    kit = default_kit()
    assert kit.follow_up is not None
    ids_only = ProviderPage(papers=[Paper(id="MED-1", pmid="1")], total=1)
    esearch = compile_search("pubmed", "malaria")
    fetch = kit.follow_up(esearch, ids_only)
    assert fetch is not None and fetch.operation == "fetch" and fetch.lane == "pubmed-fetch"
    assert kit.follow_up(fetch, ids_only) is None
    assert kit.follow_up(compile_lookup("europepmc", "pmid", "1"), ids_only) is None
    assert kit.parser_identity("arxiv").id == "litdesk.providers.arxiv"
    assert kit.parser_identity("scopus").version == "unknown"
