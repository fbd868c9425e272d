"""Deduplication of imported records (files → record references, groups, pairs)."""

from ._history import record_report, study_decisions, study_history, undo_decision
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
    "record_report",
    "save_decisions",
    "study_decisions",
    "study_history",
    "undo_decision",
]
