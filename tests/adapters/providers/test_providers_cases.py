"""Hand-made edge cases for the provider parsers (one small body per case)."""

from __future__ import annotations

import hashlib
import json

import pytest

from litdesk import ExternalError
from litdesk.adapters.providers import (
    ProviderParseError,
    ProviderReportedError,
    error_message,
    parse_arxiv,
    parse_crossref,
    parse_europepmc,
    parse_openalex,
    parse_pubmed,
    parse_response,
    parse_semanticscholar,
)
from litdesk.core.search import CompiledRequest


def _request(provider: str, operation: str = "search", **params: str) -> CompiledRequest:
    return CompiledRequest(
        provider=provider,  # type: ignore[arg-type]
        operation=operation,  # type: ignore[arg-type]
        method="GET",
        url="https://example.invalid/x",
        params=tuple(params.items()),
        executed_query="q",
    )


def _epmc(*records: dict, hit_count: int = 1, cursor: str | None = "AAA") -> bytes:
    doc: dict = {"hitCount": hit_count, "resultList": {"result": list(records)}}
    if cursor is not None:
        doc["nextCursorMark"] = cursor
    return json.dumps(doc).encode()


# --------------------------------------------------------------------------- parse_response


def test_lookup_404_is_an_empty_page() -> None:
    page = parse_response(
        "openalex", _request("openalex", "lookup"), 404, b"<html>Not Found</html>"
    )
    assert page.papers == [] and page.total == 0 and page.next_cursor is None


def test_search_404_and_other_statuses_raise() -> None:
    with pytest.raises(ProviderParseError):
        parse_response("openalex", _request("openalex"), 404, b"{}")
    with pytest.raises(ProviderParseError):
        parse_response("crossref", _request("crossref", "lookup"), 500, b"oops")


def test_request_provider_must_match() -> None:
    with pytest.raises(ProviderParseError):
        parse_response("crossref", _request("openalex"), 200, b"{}")
    with pytest.raises(ProviderParseError):
        parse_response("nope", _request("openalex"), 200, b"{}")


def test_europepmc_cursor_from_request() -> None:
    body = _epmc({"id": "1", "source": "MED", "pmid": "1"}, cursor="NEXT")
    same = parse_response("europepmc", _request("europepmc", cursorMark="NEXT"), 200, body)
    assert same.next_cursor is None
    other = parse_response("europepmc", _request("europepmc", cursorMark="*"), 200, body)
    assert other.next_cursor == "NEXT"


def test_overlong_cursor_is_dropped_with_a_warning() -> None:
    page = parse_europepmc(_epmc({"id": "1", "source": "MED"}, cursor="C" * 5000))
    assert page.next_cursor is None and any("cursor" in w for w in page.warnings)


# --------------------------------------------------------------------------- errors


def test_parse_error_carries_digest_not_body() -> None:
    body = b'{"secret": "TOPSECRET-123", broken'
    with pytest.raises(ProviderParseError) as info:
        parse_openalex(body)
    err = info.value
    assert isinstance(err, ExternalError) and err.code == "parse_error"
    assert err.provider == "openalex"
    assert err.digest == "sha256:" + hashlib.sha256(body).hexdigest()
    assert "TOPSECRET" not in str(err) and "TOPSECRET" not in json.dumps(err.to_dict())


@pytest.mark.parametrize(
    "parse", [parse_pubmed, parse_arxiv, parse_europepmc], ids=["pubmed", "arxiv", "europepmc"]
)
@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><feed>&a;</feed>',
        b'<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><PubmedArticleSet>&xxe;</PubmedArticleSet>',
        b'<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><a>&lol2;</a>',
        b"<!ENTITY x 'y'><a/>",
    ],
)
def test_xml_internal_subsets_and_entities_refused(parse, body: bytes) -> None:
    with pytest.raises(ProviderParseError) as info:
        parse(body)
    assert "passwd" not in str(info.value)


def test_undefined_entity_is_a_parse_error() -> None:
    with pytest.raises(ProviderParseError):
        parse_pubmed(b"<eSearchResult><Count>&nbsp;1</Count></eSearchResult>")


def test_error_message_is_sanitised_and_bounded() -> None:
    secret = json.dumps(
        {"error": "bad request api_key=abc123SECRET and Bearer tok.en.123"}
    ).encode()
    msg = error_message("openalex", 400, secret)
    assert "abc123SECRET" not in msg and "tok.en.123" not in msg
    assert "[redacted]" in msg
    long = json.dumps({"message": "x" * 5000}).encode()
    assert len(error_message("semanticscholar", 400, long)) <= 300
    html = b"<html><head><title>Bad</title><script>alert(1)</script></head><body><h1>Gateway &amp; Timeout</h1></body></html>"
    assert error_message("crossref", 504, html) == "Gateway & Timeout"
    assert error_message("pubmed", 500, b"") == "HTTP 500"
    assert error_message(
        "pubmed", 200, b"<eSearchResult><ERROR>Invalid db name</ERROR></eSearchResult>"
    ) == ("Invalid db name")
    assert (
        error_message("europepmc", 500, b'{"errCode": 500, "errMsg": "Server busy"}')
        == "Server busy"
    )


# --------------------------------------------------------------------------- Europe PMC


def test_europepmc_malformed_identifier_keeps_the_record() -> None:
    body = _epmc(
        {"id": "PMC123", "source": "PMC", "pmcid": "PMC123", "doi": "not a doi", "title": "T"},
        {"id": "PPR55", "source": "PPR", "title": "<i>Pre</i>print &amp; more"},
        hit_count=2,
    )
    page = parse_europepmc(body)
    assert [p.id for p in page.papers] == ["PMC-PMC123", "PPR-PPR55"]
    assert page.papers[0].doi is None
    assert page.notices == {0: [page.notices[0][0]]} and "DOI" in page.notices[0][0]
    assert page.papers[1].title == "Preprint & more"


def test_europepmc_flags_retraction_and_urls() -> None:
    body = _epmc(
        {
            "id": "9",
            "source": "MED",
            "pmid": "9",
            "pmcid": "PMC9",
            "isOpenAccess": "Y",
            "inEPMC": "Y",
            "pubTypeList": {"pubType": ["Journal Article", "Retracted Publication"]},
            "fullTextUrlList": {
                "fullTextUrl": [
                    {"url": "http://europepmc.org/articles/PMC9", "documentStyle": "html"},
                    {"url": "https://evil.example/PMC9", "documentStyle": "html"},
                ]
            },
            "authorString": "Doe J, Roe R.",
            "pubYear": "20xx",
        }
    )
    paper = parse_europepmc(body).papers[0]
    assert paper.retracted is True and paper.open_access is True
    assert (
        paper.full_text_url == "https://europepmc.org/articles/PMC9"
    )  # built, not the unsafe ones
    assert paper.authors == ("Doe J", "Roe R")
    assert paper.year is None


def test_europepmc_lite_flags_are_strings() -> None:
    body = _epmc(
        {
            "id": "1",
            "source": "MED",
            "pmid": "1",
            "isOpenAccess": "N",
            "pubType": "retracted publication",
        }
    )
    paper = parse_europepmc(body).papers[0]
    assert paper.open_access is False and paper.retracted is True


def test_europepmc_shapes_refused() -> None:
    for body in (b"[]", b'{"hitCount": 1}', b'{"errCode": 1, "errMsg": "x"}', b"<other/>"):
        with pytest.raises(ProviderParseError):
            parse_europepmc(body)


# --------------------------------------------------------------------------- OpenAlex


def test_openalex_malformed_abstract_index_is_a_notice() -> None:
    work = {
        "id": "https://openalex.org/W1",
        "title": "T",
        "abstract_inverted_index": {"a": [0], "b": ["x"]},
        "publication_year": 99999,
        "ids": {"pmid": "https://pubmed.ncbi.nlm.nih.gov/abc"},
    }
    page = parse_openalex(json.dumps(work).encode())
    paper = page.papers[0]
    assert paper.id == "OAX-W1" and paper.abstract is None and paper.pmid is None
    text = " ".join(page.notices[0])
    assert "abstract" in text and "PMID" in text


def test_openalex_abstract_positions_and_bounds() -> None:
    work = {"id": "W2", "abstract_inverted_index": {"world": [1], "hello": [0], "again": [3]}}
    assert parse_openalex(json.dumps(work).encode()).papers[0].abstract == "hello world again"
    huge = {"id": "W3", "abstract_inverted_index": {"x": [10**9]}}
    page = parse_openalex(json.dumps(huge).encode())
    assert page.papers[0].abstract is None and page.notices


def test_openalex_error_and_groupby_bodies_refused() -> None:
    for body in (
        b'{"error": "x", "message": "y"}',
        b'{"meta": {"count": 1, "groups_count": 2}, "results": [], "group_by": [{"key": "a"}]}',
        b'{"meta": {"count": 1}, "results": {}}',
        b'{"unrelated": 1}',
    ):
        with pytest.raises(ProviderParseError):
            parse_openalex(body)


# --------------------------------------------------------------------------- Semantic Scholar


def test_s2_malformed_ids_and_fallback_ids() -> None:
    body = json.dumps(
        {
            "total": 2,
            "offset": 0,
            "data": [
                {
                    "paperId": "abc",
                    "externalIds": {"PubMed": "x12", "DOI": "10.1234/ok"},
                    "title": "A",
                },
                {"paperId": "def", "externalIds": {"CorpusId": 77}},
            ],
        }
    ).encode()
    page = parse_semanticscholar(body)
    assert page.papers[0].doi == "10.1234/ok" and page.papers[0].pmid is None
    assert "PMID" in page.notices[0][0]
    assert page.papers[1].id == "S2-DEF"
    assert page.next_cursor is None and page.total == 2


def test_s2_error_body_refused() -> None:
    with pytest.raises(ProviderParseError):
        parse_semanticscholar(b'{"message": "Too Many Requests"}')


# --------------------------------------------------------------------------- Crossref


def test_crossref_retraction_and_markup() -> None:
    work = {
        "DOI": "10.1000/XYZ",
        "type": "journal-article",
        "title": ["A <i>study</i> of &amp;"],
        "updated-by": [{"type": "retraction", "DOI": "10.1000/r"}],
        "issued": {"date-parts": [[None]]},
        "published-online": {"date-parts": [[2020, 1]]},
        "abstract": "<jats:p>One <jats:italic>two</jats:italic></jats:p>",
        "author": [{"name": "The Consortium"}, {"family": "Solo"}],
    }
    body = json.dumps({"status": "ok", "message-type": "work", "message": work}).encode()
    paper = parse_crossref(body).papers[0]
    assert paper.doi == "10.1000/xyz" and paper.retracted is True
    assert paper.title == "A study of &" and paper.abstract == "One two"
    assert paper.year == 2020 and paper.authors == ("The Consortium", "Solo")
    assert paper.source_url == "https://doi.org/10.1000/xyz"


def test_crossref_other_message_types_refused() -> None:
    for body in (
        b'{"status": "ok", "message-type": "member-list", "message": {}}',
        b'{"status": "failed", "message-type": "validation-failure", "message": []}',
    ):
        with pytest.raises(ProviderParseError):
            parse_crossref(body)


# --------------------------------------------------------------------------- PubMed


def test_pubmed_efetch_edge_fields() -> None:
    body = b"""<?xml version="1.0"?>
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>123</PMID>
<Article><Journal><JournalIssue><PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate></JournalIssue>
<Title>J Test</Title></Journal><ArticleTitle>H<sub>2</sub>O &amp; <i>E. coli</i></ArticleTitle>
<Abstract><AbstractText Label="BACKGROUND">Bg.</AbstractText><AbstractText Label="RESULTS">Res.</AbstractText></Abstract>
<AuthorList><Author><CollectiveName>The Group</CollectiveName></Author><Author><LastName>Doe</LastName><ForeName>Jane</ForeName></Author></AuthorList>
<PublicationTypeList><PublicationType>Retracted Publication</PublicationType></PublicationTypeList></Article>
</MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="doi">bad-doi</ArticleId><ArticleId IdType="pmc">PMC77</ArticleId></ArticleIdList></PubmedData>
</PubmedArticle></PubmedArticleSet>"""
    page = parse_pubmed(body)
    paper = page.papers[0]
    assert paper.title == "H2O & E. coli"
    assert paper.year == 1998 and paper.journal == "J Test"
    assert paper.abstract == "BACKGROUND: Bg.\n\nRESULTS: Res."
    assert paper.authors == ("The Group", "Doe Jane")
    assert paper.retracted is True and paper.pmcid == "PMC77" and paper.doi is None
    assert "DOI" in page.notices[0][0]


def test_pubmed_error_root_and_json() -> None:
    with pytest.raises(ProviderReportedError):
        parse_pubmed(b"<ERROR>Empty term and query_key - nothing todo</ERROR>")
    ok = parse_pubmed(
        json.dumps(
            {"esearchresult": {"count": "3", "retstart": "0", "idlist": ["5", "6"]}}
        ).encode()
    )
    assert [p.pmid for p in ok.papers] == ["5", "6"] and ok.total == 3 and ok.next_cursor == "2"
    with pytest.raises(ProviderReportedError):
        parse_pubmed(
            json.dumps(
                {"esearchresult": {"count": "0", "errorlist": {"phrasesnotfound": ["zz"]}}}
            ).encode()
        )


# --------------------------------------------------------------------------- arXiv

_FEED = b"""<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
<opensearch:totalResults>5</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex>
<entry><id>http://arxiv.org/abs/2401.01234v3</id><title>  A
  title </title><published>2024-01-02T00:00:00Z</published></entry>
<entry><id>not an id</id><title>B</title></entry>
</feed>"""


def test_arxiv_entries_and_skips() -> None:
    page = parse_arxiv(_FEED)
    assert [(p.arxiv_id, p.arxiv_version, p.title) for p in page.papers] == [
        ("2401.01234", 3, "A title")
    ]
    assert page.total == 5 and page.next_cursor == "2"
    assert len(page.warnings) == 1 and "arXiv id" in page.warnings[0]


def test_arxiv_not_a_feed() -> None:
    with pytest.raises(ProviderParseError):
        parse_arxiv(b"<html><body>maintenance</body></html>")


def test_openalex_semantic_is_a_bounded_shortlist() -> None:
    body = json.dumps(
        {"meta": {"count": 9999, "next_cursor": "abc"}, "results": [{"id": "W1"}, {"id": "W2"}]}
    ).encode()
    page = parse_response("openalex", _request("openalex", **{"search.semantic": "x"}), 200, body)
    assert page.total is None and page.next_cursor is None
    assert any("shortlist" in w for w in page.warnings)
    keyword = parse_response("openalex", _request("openalex", search="x"), 200, body)
    assert keyword.total == 9999 and keyword.next_cursor == "abc"


@pytest.mark.parametrize("body", [b"[" * 100_000, b'{"a":' * 50_000, b"<a>" * 100_000])
@pytest.mark.parametrize("parse", [parse_openalex, parse_pubmed, parse_semanticscholar])
def test_deep_nesting_is_a_parse_error(parse, body: bytes) -> None:
    with pytest.raises(ProviderParseError):
        parse(body)


def test_europepmc_removes_only_byte_identical_duplicates() -> None:
    a = {"id": "1", "source": "MED", "pmid": "1", "title": "A"}
    conflicting = {"id": "1", "source": "MED", "pmid": "1", "title": "A", "doi": "10.1000/z"}
    page = parse_europepmc(_epmc(a, dict(a), conflicting, hit_count=3))
    assert [p.doi for p in page.papers] == [None, "10.1000/z"]
    assert page.warnings == ["record 2 skipped: byte-identical duplicate of record 1"]


def test_pubmed_esummary_json() -> None:
    doc = {
        "result": {
            "uids": ["11", "12"],
            "11": {
                "uid": "11",
                "title": "Sum <i>one</i>",
                "pubdate": "2001 Mar",
                "authors": [{"name": "Doe J"}],
                "fulljournalname": "J One",
                "articleids": [
                    {"idtype": "doi", "value": "10.1000/one"},
                    {"idtype": "pmc", "value": "PMC5"},
                ],
                "pubtype": ["Retracted Publication"],
            },
            "12": {"uid": "12", "error": "cannot get document summary"},
        }
    }
    page = parse_pubmed(json.dumps(doc).encode())
    assert [p.pmid for p in page.papers] == ["11"]
    paper = page.papers[0]
    assert (paper.title, paper.year, paper.journal, paper.doi, paper.pmcid, paper.retracted) == (
        "Sum one",
        2001,
        "J One",
        "10.1000/one",
        "PMC5",
        True,
    )
    assert len(page.warnings) == 1 and "12" in page.warnings[0]


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "body",
    [b"<!DOCTYPE " * 100_000, b"<title>" * 30_000, b"<h1>" * 50_000, b"<" * 300_000],
)
def test_hostile_bodies_stay_fast(body: bytes) -> None:
    import time

    start = time.process_time()
    for parse in (parse_pubmed, parse_arxiv, parse_europepmc):
        with pytest.raises(ProviderParseError):
            parse(body)
    assert error_message("openalex", 502, body)
    assert time.process_time() - start < 5
