"""Saved provider responses imported through ``litdesk.adapters.formats.loads``: each record's
raw text is its JSON value / XML element as it stood, with its line span and digest."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from litdesk.adapters.formats import loads
from litdesk.adapters.formats._native import FORMATS
from litdesk.core.imports import ImportRefused

NAMES = {"europepmc-json", "openalex-json", "crossref-json", "s2-json", "pubmed-xml", "arxiv-atom"}


def _check_spans(data: bytes, trace) -> str:
    text = data.decode("utf-8-sig")
    lines = text.split("\n")
    for rec in trace.records:
        assert rec.digest == "sha256:" + hashlib.sha256(rec.raw.encode("utf-8")).hexdigest()
        assert rec.raw in text  # verbatim, not re-serialised
        assert 1 <= rec.first_line <= rec.last_line <= len(lines)
        span = "\n".join(lines[rec.first_line - 1 : rec.last_line])
        assert rec.raw in span
    return text


def test_the_six_formats_are_defined() -> None:
    assert {f.name for f in FORMATS} == NAMES
    assert all(f.parser_id.startswith("litdesk.native.") for f in FORMATS)


# --------------------------------------------------------------------------- JSON


@pytest.mark.fixtures
@pytest.mark.parametrize(
    ("provider", "name", "fmt", "items"),
    [
        (
            "europepmc",
            "search-cancer-core.json",
            "europepmc-json",
            lambda d: d["resultList"]["result"],
        ),
        (
            "europepmc",
            "search-cancer-lite-pagesize100-page2.json",
            "europepmc-json",
            lambda d: d["resultList"]["result"],
        ),
        (
            "europepmc",
            "search-cancer-idlist.json",
            "europepmc-json",
            lambda d: d["resultList"]["result"],
        ),
        (
            "openalex",
            "works-filter-cites-cursor-first.json",
            "openalex-json",
            lambda d: d["results"],
        ),
        ("openalex", "work-W2741809807.json", "openalex-json", lambda d: [d]),
        ("openalex", "works-count-perpage1-page1.json", "openalex-json", lambda d: d["results"]),
        (
            "crossref",
            "works-query-widget-cursor-first.json",
            "crossref-json",
            lambda d: d["message"]["items"],
        ),
        (
            "crossref",
            "works-query-select-doi-title.json",
            "crossref-json",
            lambda d: d["message"]["items"],
        ),
        (
            "crossref",
            "work-10.1038-s42256-024-00832-8.json",
            "crossref-json",
            lambda d: [d["message"]],
        ),
        (
            "semanticscholar",
            "paper-search-turing-title-offset0.json",
            "s2-json",
            lambda d: d["data"],
        ),
        ("semanticscholar", "paper-references-offset0.json", "s2-json", lambda d: d["data"]),
        ("semanticscholar", "paper-doi-10.1038-s42256-024-00832-8.json", "s2-json", lambda d: [d]),
    ],
)
def test_json_responses(fixtures_dir: Path, provider: str, name: str, fmt: str, items) -> None:
    data = (fixtures_dir / "providers" / provider / name).read_bytes()
    expected = items(json.loads(data))
    trace = loads(data, format=fmt, path=name)
    assert trace.source.format == fmt
    assert trace.source.sha256 == "sha256:" + hashlib.sha256(data).hexdigest()
    assert len(trace.records) == len(expected)
    _check_spans(data, trace)
    for rec, item in zip(trace.records, expected, strict=True):
        assert json.loads(rec.raw) == item
    # Detected by content too.
    assert loads(data, path=name).source.format == fmt


@pytest.mark.fixtures
def test_europepmc_source_ids_and_papers(fixtures_dir: Path) -> None:
    data = (fixtures_dir / "providers/europepmc/search-cancer-core.json").read_bytes()
    results = json.loads(data)["resultList"]["result"]
    trace = loads(data, format="europepmc-json")
    assert [r.source_id for r in trace.records] == [f"{x['source']}-{x['id']}" for x in results]
    assert [r.paper.pmid for r in trace.records] == [x.get("pmid") for x in results]


@pytest.mark.fixtures
def test_s2_batch_null_is_a_notice(fixtures_dir: Path) -> None:
    data = (fixtures_dir / "providers/semanticscholar/paper-batch-fullfields.json").read_bytes()
    doc = json.loads(data)
    trace = loads(data, format="s2-json")
    assert len(trace.records) == sum(1 for d in doc if d is not None)
    assert [r.source_id for r in trace.records] == [d["paperId"] for d in doc if d is not None]
    skipped = [n for n in trace.notices if n.kind == "skipped"]
    assert len(skipped) == 1 and skipped[0].line == 1


# --------------------------------------------------------------------------- XML


@pytest.mark.fixtures
@pytest.mark.parametrize(
    "name",
    [
        "efetch-pubmed-12091962-9997.xml",
        "efetch-pubmed-30108519-mathml.xml",
        "efetch-pubmed-29963580.xml",
    ],
)
def test_pubmed_efetch_records(fixtures_dir: Path, name: str) -> None:
    data = (fixtures_dir / "providers/pubmed" / name).read_bytes()
    root = etree.fromstring(data, etree.XMLParser(load_dtd=False, no_network=True))
    pmids = [a.findtext("MedlineCitation/PMID") for a in root.findall("PubmedArticle")]
    trace = loads(data, path=name)
    assert trace.source.format == "pubmed-xml"
    assert [r.source_id for r in trace.records] == pmids
    _check_spans(data, trace)
    for rec, pmid in zip(trace.records, pmids, strict=True):
        assert rec.raw.startswith("<PubmedArticle>") and rec.raw.endswith("</PubmedArticle>")
        element = etree.fromstring(rec.raw.encode())  # the fragment stands on its own
        assert element.findtext("MedlineCitation/PMID") == pmid
        assert rec.paper.id == f"MED-{pmid}"


@pytest.mark.fixtures
def test_pubmed_esearch_and_esummary(fixtures_dir: Path) -> None:
    data = (fixtures_dir / "providers/pubmed/esearch-pubmed-biopython.xml").read_bytes()
    ids = re.findall(r"<Id>(\d+)</Id>", data.decode())
    trace = loads(data, format="pubmed-xml")
    assert [r.raw for r in trace.records] == [f"<Id>{i}</Id>" for i in ids]
    assert [r.first_line for r in trace.records] == list(range(4, 4 + len(ids)))
    summary = (fixtures_dir / "providers/pubmed/esummary-pubmed-11850928-11482001.xml").read_bytes()
    trace = loads(summary, format="pubmed-xml")
    assert [r.source_id for r in trace.records] == ["11850928", "11482001"]
    _check_spans(summary, trace)


@pytest.mark.fixtures
@pytest.mark.parametrize(
    "name", ["fulltext-PMC12061466-ccby.xml", "jats-pmcoa-PMC2994229-nolicence.xml"]
)
def test_jats_article_detected(fixtures_dir: Path, name: str) -> None:
    data = (fixtures_dir / "providers/europepmc" / name).read_bytes()
    trace = loads(data, path=name)
    assert trace.source.format == "pubmed-xml" and len(trace.records) == 1
    assert trace.records[0].paper.pmcid == re.search(r"PMC\d+", name).group(0)
    _check_spans(data, trace)


@pytest.mark.fixtures
@pytest.mark.parametrize(
    "name",
    ["query-testing-start0-max10.xml", "id-astro-ph-0601001-oldstyle.xml", "id-1605.08386.xml"],
)
def test_arxiv_entries(fixtures_dir: Path, name: str) -> None:
    data = (fixtures_dir / "providers/arxiv" / name).read_bytes()
    ids = re.findall(r"<entry>\s*<id>https?://arxiv\.org/abs/([^<]+)</id>", data.decode())
    trace = loads(data, path=name)
    assert trace.source.format == "arxiv-atom"
    assert [r.source_id for r in trace.records] == ids
    _check_spans(data, trace)
    for rec in trace.records:
        assert rec.raw.startswith("<entry>") and rec.raw.endswith("</entry>")


@pytest.mark.fixtures
@pytest.mark.parametrize(
    ("provider", "name", "fmt"),
    [
        ("arxiv", "id-abc-400-error.xml", "arxiv-atom"),
        ("arxiv", "id-0000.0000-empty.xml", "arxiv-atom"),
        ("pubmed", "esearch-protein-nohits-errorlist.xml", "pubmed-xml"),
        ("openalex", "works-groupby-type.json", "openalex-json"),
        ("europepmc", "search-no-results.json", "europepmc-json"),
        ("crossref", "works-query-not-allowed-with-doi-400.json", "crossref-json"),
    ],
)
def test_refusals(fixtures_dir: Path, provider: str, name: str, fmt: str) -> None:
    data = (fixtures_dir / "providers" / provider / name).read_bytes()
    with pytest.raises(ImportRefused) as info:
        loads(data, format=fmt)
    if name.endswith("-400.json"):  # a provider's error body: refused with its message
        assert info.value.code == "provider_error"
        assert "This route does not support field query parameters" in info.value.message
    else:
        assert info.value.code in {"malformed", "empty"}


# --------------------------------------------------------------------------- hand-made


def test_malformed_identifier_notice_has_its_line() -> None:
    text = (
        '{"hitCount": 2, "resultList": {"result": [\n'
        '  {"id": "1", "source": "MED", "pmid": "1", "title": "One"},\n'
        '  {"id": "2", "source": "MED", "pmid": "2", "doi": "doi:nonsense",\n'
        '   "title": "Two"}\n'
        "]}}\n"
    )
    trace = loads(text.encode(), format="europepmc-json")
    assert [(r.first_line, r.last_line) for r in trace.records] == [(2, 2), (3, 4)]
    second = trace.records[1]
    assert second.paper.doi is None and second.paper.title == "Two"
    assert [(n.kind, n.line) for n in second.notices] == [("malformed_identifier", 3)]


def test_duplicate_source_ids_refused() -> None:
    rec = '{"id": "7", "source": "MED", "pmid": "7"}'
    text = f'{{"hitCount": 2, "resultList": {{"result": [{rec}, {rec}]}}}}'
    with pytest.raises(ImportRefused) as info:
        loads(text.encode(), format="europepmc-json", duplicate_ids="refuse")
    assert info.value.code == "duplicate_ids"


def test_doctype_internal_subset_refused() -> None:
    data = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "E">]><PubmedArticleSet>&e;</PubmedArticleSet>'
    with pytest.raises(ImportRefused):
        loads(data, format="pubmed-xml")


def test_unicode_and_escapes_keep_spans() -> None:
    text = '{"message-type": "work-list", "message": {"items": [{"DOI": "10.1000/\\u00e9t\\u00e9", "title": ["caf\\u00e9 \\"x\\" ]"]}, {"DOI": "10.1000/b", "title": ["\u00e9"]}]}}'
    trace = loads(text.encode(), format="crossref-json")
    assert [json.loads(r.raw)["DOI"] for r in trace.records] == ["10.1000/été", "10.1000/b"]
    assert trace.records[0].paper.title == 'café "x" ]'


# --------------------------------------------------------------------------- robustness


@pytest.mark.parametrize("spec", FORMATS, ids=lambda s: s.name)
@settings(max_examples=80, deadline=2_000, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(
        st.text(max_size=400),
        st.sampled_from(
            [
                '{"resultList": 1}',
                '{"message-type": "work"}',
                "[null, 1, {}]",
                '{"results": [1, {"id": 5}]}',
                "<feed><entry/></feed>",
                "<PubmedArticleSet><PubmedArticle/></PubmedArticleSet>",
            ]
        ),
    )
)
def test_parse_never_crashes(spec, text: str) -> None:
    assert 0 <= spec.sniff(text) <= 100
    try:
        result = spec.parse(text)
    except ImportRefused:
        return
    for rec in result.records:
        assert rec.raw and rec.first_line >= 1


_item_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=60, deadline=2_000, suppress_health_check=[HealthCheck.too_slow])
@given(
    extras=st.lists(
        st.dictionaries(st.text(max_size=6), _item_values, max_size=3), min_size=1, max_size=5
    ),
    indent=st.sampled_from([None, 1, 2, "\t"]),
    ascii_only=st.booleans(),
)
def test_json_raw_spans_round_trip(extras: list[dict], indent, ascii_only: bool) -> None:
    items = [{**extra, "DOI": f"10.1000/{i}"} for i, extra in enumerate(extras)]
    doc = {
        "status": "ok",
        "message-type": "work-list",
        "message": {"total-results": len(items), "items": items},
    }
    text = json.dumps(doc, indent=indent, ensure_ascii=ascii_only)
    trace = loads(text.encode(), format="crossref-json")
    assert [json.loads(r.raw) for r in trace.records] == items
    assert [r.paper.doi for r in trace.records] == [f"10.1000/{i}" for i in range(len(items))]
    _check_spans(text.encode(), trace)


@pytest.mark.parametrize("fmt", ["s2-json", "openalex-json", "pubmed-xml"])
def test_deep_nesting_refused(fmt: str) -> None:
    data = b"[" * 100_000 if fmt.endswith("json") else b"<PubmedArticleSet>" + b"<a>" * 100_000
    with pytest.raises(ImportRefused):
        loads(data, format=fmt)


def test_cdata_with_a_closing_tag_is_not_mistaken_for_the_end() -> None:
    data = (
        b'<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
        b"<entry><id>http://arxiv.org/abs/2401.00001v1</id>"
        b"<summary><![CDATA[see </entry> here]]></summary></entry>\n"
        b"<entry><id>http://arxiv.org/abs/2401.00002v1</id><title>B</title>\n</entry>\n"
        b"</feed>\n"
    )
    trace = loads(data, format="arxiv-atom")
    assert [r.source_id for r in trace.records] == ["2401.00001v1", "2401.00002v1"]
    for rec in trace.records:
        assert rec.raw.startswith("<entry") and rec.raw.endswith("</entry>")
    assert trace.records[0].paper.abstract == "see </entry> here"
    # The truncated span is detected: the element is kept re-serialised, with a notice.
    first = trace.records[0]
    assert etree.fromstring(first.raw.encode()).findtext("{*}summary") == "see </entry> here"
    assert any("re-serialised" in n.message for n in first.notices)
    assert trace.records[1].raw in data.decode() and not trace.records[1].notices
