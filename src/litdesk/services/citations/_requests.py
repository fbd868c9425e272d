"""OpenAlex requests for citation discovery (the builders live in ``litdesk.core.query``)."""

from litdesk.core.query import (
    CITATIONS_MAX_PAGE as MAX_PAGE,
)
from litdesk.core.query import (
    CITATIONS_PER_PAGE as PER_PAGE,
)
from litdesk.core.query import (
    SeedError,
    citing_request,
    seed_key,
    work_request,
    works_by_id_request,
)

__all__ = [
    "MAX_PAGE",
    "PER_PAGE",
    "SeedError",
    "citing_request",
    "seed_key",
    "work_request",
    "works_by_id_request",
]
