"""Requests of the reading services (pure builders): Europe PMC full text and the
lookups that find a PMCID, and OpenAlex citation discovery (seed lookups, works by id,
citing works). The transport sends them; the provider adapters parse the answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from litdesk._errors import InputError
from litdesk.core.providers import provider_spec
from litdesk.core.records import (
    detect_identifier,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_source_id,
)
from litdesk.core.search import CompiledRequest

__all__ = [
    "CITATIONS_MAX_PAGE",
    "CITATIONS_PER_PAGE",
    "EUROPE_PMC_REST",
    "OPENALEX_WORKS",
    "PaperIdError",
    "SeedError",
    "citing_request",
    "doi_lookup_request",
    "fulltext_request",
    "openalex_work_request",
    "pmid_lookup_request",
    "seed_key",
    "work_request",
    "works_by_id_request",
]

_EPMC: Final = provider_spec("europepmc")
_OPENALEX: Final = provider_spec("openalex")
EUROPE_PMC_REST: Final = _EPMC.url("/europepmc/webservices/rest")
OPENALEX_WORKS: Final = _OPENALEX.url("/works")


class PaperIdError(InputError):
    """The paper id is not one the reader can resolve."""

    default_code = "paper_id"


# --- full text --------------------------------------------------------------------


def fulltext_request(pmcid: str) -> CompiledRequest:
    """The Europe PMC fullTextXML request for ``pmcid``."""
    canonical = normalize_pmcid(pmcid)
    if canonical is None:
        raise PaperIdError(f"not a PMCID: {pmcid[:40]!r}")
    return CompiledRequest(
        provider=_EPMC.name,
        operation="fetch",
        method="GET",
        url=f"{EUROPE_PMC_REST}/{canonical}/fullTextXML",
        params=(),
        executed_query=f"{canonical}/fullTextXML",
        lane=_EPMC.lane("fulltext"),
    )


def pmid_lookup_request(pmid: str) -> CompiledRequest:
    """The Europe PMC search that finds a PMID's record (and with it the PMCID)."""
    query = f"EXT_ID:{pmid} AND SRC:MED"
    return _europepmc_search(query)


def doi_lookup_request(doi: str) -> CompiledRequest:
    if '"' in doi or "\\" in doi:
        raise PaperIdError("this DOI cannot be looked up at Europe PMC (it holds a quote)")
    return _europepmc_search(f'DOI:"{doi}"')


def _europepmc_search(query: str) -> CompiledRequest:
    return CompiledRequest(
        provider=_EPMC.name,
        operation="lookup",
        method="GET",
        url=f"{EUROPE_PMC_REST}/search",
        params=(("query", query), ("resultType", "lite"), ("format", "json"), ("pageSize", "2")),
        executed_query=query,
        lane=_EPMC.lane("fulltext-lookup"),
    )


def openalex_work_request(work: str) -> CompiledRequest:
    return CompiledRequest(
        provider=_OPENALEX.name,
        operation="lookup",
        method="GET",
        url=f"{OPENALEX_WORKS}/{work}",
        params=(("select", "id,ids,doi,title"),),
        executed_query=work,
        lane=_OPENALEX.lane("fulltext-lookup"),
    )


# --- citations --------------------------------------------------------------------

CITATIONS_PER_PAGE: Final = 20
CITATIONS_MAX_PAGE: Final = 100
PER_PAGE: Final = CITATIONS_PER_PAGE
MAX_PAGE: Final = CITATIONS_MAX_PAGE
#: The fields a seed lookup needs (keeps the singleton small).
SEED_FIELDS: Final = "id,ids,doi,title,display_name,publication_year,referenced_works,related_works"


class SeedError(InputError):
    """A seed id cannot be looked up at OpenAlex."""

    default_code = "seed"


def seed_key(text: str) -> tuple[str, str]:
    """``("work", "W…")`` for an OpenAlex id, else the OpenAlex external-id path key
    (``("doi", "doi:10.…")``, ``("pmid", "pmid:123")``, ``("pmcid", "pmcid:PMC1")``)."""
    raw = (text or "").strip()
    if not raw:
        raise SeedError("an empty seed id")
    source = normalize_source_id(raw)
    if source is not None:
        prefix, acc = source.split("-", 1)
        if prefix == "OAX":
            return "work", acc
        if prefix == "MED":
            return "pmid", f"pmid:{acc}"
        if prefix == "PMC":
            return "pmcid", f"pmcid:{acc}"
        raise SeedError(f"{source} cannot be looked up at OpenAlex (give W…, a DOI, PMID or PMCID)")
    found = detect_identifier(raw)
    if found is not None:
        kind, value = found
        if kind == "openalex" and (w := normalize_openalex_id(value)):
            return "work", w
        if kind == "doi":
            return "doi", f"doi:{value}"
        if kind == "pmid":
            return "pmid", f"pmid:{value}"
        if kind == "pmcid":
            return "pmcid", f"pmcid:{value}"
    raise SeedError(f"{raw[:80]!r} is not an OpenAlex id, DOI, PMID or PMCID")


def work_request(key: str) -> CompiledRequest:
    """The singleton lookup of one work (``W…`` or an external-id key)."""
    if "?" in key or "#" in key or "\\" in key or any(ch.isspace() for ch in key):
        raise SeedError(f"{key[:80]!r} cannot be placed in an OpenAlex URL")
    return CompiledRequest(
        provider=_OPENALEX.name,
        operation="lookup",
        method="GET",
        url=f"{OPENALEX_WORKS}/{key}",
        params=(("select", SEED_FIELDS),),
        executed_query=key,
        lane=_OPENALEX.lane("citations-seed"),
    )


def works_by_id_request(ids: Sequence[str]) -> CompiledRequest:
    """One page of works by id: ``filter=openalex:W1|W2…`` (at most 20 ids)."""
    if not ids or len(ids) > PER_PAGE:
        raise ValueError(f"between 1 and {PER_PAGE} ids, got {len(ids)}")
    for w in ids:
        if normalize_openalex_id(w) != w:
            raise ValueError(f"not a canonical OpenAlex work id: {w[:40]!r}")
    expr = "openalex:" + "|".join(ids)
    return CompiledRequest(
        provider=_OPENALEX.name,
        operation="search",
        method="GET",
        url=OPENALEX_WORKS,
        params=(("filter", expr), ("per_page", str(PER_PAGE))),
        executed_query=expr,
        lane=_OPENALEX.lane("citations"),
    )


def citing_request(work: str, page: int) -> CompiledRequest:
    """Works citing ``work``, newest first: ``filter=cites:W…&sort=publication_date:desc``."""
    if normalize_openalex_id(work) != work:
        raise ValueError(f"not a canonical OpenAlex work id: {work[:40]!r}")
    if not 1 <= page <= MAX_PAGE:
        raise ValueError(f"page {page} outside 1..{MAX_PAGE}")
    expr = f"cites:{work}"
    return CompiledRequest(
        provider=_OPENALEX.name,
        operation="search",
        method="GET",
        url=OPENALEX_WORKS,
        params=(
            ("filter", expr),
            ("sort", "publication_date:desc"),
            ("per_page", str(PER_PAGE)),
            ("page", str(page)),
        ),
        executed_query=expr,
        lane=_OPENALEX.lane("citations"),
    )
