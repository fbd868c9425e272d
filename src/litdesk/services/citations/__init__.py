"""Citation discovery over OpenAlex (references, citing, related, shared references)."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._requests import (
        MAX_PAGE,
        PER_PAGE,
        SeedError,
        citing_request,
        seed_key,
        work_request,
        works_by_id_request,
    )
    from ._service import (
        INCOMPLETE_NOTICE,
        MAX_IDS_PER_SEED,
        MODES,
        OPENALEX_KEY_NEEDED,
        CitationArgumentError,
        CitationFetchFailed,
        CitationResult,
        CitationService,
        Mode,
        Seed,
        rank_shared,
    )

__all__ = [
    "INCOMPLETE_NOTICE",
    "MAX_IDS_PER_SEED",
    "MAX_PAGE",
    "MODES",
    "OPENALEX_KEY_NEEDED",
    "PER_PAGE",
    "CitationArgumentError",
    "CitationFetchFailed",
    "CitationResult",
    "CitationService",
    "Mode",
    "Seed",
    "SeedError",
    "citing_request",
    "rank_shared",
    "seed_key",
    "work_request",
    "works_by_id_request",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
