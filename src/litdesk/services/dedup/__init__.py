"""Deduplication of imported records: the area ``app.dedup`` (:class:`DedupArea`: files or a
Study's records → record references, groups, pairs; the review and its decisions in the
Study's history), a Study's records and working set (``refresh``, ``identification``,
``working_groups``: what the Study exports, counts and screens), and the functions it
runs on."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._area import DedupArea
    from ._history import in_force, record_report, study_decisions, study_history, undo_decision
    from ._job import DEDUP_KIND, MAX_IMPORTS, MAX_QUEUE, DedupRun, study_owner
    from ._records import ADDED_BY_HAND
    from ._requests import DecideRequest, DedupInputError, DedupRequest, ExplainRequest, Verdict
    from ._review import MAX_HISTORY, resolve_record
    from ._service import (
        DECISIONS_VERSION,
        DedupReport,
        MergedRecord,
        RecordRef,
        Reviewer,
        SourceRecord,
        SuggestedDuplicate,
        VersionLink,
        dedup_batch,
        dedup_files,
        load_decisions,
        save_decisions,
    )
    from ._views import (
        DecisionView,
        DedupExplanation,
        DedupJob,
        DedupOutcome,
        HistoryView,
        ReviewView,
        UndoView,
    )
    from ._working_set import (
        FIRST_RULE,
        PENDING_RULE,
        StepChecks,
        WorkingGroup,
        identification,
        in_step,
        keep_working_sets,
        refresh,
        regroup,
        working_groups,
        working_page,
    )

__all__ = [
    "ADDED_BY_HAND",
    "FIRST_RULE",
    "PENDING_RULE",
    "WorkingGroup",
    "StepChecks",
    "identification",
    "in_step",
    "keep_working_sets",
    "refresh",
    "regroup",
    "working_groups",
    "working_page",
    "DECISIONS_VERSION",
    "DEDUP_KIND",
    "MAX_HISTORY",
    "MAX_IMPORTS",
    "MAX_QUEUE",
    "DecideRequest",
    "DecisionView",
    "DedupArea",
    "DedupExplanation",
    "DedupInputError",
    "DedupJob",
    "DedupOutcome",
    "DedupReport",
    "DedupRequest",
    "DedupRun",
    "ExplainRequest",
    "HistoryView",
    "MergedRecord",
    "RecordRef",
    "ReviewView",
    "Reviewer",
    "SourceRecord",
    "SuggestedDuplicate",
    "UndoView",
    "Verdict",
    "VersionLink",
    "dedup_batch",
    "dedup_files",
    "in_force",
    "load_decisions",
    "record_report",
    "resolve_record",
    "save_decisions",
    "study_decisions",
    "study_history",
    "study_owner",
    "undo_decision",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
