"""Deduplication of imported records (files → record references, groups, pairs)."""

from ._history import in_force, record_report, study_decisions, study_history, undo_decision
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
from ._workflow import (
    DedupExplanation,
    DedupOutcome,
    DedupRequest,
    dedup_history,
    explain_records,
    resolve_record,
    run_dedup,
)

__all__ = [
    "DECISIONS_VERSION",
    "DedupExplanation",
    "DedupOutcome",
    "DedupReport",
    "DedupRequest",
    "RecordRef",
    "Reviewer",
    "dedup_batch",
    "dedup_files",
    "dedup_history",
    "in_force",
    "explain_records",
    "load_decisions",
    "record_report",
    "resolve_record",
    "run_dedup",
    "save_decisions",
    "study_decisions",
    "study_history",
    "undo_decision",
]
