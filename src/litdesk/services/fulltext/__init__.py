"""Europe PMC full text: resolve a paper id to its PMCID, fetch through the transport,
parse with the licence gate, cache the parsed result in the data directory."""

from ._allowance import LOCAL_OWNER, AllowanceRefused, StoreAllowance
from ._seams import Allowance, Fetcher, ParseFn, Reply
from ._service import (
    CACHE_MAX_AGE,
    EUROPE_PMC_REST,
    MAX_FULLTEXT_BYTES,
    FullTextFetchFailed,
    FullTextResult,
    FullTextService,
    NoFullText,
    PaperIdError,
    fulltext_request,
    pmid_lookup_request,
)
from ._wiring import fetch_fulltext_sync, make_transport, run_with_transport, store_allowance

__all__ = [
    "CACHE_MAX_AGE",
    "EUROPE_PMC_REST",
    "LOCAL_OWNER",
    "MAX_FULLTEXT_BYTES",
    "Allowance",
    "AllowanceRefused",
    "Fetcher",
    "FullTextFetchFailed",
    "FullTextResult",
    "FullTextService",
    "NoFullText",
    "PaperIdError",
    "ParseFn",
    "Reply",
    "StoreAllowance",
    "fetch_fulltext_sync",
    "fulltext_request",
    "make_transport",
    "pmid_lookup_request",
    "run_with_transport",
    "store_allowance",
]
