"""Deduplication of imported and searched records: identifiers first, then bibliographic
similarity with blocking, with documented thresholds and reviewable decisions."""

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

__all__ = [
    "DEDUP_VERSION",
    "RULES",
    "Confusion",
    "Decision",
    "DedupResult",
    "Pair",
    "TitleInfo",
    "deduplicate",
    "evaluate_flags",
    "evaluate_groups",
    "first_author_names",
    "first_author_surname",
    "first_page",
    "journal_key",
    "journal_matches",
    "normalize_title",
    "page_range",
    "registry_ids",
    "title_info",
    "volume_key",
]
