"""Deduplication of imported and searched records: identifiers first, then bibliographic
similarity with blocking, with documented thresholds and reviewable decisions."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._cache import ContentCache
    from ._explain import PairExplanation, explain_pair
    from ._match import DEDUP_VERSION, RULES, Decision, DedupResult, Pair, deduplicate
    from ._metrics import Confusion, evaluate_flags, evaluate_groups
    from ._normalize import (
        TitleInfo,
        first_author_names,
        first_author_surname,
        first_page,
        journal_key,
        journal_matches,
        normalize_title,
        page_range,
        registry_ids,
        title_info,
        volume_key,
    )
    from ._versions import Version
    from ._vetoes import TITLE_RULES, vetoes

__all__ = [
    "DEDUP_VERSION",
    "RULES",
    "TITLE_RULES",
    "Confusion",
    "ContentCache",
    "Decision",
    "DedupResult",
    "Pair",
    "PairExplanation",
    "TitleInfo",
    "Version",
    "deduplicate",
    "evaluate_flags",
    "evaluate_groups",
    "explain_pair",
    "first_author_names",
    "first_author_surname",
    "first_page",
    "journal_key",
    "journal_matches",
    "normalize_title",
    "page_range",
    "registry_ids",
    "title_info",
    "vetoes",
    "volume_key",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
