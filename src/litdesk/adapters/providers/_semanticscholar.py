"""Semantic Scholar Graph API responses → ProviderPage: relevance search (``total``,
``offset``, ``next``, ``data``), bulk search (``token``), title match, one paper, batch
(a list with ``null`` for unknown ids) and references/citations (``citedPaper``)."""

from __future__ import annotations

import json
from typing import Any, Final

from litdesk.core.imports import digest_bytes
from litdesk.core.providers import provider_spec
from litdesk.core.records import normalize_arxiv, normalize_doi, normalize_pmcid, normalize_pmid
from litdesk.core.search import CompiledRequest, ProviderPage

from ._adapter import Credential, ProviderAdapter
from ._common import (
    Builder,
    ProviderParseError,
    as_bool,
    as_dict,
    as_int,
    as_list,
    as_str,
    guarded,
    load_json,
    one_line,
    plain_text,
    year_of,
)

__all__ = ["ADAPTER", "SPEC", "PARSER", "parse_semanticscholar", "s2_record"]

SPEC: Final = provider_spec("semanticscholar")
PROVIDER: Final = SPEC.name
PARSER: Final = ("litdesk.providers.semanticscholar", "1")
_NESTED = ("citedPaper", "citingPaper")


def parse_semanticscholar(body: bytes) -> ProviderPage:
    return guarded(PROVIDER, _parse, body)


def _parse(body: bytes) -> ProviderPage:
    doc = load_json(PROVIDER, body)
    b = Builder(PROVIDER)
    if isinstance(doc, list):  # batch: one entry per requested id, null when unknown
        for i, entry in enumerate(doc):
            if entry is None:
                b.seen += 1
                b.skip(f"batch entry {i + 1} is null (id unknown to Semantic Scholar)")
                continue
            _add(b, entry)
        return b.page(total=len(b.papers))
    if not isinstance(doc, dict):
        raise ProviderParseError(PROVIDER, "top level is neither an object nor a list", body)
    if "error" in doc or ("message" in doc and "data" not in doc):
        raise ProviderParseError(PROVIDER, "body is an error report", body)
    if "data" in doc:
        data = doc.get("data")
        if not isinstance(data, list):
            raise ProviderParseError(PROVIDER, "data is not a list", body)
        for entry in data:
            nested = next((k for k in _NESTED if isinstance(as_dict(entry).get(k), dict)), None)
            _add(b, as_dict(entry)[nested] if nested else entry)
        total = as_int(doc.get("total"))
        if "token" in doc:  # bulk search: continuation token
            return b.page(total=total, next_cursor=as_str(doc.get("token")))
        nxt = as_int(doc.get("next"))
        if total is None and "total" not in doc and "offset" not in doc:
            total = len(b.papers) if "next" not in doc else None
        return b.page(total=total, next_cursor=str(nxt) if nxt is not None else None)
    if "total" in doc or "offset" in doc:  # an empty search omits "data"
        return b.page(total=as_int(doc.get("total")))
    if "paperId" not in doc and "externalIds" not in doc:
        raise ProviderParseError(PROVIDER, "neither a paper, a list nor a search response", body)
    _add(b, doc)
    return b.page(total=len(b.papers))


def _add(b: Builder, entry: object) -> None:
    if not isinstance(entry, dict):
        b.seen += 1
        b.skip("not an object")
        return
    fields, source_id = s2_record(entry)
    fallback = digest_bytes(json.dumps(entry, sort_keys=True, default=str).encode("utf-8"))
    b.add(fields, source_id=source_id, fallback=fallback)


def s2_record(p: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Paper fields of one S2 paper and its ``S2-<paperId>`` source id, used only when
    the paper has no PMID, PMCID, arXiv id or DOI (so identities agree across providers)."""
    ext = as_dict(p.get("externalIds"))
    pdf = as_dict(p.get("openAccessPdf"))
    journal = as_dict(p.get("journal"))
    doi, pmid = as_str(ext.get("DOI")), as_str(ext.get("PubMed"))
    pmcid, arxiv = as_str(ext.get("PubMedCentral")), as_str(ext.get("ArXiv"))
    paper_id = as_str(p.get("paperId"))
    known = any(
        norm(v)
        for norm, v in (
            (normalize_doi, doi),
            (normalize_pmid, pmid),
            (normalize_pmcid, pmcid),
            (normalize_arxiv, arxiv),
        )
        if v
    )
    source_id = f"S2-{paper_id}" if paper_id and not known else None
    corpus = as_int(ext.get("CorpusId")) or as_int(p.get("corpusId"))
    if source_id is None and not known and corpus is not None:
        source_id = f"S2-CORPUS{corpus}"
    fields: dict[str, Any] = {
        "doi": doi,
        "pmid": pmid,
        "pmcid": pmcid,
        "arxiv_id": arxiv,
        "title": one_line(p.get("title")) or "",
        "authors": tuple(
            n for n in (one_line(as_dict(a).get("name")) for a in as_list(p.get("authors"))) if n
        ),
        "journal": one_line(journal.get("name")) or one_line(p.get("venue")),
        "year": year_of(p.get("year")) or year_of(as_str(p.get("publicationDate"))),
        "volume": as_str(journal.get("volume")),
        "pages": " ".join((as_str(journal.get("pages")) or "").split()) or None,
        "abstract": plain_text(p.get("abstract")),
        "publication_types": tuple(
            t for t in (as_str(x) for x in as_list(p.get("publicationTypes"))) if t
        ),
        "open_access": as_bool(p.get("isOpenAccess")),
        "cited_by": as_int(p.get("citationCount")),
        "full_text_url": as_str(pdf.get("url")),
        "licence": as_str(pdf.get("license")),
        "source_url": as_str(p.get("url"))
        or (
            f"https://www.semanticscholar.org/paper/{paper_id}"
            if paper_id and paper_id.isalnum()
            else None
        ),
        "provider": SPEC.display_name,
    }
    return fields, source_id


def _parse_answer(request: CompiledRequest, body: bytes) -> ProviderPage:
    return parse_semanticscholar(body)


#: Semantic Scholar at the edge: one request a second, an optional ``x-api-key`` header.
ADAPTER: Final = ProviderAdapter(
    spec=SPEC,
    parser=PARSER,
    parse=_parse_answer,
    parse_body=parse_semanticscholar,
    interval=1.0,
    credential=Credential("semantic_scholar_api_key", header="x-api-key"),
)
