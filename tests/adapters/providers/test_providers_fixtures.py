"""Every recorded provider body under $LITDESK_FIXTURES/providers/ parses into what it holds.

Expectations are read from the files themselves with a plain reading (json.load, a
plain lxml walk, regex over the text) or from PROVENANCE.md, never from the parser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lxml import etree

from litdesk.adapters.providers import (
    PARSERS,
    ProviderParseError,
    ProviderReportedError,
    error_message,
    parse_arxiv,
    parse_body,
    parse_crossref,
    parse_europepmc,
    parse_openalex,
    parse_pubmed,
    parse_semanticscholar,
)
from litdesk.core.records import normalize_doi

pytestmark = pytest.mark.fixtures

PROVIDERS = ("europepmc", "openalex", "semanticscholar", "crossref", "pubmed", "arxiv")


def _files(fixtures_dir: Path, provider: str) -> list[Path]:
    return sorted(p for p in (fixtures_dir / "providers" / provider).iterdir() if p.suffix != ".md")


def _provenance(fixtures_dir: Path, provider: str) -> dict[str, int]:
    """file name → HTTP status, from the PROVENANCE.md table."""
    out: dict[str, int] = {}
    text = (fixtures_dir / "providers" / provider / "PROVENANCE.md").read_text("utf-8")
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and cells[1].startswith("`"):
            out[cells[1].strip("`")] = int(cells[3])
    return out


_TAG = re.compile(r"</?[A-Za-z][\w:.-]*[\s/>]")


def _plain(text: str) -> str:
    """A plain reading of a title: tags removed, whitespace collapsed."""
    import html

    once = html.unescape(re.sub(r"</?[a-z]+>", "", text))
    return " ".join(re.sub(r"</?[a-z]+>", "", once).split())  # double-encoded markup too


# --------------------------------------------------------------------------- all files


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_file_is_covered(fixtures_dir: Path, provider: str) -> None:
    """Every 200 body parses (or is a documented non-provider body) and every error body
    gives a short message without markup."""
    statuses = _provenance(fixtures_dir, provider)
    files = _files(fixtures_dir, provider)
    assert files and set(statuses) == {f.name for f in files}
    for path in files:
        body = path.read_bytes()
        status = statuses[path.name]
        if status == 200 and path.suffix in {".json", ".xml"}:
            try:
                page = parse_body(provider, body)
            except ProviderReportedError as exc:  # a provider error inside a 200 body
                assert exc.code == "provider_error"
                continue
            except ProviderParseError as exc:
                # The only 200 body that is not a parseable page: a group_by response.
                assert path.name == "works-groupby-type.json", (path.name, exc.reason)
                continue
            assert page.total is None or page.total >= len(page.papers)
            for paper in page.papers:
                assert "<" not in paper.title or not re.search(r"<[a-z/]", paper.title)
        elif status == 200:  # the Crossref BibTeX transform is not a JSON body
            with pytest.raises(ProviderParseError):
                parse_body(provider, body)
        else:
            message = error_message(provider, status, body)
            assert message and len(message) <= 300
            assert "<" not in message
            with pytest.raises(ProviderParseError):
                parse_body(provider, body)


def test_parsers_are_named() -> None:
    assert set(PARSERS) == {*PROVIDERS, "demo"}  # and the offline demo sample's
    assert all(pid.startswith("litdesk.providers.") and ver for pid, ver in PARSERS.values())


# --------------------------------------------------------------------------- Europe PMC


@pytest.mark.parametrize(
    "name",
    [
        "search-cancer-core.json",
        "search-cancer-lite.json",
        "search-cancer-idlist.json",
        "search-cancer-lite-pagesize100-page1.json",
        "search-cancer-lite-pagesize100-page2.json",
        "search-no-results.json",
    ],
)
def test_europepmc_search_json(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/europepmc" / name).read_bytes()
    doc = json.loads(body)
    results = doc["resultList"]["result"]
    page = parse_europepmc(body, cursor="*")
    assert page.total == doc["hitCount"]
    assert len(page.papers) == len(results)
    assert page.next_cursor == doc.get("nextCursorMark")
    for paper, r in zip(page.papers, results, strict=True):
        expected_id = f"MED-{r['pmid']}" if r.get("pmid") else f"{r['source']}-{r['id']}"
        assert paper.id == expected_id
        assert paper.pmid == r.get("pmid")
        assert paper.pmcid == r.get("pmcid")
        assert paper.doi == (r["doi"].lower() if r.get("doi") else None)
        if "title" in r:
            assert paper.title == _plain(r["title"])
        if "isOpenAccess" in r:
            assert paper.open_access is (r["isOpenAccess"] == "Y")
        if "citedByCount" in r:
            assert paper.cited_by == r["citedByCount"]
        assert paper.provider == "Europe PMC"


def test_europepmc_repeated_cursor_is_the_end(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/europepmc/search-cancer-lite.json").read_bytes()
    mark = json.loads(body)["nextCursorMark"]
    assert parse_europepmc(body, cursor=mark).next_cursor is None
    assert parse_europepmc(body).next_cursor == mark


def test_europepmc_core_fields(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/europepmc/search-cancer-core.json").read_bytes()
    results = json.loads(body)["resultList"]["result"]
    page = parse_europepmc(body)
    for paper, r in zip(page.papers, results, strict=True):
        assert paper.journal == r["journalInfo"]["journal"]["title"]
        assert paper.year == int(r["pubYear"])
        assert paper.publication_types == tuple(r["pubTypeList"]["pubType"])
        assert paper.licence == r.get("license")
        names = [a.get("fullName") for a in r.get("authorList", {}).get("author", [])]
        assert list(paper.authors) == [n for n in names if n]
        urls = [u["url"] for u in r.get("fullTextUrlList", {}).get("fullTextUrl", [])]
        epmc = [u for u in urls if u.startswith("https://europepmc.org/")]
        if epmc:
            assert paper.full_text_url in epmc
        else:
            assert paper.full_text_url is None
        assert paper.retracted is ("Retracted Publication" in r["pubTypeList"]["pubType"])
        if r.get("abstractText"):
            assert paper.abstract and not _TAG.search(paper.abstract)


def test_europepmc_xml_matches_json(fixtures_dir: Path) -> None:
    xml_body = (fixtures_dir / "providers/europepmc/search-cancer-lite.xml").read_bytes()
    root = etree.fromstring(xml_body)
    ids = [r.findtext("source") + "-" + r.findtext("id") for r in root.iter("result")]
    page = parse_europepmc(xml_body)
    assert [p.id for p in page.papers] == ids
    assert page.total == int(root.findtext("hitCount"))
    assert page.next_cursor == root.findtext("nextCursorMark")
    json_page = parse_europepmc(
        (fixtures_dir / "providers/europepmc/search-cancer-lite.json").read_bytes()
    )
    assert [p.title for p in page.papers] == [p.title for p in json_page.papers]


@pytest.mark.parametrize(
    ("name", "licence_part"),
    [
        ("fulltext-PMC11850956-ccbync.xml", "/by-nc/"),
        ("fulltext-PMC12061466-ccby.xml", "/by/"),
        ("fulltext-PMC12092414-ccby-editorial.xml", "/by/"),
        ("fulltext-PMC12099753-ccbyncnd.xml", "/by-nc-nd/"),
        ("fulltext-PMC6095483-ccby-tidypmc.xml", "/by/"),
        ("fulltext-PMC8164761-ccby-2021.xml", "/by/"),
        ("jats-pmcoa-PMC2994229-nolicence.xml", None),
    ],
)
def test_europepmc_jats_article(fixtures_dir: Path, name: str, licence_part: str | None) -> None:
    body = (fixtures_dir / "providers/europepmc" / name).read_bytes()
    text = body.decode("utf-8")
    page = parse_europepmc(body)
    assert len(page.papers) == 1
    paper = page.papers[0]
    pmcid = re.search(r"PMC\d+", name).group(0)
    assert paper.pmcid == pmcid
    doi = re.search(r'<article-id pub-id-type="doi">([^<]+)<', text).group(1)
    assert paper.doi == doi.lower()
    pmid = re.search(r'<article-id pub-id-type="pmid">(\d+)<', text)
    assert paper.id == (f"MED-{pmid.group(1)}" if pmid else f"PMC-{pmcid}")
    assert paper.title and "<" not in paper.title
    if licence_part is None:
        assert paper.licence is None
    else:
        assert paper.licence and licence_part in paper.licence


# --------------------------------------------------------------------------- OpenAlex


@pytest.mark.parametrize(
    "name",
    [
        "works-title-search-augmenting-llm-chemistry.json",
        "works-filter-cites-cursor-first.json",
        "works-filter-openalex-ids-cursor-first.json",
        "works-filter-openalex-ids-cursor-last-page.json",
        "works-count-perpage1-page1.json",
    ],
)
def test_openalex_lists(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/openalex" / name).read_bytes()
    doc = json.loads(body)
    page = parse_openalex(body)
    assert page.total == doc["meta"]["count"]
    assert page.next_cursor == doc["meta"].get("next_cursor")
    assert len(page.papers) == len(doc["results"])
    for paper, w in zip(page.papers, doc["results"], strict=True):
        ids = w.get("ids", {})
        work = (w.get("id") or ids.get("openalex")).rsplit("/", 1)[-1]
        assert paper.openalex_id == work
        pmid = ids.get("pmid", "").rsplit("/", 1)[-1] or None
        assert paper.pmid == pmid
        assert paper.id == (f"MED-{pmid}" if pmid else f"OAX-{work}")
        doi = w.get("doi") or ids.get("doi")
        assert paper.doi == (doi.removeprefix("https://doi.org/").lower() if doi else None)
        assert paper.title == (w.get("title") or "")
        assert paper.provider == "OpenAlex"


@pytest.mark.parametrize(
    "name",
    [
        "work-W2741809807.json",
        "work-doi-10.1073-pnas.1414271111.json",
        "work-doi-10.1016-j.xgen.2025.100814.json",
        "work-W4234567890-paratext.json",
    ],
)
def test_openalex_single_work(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/openalex" / name).read_bytes()
    w = json.loads(body)
    page = parse_openalex(body)
    assert len(page.papers) == 1 and page.total == 1 and page.next_cursor is None
    paper = page.papers[0]
    assert paper.openalex_id == w["id"].rsplit("/", 1)[-1]
    assert paper.year == w["publication_year"]
    assert paper.publication_types == (w["type"],)
    assert paper.cited_by == w["cited_by_count"]
    assert paper.retracted is (w["is_retracted"] is True)
    assert paper.open_access is w["open_access"]["is_oa"]
    assert list(paper.authors) == [a["author"]["display_name"] for a in w["authorships"]]
    if w["ids"].get("pmcid"):
        assert paper.pmcid == "PMC" + w["ids"]["pmcid"].rsplit("/", 1)[-1]
    source = (w.get("primary_location") or {}).get("source") or {}
    assert paper.journal == source.get("display_name")
    index = w.get("abstract_inverted_index")
    if index:
        words = sorted((pos, word) for word, poss in index.items() for pos in poss)
        assert paper.abstract == " ".join(" ".join(word for _, word in words).split())
    else:
        assert paper.abstract is None


def test_openalex_paratext_and_sparse(fixtures_dir: Path) -> None:
    para = parse_openalex(
        (fixtures_dir / "providers/openalex/work-W4234567890-paratext.json").read_bytes()
    )
    assert para.papers[0].title == "" and para.papers[0].publication_types == ("paratext",)
    sparse = parse_openalex(
        (fixtures_dir / "providers/openalex/work-doi-select-open_access-oa.json").read_bytes()
    )
    assert sparse.papers[0].doi == "10.1021/acs.jctc.5b00178"
    assert sparse.papers[0].open_access is True


def test_openalex_groupby_refused(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/openalex/works-groupby-type.json").read_bytes()
    with pytest.raises(ProviderParseError) as info:
        parse_openalex(body)
    assert info.value.code == "parse_error" and "group_by" in info.value.reason
    assert info.value.digest and info.value.digest.startswith("sha256:")


def test_openalex_error_bodies(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/openalex/error-400-invalid-filter.json").read_bytes()
    message = error_message("openalex", 400, body)
    assert "DOESNTEXIST is not a valid field" in message
    assert len(message) <= 300
    html_body = (fixtures_dir / "providers/openalex/error-404-work-doi-not-found.html").read_bytes()
    assert error_message("openalex", 404, html_body) == "Not Found"


# --------------------------------------------------------------------------- Semantic Scholar


@pytest.mark.parametrize(
    "name",
    [
        "paper-search-turing-title-offset0.json",
        "paper-search-turing-title-offset100.json",
        "paper-search-turing-openaccesspdf.json",
        "paper-search-turing-year-range.json",
        "paper-search-empty.json",
    ],
)
def test_s2_search(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/semanticscholar" / name).read_bytes()
    doc = json.loads(body)
    page = parse_semanticscholar(body)
    assert page.total == doc["total"]
    assert page.next_cursor == (str(doc["next"]) if "next" in doc else None)
    data = doc.get("data", [])
    assert len(page.papers) == len(data)
    for paper, p in zip(page.papers, data, strict=True):
        assert paper.id == "S2-" + p["paperId"].upper()
        assert paper.title == " ".join((p.get("title") or "").split())
        if "year" in p:
            assert paper.year == p["year"]
        url = (p.get("openAccessPdf") or {}).get("url") or ""
        # Only https URLs are kept (Paper drops others).
        assert paper.full_text_url == (url if url.startswith("https://") else None)


def test_s2_bulk_token_and_references(fixtures_dir: Path) -> None:
    base = fixtures_dir / "providers/semanticscholar"
    bulk = json.loads((base / "paper-search-bulk-citationcount-asc-first.json").read_bytes())
    page = parse_semanticscholar(
        (base / "paper-search-bulk-citationcount-asc-first.json").read_bytes()
    )
    assert page.total == bulk["total"] and page.next_cursor == bulk["token"]
    assert [p.cited_by for p in page.papers] == [d["citationCount"] for d in bulk["data"]]
    refs = json.loads((base / "paper-references-offset0.json").read_bytes())
    page = parse_semanticscholar((base / "paper-references-offset0.json").read_bytes())
    assert len(page.papers) == len(refs["data"])
    for paper, d in zip(page.papers, refs["data"], strict=True):
        pid = d["citedPaper"].get("paperId")
        assert paper.id.startswith("S2-" + pid.upper() if pid else "REC-")
        assert paper.title == " ".join((d["citedPaper"].get("title") or "").split())
    assert page.next_cursor == str(refs["next"])


def test_s2_batch_skips_nulls(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/semanticscholar/paper-batch-fullfields.json").read_bytes()
    doc = json.loads(body)
    page = parse_semanticscholar(body)
    known = [d for d in doc if d is not None]
    assert len(page.papers) == len(known) == len(doc) - 1
    assert len(page.warnings) == 1 and "null" in page.warnings[0]
    assert [p.doi for p in page.papers] == [
        normalize_doi(d["externalIds"].get("DOI")) for d in known
    ]


@pytest.mark.parametrize(
    "name",
    [
        "paper-doi-10.1038-s42256-024-00832-8.json",
        "paper-search-match-augmenting-llm-chemistry.json",
    ],
)
def test_s2_full_paper(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/semanticscholar" / name).read_bytes()
    doc = json.loads(body)
    p = doc["data"][0] if "data" in doc else doc
    paper = parse_semanticscholar(body).papers[0]
    ext = p["externalIds"]
    assert paper.id == f"MED-{ext['PubMed']}"
    assert paper.pmcid == "PMC" + ext["PubMedCentral"]
    assert paper.arxiv_id == ext["ArXiv"]
    assert paper.doi == ext["DOI"].lower()
    assert paper.journal == p["journal"]["name"]
    assert paper.cited_by == p["citationCount"]
    assert paper.publication_types == tuple(p["publicationTypes"])
    assert list(paper.authors) == [a["name"] for a in p["authors"]]


def test_s2_title_only_and_empty_match(fixtures_dir: Path) -> None:
    base = fixtures_dir / "providers/semanticscholar"
    page = parse_semanticscholar((base / "paper-by-doi-title-only.json").read_bytes())
    assert page.papers[0].title == "Computing Machinery and Intelligence"
    empty = parse_semanticscholar((base / "paper-search-match-empty-data.json").read_bytes())
    assert empty.papers == [] and empty.total == 0


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("paper-not-found-404.json", "Paper with id 0 not found"),
        ("paper-doi-not-found-404.json", "Paper with id DOI:10.1101/2024.04.01.587366 not found"),
        ("paper-search-match-notfound-404.json", "Title match not found"),
    ],
)
def test_s2_error_messages(fixtures_dir: Path, name: str, expected: str) -> None:
    body = (fixtures_dir / "providers/semanticscholar" / name).read_bytes()
    assert error_message("semanticscholar", 404, body) == expected


# --------------------------------------------------------------------------- Crossref


@pytest.mark.parametrize(
    "name",
    [
        "works-query-ecology-rows2.json",
        "works-query-widget-cursor-first.json",
        "works-query-title-augmenting-llm-rows1.json",
        "works-query-title-nomatch.json",
        "works-query-select-doi-title.json",
        "works-query-title-select-sparse.json",
    ],
)
def test_crossref_lists(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/crossref" / name).read_bytes()
    message = json.loads(body)["message"]
    page = parse_crossref(body)
    assert page.total == message["total-results"]
    assert len(page.papers) == len(message["items"])
    assert page.next_cursor == (message.get("next-cursor") if message["items"] else None)
    for paper, item in zip(page.papers, message["items"], strict=True):
        assert paper.doi == item["DOI"].lower()
        assert paper.title == _plain(item["title"][0]) if item.get("title") else paper.title == ""
        if item.get("container-title"):
            assert paper.journal == item["container-title"][0]
        expected_authors = [
            " ".join(x for x in (a.get("given"), a.get("family")) if x) or a.get("name")
            for a in item.get("author", [])
        ]
        assert list(paper.authors) == expected_authors


@pytest.mark.parametrize(
    "name",
    [
        "work-10.1371-journal.pone.0033693.json",
        "work-10.1038-s42256-024-00832-8.json",
        "work-10.1016-j.xgen.2025.100814.json",
        "work-10.1101-2024.04.01.587366-posted-content.json",
    ],
)
def test_crossref_single_work(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/crossref" / name).read_bytes()
    w = json.loads(body)["message"]
    page = parse_crossref(body)
    assert len(page.papers) == 1
    paper = page.papers[0]
    assert paper.doi == w["DOI"].lower()
    assert paper.year == w["issued"]["date-parts"][0][0]
    assert paper.cited_by == w["is-referenced-by-count"]
    assert w["type"] in paper.publication_types
    if w.get("abstract"):
        assert paper.abstract and not _TAG.search(paper.abstract) and "jats" not in paper.abstract
    licences = {lic["URL"] for lic in w.get("license", [])}
    assert (paper.licence in licences) if licences else paper.licence is None


def test_crossref_posted_content_is_preprint(fixtures_dir: Path) -> None:
    body = (
        fixtures_dir / "providers/crossref/work-10.1101-2024.04.01.587366-posted-content.json"
    ).read_bytes()
    paper = parse_crossref(body).papers[0]
    assert "posted-content" in paper.publication_types
    assert "preprint" in paper.publication_types
    assert paper.journal is None


def test_crossref_error_bodies(fixtures_dir: Path) -> None:
    base = fixtures_dir / "providers/crossref"
    assert error_message("crossref", 404, (base / "work-not-found-404.txt").read_bytes()) == (
        "Resource not found."
    )
    msg = error_message(
        "crossref", 400, (base / "works-query-not-allowed-with-doi-400.json").read_bytes()
    )
    assert msg == "This route does not support field query parameters"
    with pytest.raises(ProviderParseError):
        parse_crossref((base / "work-10.1021-acs.jctc.2c01235.bib").read_bytes())


# --------------------------------------------------------------------------- PubMed


@pytest.mark.parametrize(
    "name",
    [
        "esearch-pubmed-biopython.xml",
        "esearch-pubmed-cancer-usehistory.xml",
        "esearch-pubmed-hart-rk-author-post.xml",
    ],
)
def test_pubmed_esearch(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/pubmed" / name).read_bytes()
    text = body.decode()
    count = int(re.search(r"<Count>(\d+)</Count>", text).group(1))
    ids = re.findall(r"<Id>(\d+)</Id>", text)
    page = parse_pubmed(body)
    assert page.total == count
    assert [p.pmid for p in page.papers] == ids
    assert [p.id for p in page.papers] == [f"MED-{i}" for i in ids]
    assert page.next_cursor == (str(len(ids)) if len(ids) < count else None)


def test_pubmed_errorlist_is_an_error(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/pubmed/esearch-protein-nohits-errorlist.xml").read_bytes()
    with pytest.raises(ProviderReportedError) as info:
        parse_pubmed(body)
    assert "PhraseNotFound: abcXYZ" in info.value.message
    assert error_message("pubmed", 200, body) == "PhraseNotFound: abcXYZ"


@pytest.mark.parametrize(
    "name",
    [
        "efetch-pubmed-12091962-9997.xml",
        "efetch-pubmed-30108519-mathml.xml",
        "efetch-pubmed-29963580.xml",
        "efetch-pubmed-22351513.xml",
        "efetch-pubmed-35108047.xml",
    ],
)
def test_pubmed_efetch(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/pubmed" / name).read_bytes()
    root = etree.fromstring(
        body, etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True)
    )
    articles = root.findall("PubmedArticle")
    page = parse_pubmed(body)
    assert len(page.papers) == len(articles)
    for paper, art in zip(page.papers, articles, strict=True):
        assert paper.pmid == art.findtext("MedlineCitation/PMID")
        title = " ".join(
            "".join(art.find("MedlineCitation/Article/ArticleTitle").itertext()).split()
        )
        assert paper.title == title
        doi = art.findtext("PubmedData/ArticleIdList/ArticleId[@IdType='doi']")
        assert paper.doi == (doi.lower() if doi else None)
        pmc = art.findtext("PubmedData/ArticleIdList/ArticleId[@IdType='pmc']")
        assert paper.pmcid == pmc
        types = [t.text for t in art.iter("PublicationType")]
        assert list(paper.publication_types) == types
        assert paper.retracted is ("Retracted Publication" in types)
        authors = art.findall("MedlineCitation/Article/AuthorList/Author")
        assert len(paper.authors) == len(authors)
        labels = [a.get("Label") for a in art.iter("AbstractText") if a.get("Label")]
        for label in labels:
            assert f"{label}: " in (paper.abstract or "")


def test_pubmed_mathml_is_readable(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/pubmed/efetch-pubmed-30108519-mathml.xml").read_bytes()
    paper = parse_pubmed(body).papers[0]
    assert paper.title.startswith('A "Blood Relationship" Between')
    assert paper.abstract and not _TAG.search(paper.abstract) and "mml" not in paper.abstract
    assert "V.O2max" in paper.abstract  # the MathML V̇O2max, joined without spaces
    assert paper.year == 2018 and paper.journal == "Frontiers in physiology"


def test_pubmed_old_record_and_esummary(fixtures_dir: Path) -> None:
    page = parse_pubmed(
        (fixtures_dir / "providers/pubmed/efetch-pubmed-12091962-9997.xml").read_bytes()
    )
    assert [p.pmid for p in page.papers] == ["12091962", "9997"]
    assert page.papers[1].year == 1976
    summary = parse_pubmed(
        (fixtures_dir / "providers/pubmed/esummary-pubmed-11850928-11482001.xml").read_bytes()
    )
    assert [p.pmid for p in summary.papers] == ["11850928", "11482001"]
    assert summary.papers[0].title == "Zirconium granuloma following treatment of rhus dermatitis."
    assert summary.papers[0].authors == ("LoPresti PJ", "Hambrick GW Jr")
    assert summary.papers[0].year == 1965


def test_pubmed_pmc_jats(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/pubmed/efetch-pmc-3299399-jats.xml").read_bytes()
    page = parse_pubmed(body)
    assert len(page.papers) == 1
    paper = page.papers[0]
    assert (paper.id, paper.pmid, paper.pmcid) == ("MED-22416237", "22416237", "PMC3299399")
    assert paper.doi == "10.3389/fpsyt.2012.00018"
    assert paper.licence == "http://www.frontiersin.org/licenseagreement"
    assert paper.publication_types == ("review-article",)


# --------------------------------------------------------------------------- arXiv


@pytest.mark.parametrize(
    "name",
    [
        "query-testing-start0-max10.xml",
        "query-testing-start10-max10.xml",
        "id-1605.08386.xml",
        "id-0808.05394-1707.08567.xml",
        "id-astro-ph-0601001-oldstyle.xml",
        "id-0000.0000-empty.xml",
    ],
)
def test_arxiv_feeds(fixtures_dir: Path, name: str) -> None:
    body = (fixtures_dir / "providers/arxiv" / name).read_bytes()
    text = body.decode()
    total = int(re.search(r"<opensearch:totalResults>(\d+)<", text).group(1))
    start = int(re.search(r"<opensearch:startIndex>(\d+)<", text).group(1))
    entry_ids = re.findall(r"<entry>\s*<id>https?://arxiv\.org/abs/([^<]+?)v(\d+)</id>", text)
    titles = [
        " ".join(t.split())
        for t in re.findall(r"<entry>\s*<id>[^<]*</id>\s*<title>([^<]*)</title>", text)
    ]
    page = parse_arxiv(body)
    assert page.total == total
    assert [(p.arxiv_id, p.arxiv_version) for p in page.papers] == [
        (base, int(v)) for base, v in entry_ids
    ]
    assert [p.title for p in page.papers] == [t.replace("&amp;", "&") for t in titles]
    end = start + len(entry_ids)
    assert page.next_cursor == (str(end) if entry_ids and end < total else None)
    for paper in page.papers:
        assert paper.publication_types == ("preprint",)
        assert paper.full_text_url and paper.full_text_url.startswith("https://arxiv.org/pdf/")


def test_arxiv_oldstyle_fields(fixtures_dir: Path) -> None:
    paper = parse_arxiv(
        (fixtures_dir / "providers/arxiv/id-astro-ph-0601001-oldstyle.xml").read_bytes()
    ).papers[0]
    assert paper.id == "ARX-ASTRO-PH_0601001"
    assert paper.journal == "ActaAstron.56:1-50,2006"
    assert paper.year == 2006 and len(paper.authors) == 4
    assert paper.keywords[0] == "astro-ph"


def test_arxiv_error_entry(fixtures_dir: Path) -> None:
    body = (fixtures_dir / "providers/arxiv/id-abc-400-error.xml").read_bytes()
    assert error_message("arxiv", 400, body) == "incorrect id format for abc"
    with pytest.raises(ProviderReportedError) as info:
        parse_arxiv(body)
    assert "incorrect id format for abc" in info.value.message
