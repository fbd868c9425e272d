"""Property tests: every parser, given arbitrary bytes or arbitrary JSON/XML of roughly the
right shape, returns a ProviderPage or raises ProviderParseError — nothing else — fast."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from litdesk.adapters.providers import (
    ProviderParseError,
    error_message,
    parse_arxiv,
    parse_crossref,
    parse_europepmc,
    parse_openalex,
    parse_pubmed,
    parse_semanticscholar,
)
from litdesk.core.search import ProviderPage

PARSERS = {
    "europepmc": parse_europepmc,
    "openalex": parse_openalex,
    "semanticscholar": parse_semanticscholar,
    "crossref": parse_crossref,
    "pubmed": parse_pubmed,
    "arxiv": parse_arxiv,
}
SETTINGS = settings(max_examples=120, deadline=2_000, suppress_health_check=[HealthCheck.too_slow])


def _only_parse_errors(parse, body: bytes) -> None:
    start = time.process_time()
    try:
        page = parse(body)
    except ProviderParseError as exc:
        assert exc.digest is None or exc.digest.startswith("sha256:")
    else:
        assert isinstance(page, ProviderPage)
        assert page.total is None or page.total >= 0
    assert time.process_time() - start < 2.0


@pytest.mark.parametrize("provider", sorted(PARSERS))
@SETTINGS
@given(body=st.binary(max_size=2_000))
def test_arbitrary_bytes(provider: str, body: bytes) -> None:
    _only_parse_errors(PARSERS[provider], body)
    message = error_message(provider, 500, body)
    assert 0 < len(message) <= 300 and "\n" not in message


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(
        ["Y", "N", "10.1234/x", "PMC12", "https://openalex.org/W12", "2401.01234v2", "MED"]
    ),
)
_KEYS = [
    "id",
    "source",
    "pmid",
    "pmcid",
    "doi",
    "title",
    "authorString",
    "authorList",
    "author",
    "journalInfo",
    "journal",
    "pubYear",
    "abstractText",
    "pubTypeList",
    "pubType",
    "isOpenAccess",
    "citedByCount",
    "license",
    "fullTextUrlList",
    "fullTextUrl",
    "url",
    "results",
    "meta",
    "count",
    "next_cursor",
    "ids",
    "display_name",
    "authorships",
    "primary_location",
    "publication_year",
    "abstract_inverted_index",
    "open_access",
    "is_oa",
    "best_oa_location",
    "data",
    "total",
    "next",
    "token",
    "paperId",
    "externalIds",
    "DOI",
    "PubMed",
    "openAccessPdf",
    "authors",
    "name",
    "message",
    "message-type",
    "items",
    "total-results",
    "next-cursor",
    "container-title",
    "issued",
    "date-parts",
    "updated-by",
    "type",
    "esearchresult",
    "idlist",
    "result",
    "uids",
    "resultList",
    "hitCount",
    "nextCursorMark",
    "citedPaper",
    "group_by",
    "status",
    "error",
]
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(_KEYS), inner, max_size=6),
    ),
    max_leaves=40,
)


@pytest.mark.parametrize(
    "provider", ["europepmc", "openalex", "semanticscholar", "crossref", "pubmed"]
)
@SETTINGS
@given(doc=_json)
def test_arbitrary_json_shapes(provider: str, doc: object) -> None:
    _only_parse_errors(PARSERS[provider], json.dumps(doc).encode())


_TAGS = [
    "PubmedArticleSet",
    "PubmedArticle",
    "MedlineCitation",
    "PMID",
    "Article",
    "ArticleTitle",
    "Abstract",
    "AbstractText",
    "AuthorList",
    "Author",
    "LastName",
    "eSearchResult",
    "Count",
    "IdList",
    "Id",
    "ErrorList",
    "feed",
    "entry",
    "id",
    "title",
    "summary",
    "totalResults",
    "DocSum",
    "Item",
    "article",
    "front",
    "article-meta",
    "article-id",
    "responseWrapper",
    "resultList",
    "result",
    "hitCount",
    "i",
    "sub",
]
_xml_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=20).map(
    lambda s: s.replace("&", "&amp;").replace("<", "&lt;")
)
_xml = st.recursive(
    _xml_text,
    lambda inner: st.tuples(st.sampled_from(_TAGS), st.lists(inner, max_size=4)).map(
        lambda t: f"<{t[0]}>{''.join(t[1])}</{t[0]}>"
    ),
    max_leaves=30,
)


@pytest.mark.parametrize("provider", ["pubmed", "arxiv", "europepmc"])
@SETTINGS
@given(
    fragment=_xml,
    root=st.sampled_from(
        [
            "PubmedArticleSet",
            "eSearchResult",
            "feed",
            "responseWrapper",
            "pmc-articleset",
            "eSummaryResult",
        ]
    ),
)
def test_arbitrary_xml_shapes(provider: str, fragment: str, root: str) -> None:
    ns = ' xmlns="http://www.w3.org/2005/Atom"' if root == "feed" else ""
    _only_parse_errors(PARSERS[provider], f"<{root}{ns}>{fragment}</{root}>".encode())


_words = st.lists(
    st.text(alphabet=st.characters(whitelist_categories=("L", "N", "P")), min_size=1, max_size=8),
    min_size=1,
    max_size=60,
)


@SETTINGS
@given(words=_words)
def test_inverted_index_round_trip(words: list[str]) -> None:
    from litdesk.adapters.providers._openalex import rebuild_abstract

    index: dict[str, list[int]] = {}
    for pos, word in enumerate(words):
        index.setdefault(word, []).append(pos)
    assert rebuild_abstract(index) == " ".join(words)
    body = json.dumps({"id": "W5", "abstract_inverted_index": index}).encode()
    assert parse_openalex(body).papers[0].abstract == " ".join(words)


@SETTINGS
@given(text=st.text(max_size=200))
def test_plain_text_leaves_no_markup(text: str) -> None:
    from litdesk.adapters.providers._common import plain_text

    out = plain_text(f"<p>{text}</p><jats:p><i>{text}</i></jats:p>")
    if out is not None:
        assert "<p>" not in out and "<i>" not in out and "<jats:p>" not in out
