"""Dispatch to the six provider compilers; exact-identifier planning (pure)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from litdesk._errors import LitdeskError
from litdesk.core.providers import DECLARED, ProviderSpec
from litdesk.core.records import (
    detect_identifier,
    normalize_arxiv,
    normalize_doi,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
    normalize_source_id,
)
from litdesk.core.search import (
    PROVIDERS,
    CompiledRequest,
    CompileRefused,
    ProviderName,
    SearchFilters,
)

from . import _arxiv, _crossref, _demo, _europepmc, _openalex, _pubmed, _semanticscholar
from ._common import ensure_query
from ._errors import IdentifierError, QueryFilterError
from ._grammar import Query, parse_plain_text

__all__ = [
    "NAMESPACES",
    "ExactIdentifier",
    "Mode",
    "compile_fetch",
    "compile_lane",
    "compile_lookup",
    "compile_search",
    "plan_identifier",
]

Mode = Literal["keyword", "semantic"]
Namespace = Literal["doi", "pmid", "pmcid", "openalex", "arxiv", "source"]
NAMESPACES: Final[tuple[Namespace, ...]] = ("doi", "pmid", "pmcid", "openalex", "arxiv", "source")


class _Compiler(Protocol):
    """A provider's compiler module (``_<provider>.py``): its declaration, its search and
    its exact lookup."""

    @property
    def SPEC(self) -> ProviderSpec: ...

    def compile_search(
        self, query: Query, filters: SearchFilters, *, cursor: str | None, limit: int, mode: str
    ) -> CompiledRequest: ...

    def compile_lookup(self, namespace: str, value: str) -> CompiledRequest: ...


_MODULES: Final[tuple[_Compiler, ...]] = (
    _europepmc,
    _openalex,
    _semanticscholar,
    _crossref,
    _pubmed,
    _arxiv,
    _demo,
)
#: provider → its compiler, for every declared provider (checked at import).
_COMPILERS: Final[dict[str, _Compiler]] = {m.SPEC.name: m for m in _MODULES}
if set(_COMPILERS) != set(DECLARED):  # pragma: no cover - a declaration bug
    raise LitdeskError("every declared provider needs exactly one query compiler")
_NORMALISE: Final[dict[str, Callable[[object], str | None]]] = {
    "doi": normalize_doi,
    "pmid": normalize_pmid,
    "pmcid": normalize_pmcid,
    "openalex": normalize_openalex_id,
    "arxiv": normalize_arxiv,
    "source": normalize_source_id,
}


def _provider(name: str) -> ProviderName:
    # the demo sample compiles like any provider: the services decide where it is offered
    for p in DECLARED:
        if p == name:
            return p
    raise CompileRefused(str(name)[:40], f"unknown provider (use one of {', '.join(PROVIDERS)})")


def _encodable(text: object) -> bool:
    """Text that can be sent (no lone surrogates)."""
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_filters(filters: SearchFilters) -> None:
    checks = {
        "field": ("all", "title", "abstract", "author"),
        "type": ("all", "review", "preprint", "journal"),
        "sort": ("relevance", "newest", "cited"),
    }
    for name, allowed in checks.items():
        value = getattr(filters, name)
        if value not in allowed:
            raise QueryFilterError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    for name in ("open_access", "include_retracted"):
        if not isinstance(getattr(filters, name), bool):
            raise QueryFilterError(f"{name} must be true or false")
    if filters.synonyms is not None and not isinstance(filters.synonyms, bool):
        raise QueryFilterError("synonyms must be true, false or not given")


def compile_search(
    provider: str,
    query: str | Query,
    filters: SearchFilters | None = None,
    *,
    cursor: str | None = None,
    limit: int = 20,
    mode: Mode = "keyword",
) -> CompiledRequest:
    """The exact provider request for ``query`` with ``filters``.

    Raises :class:`~litdesk.core.query.QuerySyntaxError` for text that does not parse,
    :class:`~litdesk.core.query.QueryFilterError` for an out-of-range filter, and
    :class:`~litdesk.core.search.CompileRefused` (with the reason) when the provider
    cannot represent a term, an operator or a filter exactly. ``cursor`` is the
    provider's own cursor (``None`` for the first page).
    """
    name = _provider(provider)
    filters = filters if filters is not None else SearchFilters()
    _check_filters(filters)
    if mode == "semantic" and isinstance(query, str) and filters.field == "all":
        parsed = parse_plain_text(query)
    else:
        parsed = ensure_query(query, filters)
    return _COMPILERS[name].compile_search(parsed, filters, cursor=cursor, limit=limit, mode=mode)


def compile_lookup(provider: str, namespace: str, value: str) -> CompiledRequest:
    """A single exact lookup of an identifier at ``provider``, or :class:`CompileRefused`
    when that provider cannot look it up. A 404 answer means "no such record"."""
    name = _provider(provider)
    normalise = _NORMALISE.get(namespace)
    if normalise is None:
        raise IdentifierError(
            f"unknown identifier namespace {str(namespace)[:40]!r} (use {', '.join(NAMESPACES)})"
        )
    canonical = normalise(value) if _encodable(value) else None
    if canonical is None:
        raise IdentifierError(f"not a valid {namespace}: {str(value)[:80]!r}")
    return _COMPILERS[name].compile_lookup(namespace, canonical)


def compile_fetch(provider: str, ids: Iterable[str]) -> CompiledRequest:
    """The request fetching full records for ids found by a search (PubMed efetch)."""
    name = _provider(provider)
    if name != "pubmed":
        raise CompileRefused(name, "no separate fetch request (search returns the records)")
    return _pubmed.compile_fetch(ids)


@dataclass(frozen=True, slots=True)
class ExactIdentifier:
    """A whole-input exact identifier and the provider the reference sends it to
    (OpenAlex ids to OpenAlex, everything else to Europe PMC)."""

    namespace: Namespace
    value: str

    @property
    def primary_provider(self) -> ProviderName:
        return "openalex" if self.namespace == "openalex" else "europepmc"

    def to_dict(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "value": self.value}


def plan_identifier(text: str, *, field: str = "all") -> ExactIdentifier | None:
    """The exact identifier the whole input is (field ``all`` only), else ``None``."""
    if field != "all" or not isinstance(text, str) or len(text) > 4096 or not _encodable(text):
        return None
    found = detect_identifier(text)
    if found is None:
        return None
    namespace, value = found
    for ns in NAMESPACES:
        if ns == namespace:
            return ExactIdentifier(ns, value)
    return None  # pragma: no cover - detect_identifier returns known namespaces only


def compile_lane(
    provider: str,
    query: str,
    filters: SearchFilters | None = None,
    *,
    cursor: str | None = None,
    limit: int = 20,
    mode: Mode = "keyword",
) -> CompiledRequest:
    """The one decision "exact identifier lookup or search" for a provider's lane.

    A first page (no ``cursor``) whose whole input is an exact identifier (field ``all``)
    is one lookup at ``provider`` (a 404 is an empty success); anything else is the
    provider's search. Raises like :func:`compile_lookup` / :func:`compile_search`."""
    filters = filters if filters is not None else SearchFilters()
    exact = plan_identifier(query, field=filters.field) if cursor is None else None
    if exact is not None:
        return compile_lookup(provider, exact.namespace, exact.value)
    return compile_search(provider, query, filters, cursor=cursor, limit=limit, mode=mode)
