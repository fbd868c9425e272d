"""Europe PMC full text: resolve a paper id to its PMCID, fetch through the transport,
parse with the licence gate, cache the parsed result in the data directory."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from litdesk.core.query import (
        EUROPE_PMC_REST,
        PaperIdError,
        fulltext_request,
        pmid_lookup_request,
    )
    from litdesk.core.search import ParseFn

    from ._seams import Fetcher, Reply
    from ._service import (
        CACHE_MAX_AGE,
        MAX_FULLTEXT_BYTES,
        FullTextFetchFailed,
        FullTextResult,
        FullTextService,
        NoFullText,
    )

__all__ = [
    "CACHE_MAX_AGE",
    "EUROPE_PMC_REST",
    "MAX_FULLTEXT_BYTES",
    "Fetcher",
    "FullTextFetchFailed",
    "FullTextResult",
    "FullTextService",
    "NoFullText",
    "PaperIdError",
    "ParseFn",
    "Reply",
    "fulltext_request",
    "pmid_lookup_request",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
