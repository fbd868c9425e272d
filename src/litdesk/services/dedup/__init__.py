"""Deduplication of imported records (files → record references, groups, pairs)."""

from ._service import (
    DECISIONS_VERSION,
    DedupReport,
    RecordRef,
    Reviewer,
    dedup_batch,
    dedup_files,
    load_decisions,
    save_decisions,
)

__all__ = [
    "DECISIONS_VERSION",
    "DedupReport",
    "RecordRef",
    "Reviewer",
    "dedup_batch",
    "dedup_files",
    "load_decisions",
    "save_decisions",
]
