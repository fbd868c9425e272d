"""Records and identifiers: the Paper record, identifier normalisers, primary ids."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._identifiers import (
        EUROPE_PMC_SOURCES,
        PRIMARY_ID_PATTERN,
        ArxivId,
        detect_identifier,
        normalize_arxiv,
        normalize_doi,
        normalize_openalex_id,
        normalize_pmcid,
        normalize_pmid,
        normalize_source_id,
        primary_id,
        split_arxiv,
    )
    from ._paper import (
        PAPER_VERSION,
        AbstractSource,
        Paper,
        PaperError,
        make_paper,
        read_paper,
        safe_https_url,
        same_paper,
    )

__all__ = [
    "EUROPE_PMC_SOURCES",
    "PAPER_VERSION",
    "PRIMARY_ID_PATTERN",
    "AbstractSource",
    "ArxivId",
    "Paper",
    "PaperError",
    "detect_identifier",
    "make_paper",
    "normalize_arxiv",
    "normalize_doi",
    "normalize_openalex_id",
    "normalize_pmcid",
    "normalize_pmid",
    "normalize_source_id",
    "primary_id",
    "read_paper",
    "safe_https_url",
    "same_paper",
    "split_arxiv",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
