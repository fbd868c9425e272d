"""The litdesk query language and the six provider compilers (pure, no I/O).

* :func:`parse_query` — text → :class:`Query` (an immutable tree) or a positioned
  :class:`QuerySyntaxError`.
* :func:`compile_search` — a query and :class:`~litdesk.core.search.SearchFilters` →
  one exact :class:`~litdesk.core.search.CompiledRequest` for a provider, or
  :class:`~litdesk.core.search.CompileRefused` with the reason (nothing is dropped).
* :func:`compile_lookup` / :func:`plan_identifier` — exact identifiers.
* :func:`compile_fetch` — PubMed efetch for PMIDs found by esearch.
* :func:`compile_lane` — the one "exact lookup or search" decision for a lane.
* :func:`full_url` — the URL with its query string, as sent.
* the reading services' requests: Europe PMC full text and PMCID lookups, OpenAlex
  citation discovery (:func:`fulltext_request`, :func:`citing_request`, …).
"""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._common import MAX_URL_BYTES, full_url
    from ._compile import (
        NAMESPACES,
        ExactIdentifier,
        Mode,
        compile_fetch,
        compile_lane,
        compile_lookup,
        compile_search,
        plan_identifier,
    )
    from ._demo import MIN_STEM as DEMO_MIN_STEM
    from ._errors import SYNTAX_CODES, IdentifierError, QueryFilterError, QuerySyntaxError
    from ._grammar import (
        PHRASE_QUOTES,
        QUERY_LIMITS,
        QUOTE_CHARS,
        And,
        Field,
        Node,
        Not,
        Or,
        Query,
        Term,
        escape_quotes,
        iter_terms,
        parse_plain_text,
        parse_query,
        render,
    )
    from ._reading import (
        CITATIONS_MAX_PAGE,
        CITATIONS_PER_PAGE,
        EUROPE_PMC_REST,
        OPENALEX_WORKS,
        PaperIdError,
        SeedError,
        citing_request,
        doi_lookup_request,
        fulltext_request,
        openalex_work_request,
        pmid_lookup_request,
        seed_key,
        work_request,
        works_by_id_request,
    )

__all__ = [
    "DEMO_MIN_STEM",
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
    "MAX_URL_BYTES",
    "NAMESPACES",
    "PHRASE_QUOTES",
    "QUOTE_CHARS",
    "escape_quotes",
    "QUERY_LIMITS",
    "SYNTAX_CODES",
    "And",
    "ExactIdentifier",
    "Field",
    "IdentifierError",
    "Mode",
    "Node",
    "Not",
    "Or",
    "Query",
    "QueryFilterError",
    "QuerySyntaxError",
    "Term",
    "compile_fetch",
    "compile_lane",
    "compile_lookup",
    "compile_search",
    "full_url",
    "iter_terms",
    "parse_plain_text",
    "parse_query",
    "plan_identifier",
    "render",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
