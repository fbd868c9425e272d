"""NCBI E-utilities responses → ProviderPage: esearch (XML or JSON), esummary (XML
DocSum or JSON), efetch ``PubmedArticleSet`` and PMC efetch (JATS ``pmc-articleset``).
An ``ERROR`` or ``ErrorList`` in a 200 body is the provider's own error report."""

from __future__ import annotations

from typing import Any, Final

from lxml import etree

from litdesk.core.imports import digest_bytes
from litdesk.core.providers import provider_spec
from litdesk.core.query import compile_fetch
from litdesk.core.records import normalize_pmcid
from litdesk.core.search import CompiledRequest, ProviderPage

from ._adapter import Credential, ProviderAdapter
from ._common import (
    Builder,
    ProviderParseError,
    ProviderReportedError,
    as_dict,
    as_int,
    as_list,
    as_str,
    child,
    children,
    guarded,
    load_json,
    load_xml,
    local,
    one_line,
    text_of,
    xml_text,
    year_of,
)
from ._jats import jats_fields

__all__ = [
    "ADAPTER",
    "SPEC",
    "PARSER",
    "parse_pubmed",
    "pmc_article",
    "pubmed_article",
    "pubmed_docsum",
    "pubmed_errors",
]

SPEC: Final = provider_spec("pubmed")
PROVIDER: Final = SPEC.name
PARSER: Final = ("litdesk.providers.pubmed", "1")


def parse_pubmed(body: bytes) -> ProviderPage:
    return guarded(PROVIDER, _parse, body)


def _parse(body: bytes) -> ProviderPage:
    if body.lstrip()[:1] in (b"{", b"["):
        return _json(load_json(PROVIDER, body), body)
    root = load_xml(PROVIDER, body)
    name = local(root)
    if name == "eSearchResult":
        return _esearch(root, body)
    if name == "eSummaryResult":
        return _esummary(root, body)
    if name == "PubmedArticleSet":
        b = Builder(PROVIDER)
        for article in root:
            kind = local(article)
            if kind in {"PubmedArticle", "PubmedBookArticle"}:
                b.add(pubmed_article(article), fallback=_digest(article))
            elif kind == "DeleteCitation":
                continue
        return b.page(total=len(b.papers))
    if name in {"pmc-articleset", "article"}:
        articles = [root] if name == "article" else [a for a in root if local(a) == "article"]
        b = Builder(PROVIDER)
        for article in articles:
            b.add(pmc_article(article), fallback=_digest(article))
        return b.page(total=len(b.papers))
    if name in {"ERROR", "eFetchResult", "eLinkResult"} and (errors := pubmed_errors(root)):
        raise ProviderReportedError(PROVIDER, "; ".join(errors))
    raise ProviderParseError(PROVIDER, f"unexpected XML root {name[:40]!r}", body)


def _digest(el: etree._Element) -> str:
    return digest_bytes(etree.tostring(el))


def pubmed_errors(root: etree._Element) -> list[str]:
    """Messages of ``ERROR`` elements and ``ErrorList`` entries (``PhraseNotFound: x``)."""
    out: list[str] = []
    if local(root) == "ERROR" and (t := one_line(root.text, limit=200)):
        out.append(t)
    for el in root:
        if local(el) == "ERROR" and (t := one_line(el.text, limit=200)):
            out.append(t)
        if local(el) == "ErrorList":
            for e in el:
                if t := one_line(e.text, limit=200):
                    out.append(f"{local(e)}: {t}")
    return out[:10]


def _esearch(root: etree._Element, body: bytes) -> ProviderPage:
    errors = pubmed_errors(root)
    if errors:
        raise ProviderReportedError(PROVIDER, "; ".join(errors))
    count = as_int(text_of(root, "Count"))
    if count is None:
        raise ProviderParseError(PROVIDER, "esearch without Count", body)
    start = as_int(text_of(root, "RetStart")) or 0
    ids = [(i.text or "").strip() for i in children(child(root, "IdList"), "Id")]
    return _id_page(ids, count, start)


def _id_page(ids: list[str], count: int, start: int) -> ProviderPage:
    b = Builder(PROVIDER)
    for pmid in ids:
        b.add(_pmid_fields(pmid), fallback=f"pubmed:{pmid}")
    end = start + len(ids)
    return b.page(total=count, next_cursor=str(end) if ids and end < count else None)


def _pmid_fields(pmid: str) -> dict[str, Any]:
    return {
        "pmid": pmid,
        "source_url": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid.isdigit() else None,
        "provider": SPEC.display_name,
    }


def _json(doc: Any, body: bytes) -> ProviderPage:
    if not isinstance(doc, dict):
        raise ProviderParseError(PROVIDER, "top level is not an object", body)
    if "esearchresult" in doc:
        res = as_dict(doc.get("esearchresult"))
        errors = [
            f"{k}: {', '.join(str(x) for x in as_list(v))}"[:200]
            for k, v in as_dict(res.get("errorlist")).items()
            if as_list(v)
        ]
        if err := as_str(res.get("ERROR")):
            errors.insert(0, err[:200])
        if errors:
            raise ProviderReportedError(PROVIDER, "; ".join(errors[:10]))
        count = as_int(res.get("count"))
        if count is None:
            raise ProviderParseError(PROVIDER, "esearch without count", body)
        ids = [s for s in (as_str(i) for i in as_list(res.get("idlist"))) if s]
        return _id_page(ids, count, as_int(res.get("retstart")) or 0)
    if "result" in doc:
        result = as_dict(doc.get("result"))
        b = Builder(PROVIDER)
        for uid in as_list(result.get("uids")):
            entry = as_dict(result.get(str(uid)))
            if entry.get("error"):
                b.seen += 1
                b.skip(f"uid {str(uid)[:20]}: {str(entry.get('error'))[:100]}")
                continue
            b.add(_summary_json(str(uid), entry), fallback=f"pubmed:{uid}")
        return b.page(total=len(b.papers))
    if err := as_str(doc.get("error")) or as_str(doc.get("ERROR")):
        raise ProviderReportedError(PROVIDER, err[:200])
    raise ProviderParseError(PROVIDER, "neither esearch nor esummary JSON", body)


def _summary_json(uid: str, e: dict[str, Any]) -> dict[str, Any]:
    ids = {
        as_str(as_dict(a).get("idtype")): as_str(as_dict(a).get("value"))
        for a in as_list(e.get("articleids"))
    }
    types = tuple(t for t in (as_str(x) for x in as_list(e.get("pubtype"))) if t)
    return {
        **_pmid_fields(uid),
        "doi": ids.get("doi"),
        "pmcid": ids.get("pmc") or ids.get("pmcid"),
        "title": one_line(e.get("title")) or "",
        "authors": tuple(
            n for n in (one_line(as_dict(a).get("name")) for a in as_list(e.get("authors"))) if n
        ),
        "journal": one_line(e.get("fulljournalname")) or one_line(e.get("source")),
        "year": year_of(as_str(e.get("pubdate"))),
        "volume": as_str(e.get("volume")),
        "issue": as_str(e.get("issue")),
        "pages": as_str(e.get("pages")),
        "publication_types": types,
        "retracted": any(t.lower() == "retracted publication" for t in types),
    }


def _esummary(root: etree._Element, body: bytes) -> ProviderPage:
    if errors := pubmed_errors(root):
        raise ProviderReportedError(PROVIDER, "; ".join(errors))
    b = Builder(PROVIDER)
    for doc in children(root, "DocSum"):
        b.add(pubmed_docsum(doc), fallback=_digest(doc))
    return b.page(total=len(b.papers))


def pubmed_docsum(doc: etree._Element) -> dict[str, Any]:
    """Paper fields of one esummary ``DocSum``."""
    items: dict[str, etree._Element] = {}
    for item in children(doc, "Item"):
        items.setdefault(item.get("Name") or "", item)

    def item_text(name: str) -> str | None:
        el = items.get(name)
        return one_line(el.text, limit=4_000) if el is not None else None

    def list_items(name: str) -> list[etree._Element]:
        el = items.get(name)
        return children(el, "Item") if el is not None else []

    ids = {(i.get("Name") or "").lower(): (i.text or "").strip() for i in list_items("ArticleIds")}
    types = tuple(t for t in ((i.text or "").strip() for i in list_items("PubTypeList")) if t)
    pmid = (text_of(doc, "Id") or ids.get("pubmed") or "").strip()
    return {
        **_pmid_fields(pmid),
        "doi": item_text("DOI") or ids.get("doi"),
        "pmcid": ids.get("pmc") or ids.get("pmcid"),
        "title": item_text("Title") or "",
        "authors": tuple(
            a for a in ((i.text or "").strip() for i in list_items("AuthorList")) if a
        ),
        "journal": item_text("FullJournalName") or item_text("Source"),
        "year": year_of(item_text("PubDate")),
        "volume": item_text("Volume"),
        "issue": item_text("Issue"),
        "pages": item_text("Pages"),
        "publication_types": types,
        "retracted": any(t.lower() == "retracted publication" for t in types),
    }


def pubmed_article(article: etree._Element) -> dict[str, Any]:
    """Paper fields of one efetch ``PubmedArticle`` (or ``PubmedBookArticle``)."""
    citation = child(article, "MedlineCitation")
    if citation is None:
        citation = child(article, "BookDocument")
    art = child(citation, "Article")
    book = child(citation, "Book")
    journal = child(art, "Journal")
    pmid = text_of(citation, "PMID") or ""
    ids: dict[str, str] = {}
    for aid in children(child(article, "PubmedData", "ArticleIdList"), "ArticleId"):
        kind = (aid.get("IdType") or "").lower()
        if aid.text and aid.text.strip() and kind not in ids:
            ids[kind] = aid.text.strip()
    if "doi" not in ids:
        for loc in children(art, "ELocationID"):
            if (loc.get("EIdType") or "").lower() == "doi" and loc.text:
                ids["doi"] = loc.text.strip()
                break
    types = [
        t
        for t in (
            xml_text(p, limit=200)
            for p in children(
                child(art if art is not None else citation, "PublicationTypeList"),
                "PublicationType",
            )
        )
        if t
    ]
    retracted = any(t.lower() == "retracted publication" for t in types) or any(
        (c.get("RefType") or "") == "RetractionIn"
        for c in children(child(citation, "CommentsCorrectionsList"), "CommentsCorrections")
    )
    title_el = child(art, "ArticleTitle") if art is not None else child(citation, "ArticleTitle")
    if title_el is None and book is not None:
        title_el = child(book, "BookTitle")
    issue = child(journal, "JournalIssue")
    return {
        **_pmid_fields(pmid),
        "doi": ids.get("doi"),
        "pmcid": ids.get("pmc"),
        "title": xml_text(title_el, limit=4_000) or "",
        "authors": tuple(_authors(art if art is not None else citation)),
        "journal": text_of(journal, "Title")
        or (text_of(book, "Publisher", "PublisherName") if book is not None else None),
        "year": _year(issue) or _year(book),
        "volume": text_of(issue, "Volume"),
        "issue": text_of(issue, "Issue"),
        "pages": text_of(art, "Pagination", "MedlinePgn"),
        "abstract": _abstract(child(art if art is not None else citation, "Abstract")),
        "keywords": tuple(
            k
            for k in (
                xml_text(kw, limit=2_000)
                for kl in children(citation, "KeywordList")
                for kw in children(kl, "Keyword")
            )
            if k
        ),
        "publication_types": tuple(types),
        "retracted": retracted,
    }


def _authors(el: etree._Element | None) -> list[str]:
    out: list[str] = []
    for alist in children(el, "AuthorList"):
        for author in children(alist, "Author"):
            collective = text_of(author, "CollectiveName")
            if collective:
                out.append(collective)
                continue
            last = text_of(author, "LastName")
            fore = text_of(author, "ForeName") or text_of(author, "Initials")
            name = " ".join(x for x in (last, fore) if x)
            if name:
                out.append(name)
    return out


def _year(el: etree._Element | None) -> int | None:
    date = child(el, "PubDate")
    return year_of(text_of(date, "Year")) or year_of(text_of(date, "MedlineDate"))


def _abstract(abstract: etree._Element | None) -> str | None:
    if abstract is None:
        return None
    parts = []
    for text in children(abstract, "AbstractText"):
        body = xml_text(text, limit=100_000)
        if not body:
            continue
        label = text.get("Label")
        parts.append(f"{label.strip()}: {body}" if label and label.strip() else body)
    return "\n\n".join(parts) or None


def pmc_article(article: etree._Element) -> dict[str, Any]:
    """Paper fields of one PMC JATS article."""
    fields = jats_fields(article)
    pmcid = normalize_pmcid(fields.get("pmcid"))
    if pmcid:
        fields["full_text_url"] = f"https://pmc.ncbi.nlm.nih.gov/articles/{pmcid}/"
    fields["provider"] = "PubMed Central"
    return fields


def _parse_answer(request: CompiledRequest, body: bytes) -> ProviderPage:
    return parse_pubmed(body)


def _follow_up(request: CompiledRequest, page: ProviderPage) -> CompiledRequest | None:
    """efetch for the PMIDs an esearch found without their records."""
    if request.operation == "fetch":
        return None
    pmids = [p.pmid for p in page.papers if p.pmid and not p.title]
    if not pmids:
        return None
    return compile_fetch(SPEC.name, pmids)


#: PubMed (NCBI E-utilities) at the edge: 3 requests a second (10 with an ``api_key``),
#: ``tool`` and ``email`` as NCBI asks, efetch completing an esearch page.
ADAPTER: Final = ProviderAdapter(
    spec=SPEC,
    parser=PARSER,
    parse=_parse_answer,
    parse_body=parse_pubmed,
    interval=1 / 3,
    keyed_interval=0.1,
    credential=Credential("ncbi_api_key", param="api_key"),
    contact_param="email",
    fixed_params=(("tool", "litdesk"),),
    follow_up=_follow_up,
)
