"""AI assistance: consent bound to content, allowances in the store, one guarded model
call per request (no automatic retry), and the features built on them — reached through
one area, :class:`AssistArea` (``app.assist``): evidence suggestions, the Study summary
and its reports, search-strategy suggestions and the builder, the model check."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._allowance import (
        CHAT_FEATURE,
        LIBRARY_FEATURES,
        REPORT_BUILD_FEATURE,
        AllowanceRefused,
        AssistAllowance,
        CallInterrupted,
        Ticket,
    )
    from ._area import AssistArea
    from ._call import (
        CANCELLED_NOTICE,
        Assistant,
        AssistBackend,
        AssistUnavailable,
        CallRecord,
        ModelAnswer,
        ModelCall,
        Role,
        assist_backend,
    )
    from ._check import CHECK_CALL, ModelCheck, check_model
    from ._extract import (
        AssistedEvidence,
        EvidenceAssistant,
        ExtractionPreview,
        ExtractionSource,
        ProvenanceView,
        SuggestionDraft,
    )
    from ._jobs import ASSIST_KINDS, EXTRACT_KIND, STRATEGY_KIND, SUMMARY_KIND, AssistJob
    from ._metered import MeteredBackend
    from ._requests import (
        BuildStrategy,
        CheckModel,
        EvidenceSource,
        SaveEvidence,
        SaveFormEvidence,
        SaveSummaryReport,
        StrategyRequest,
        SuggestEvidence,
        SummaryRequest,
    )
    from ._views import (
        PaperProvenance,
        ReportFile,
        ReportListing,
        StrategyView,
        SuggestionView,
        SummaryNotice,
        SummarySources,
        SummaryView,
    )

__all__ = [
    "ASSIST_KINDS",
    "CANCELLED_NOTICE",
    "EXTRACT_KIND",
    "STRATEGY_KIND",
    "SUMMARY_KIND",
    "AssistArea",
    "AssistJob",
    "BuildStrategy",
    "CheckModel",
    "EvidenceSource",
    "PaperProvenance",
    "ReportFile",
    "ReportListing",
    "SaveEvidence",
    "SaveFormEvidence",
    "SaveSummaryReport",
    "StrategyRequest",
    "StrategyView",
    "SuggestEvidence",
    "SuggestionView",
    "SummaryNotice",
    "SummaryRequest",
    "SummarySources",
    "SummaryView",
    "CHAT_FEATURE",
    "CHECK_CALL",
    "LIBRARY_FEATURES",
    "REPORT_BUILD_FEATURE",
    "AllowanceRefused",
    "AssistedEvidence",
    "EvidenceAssistant",
    "ExtractionPreview",
    "ExtractionSource",
    "ProvenanceView",
    "SuggestionDraft",
    "AssistAllowance",
    "AssistBackend",
    "AssistUnavailable",
    "Assistant",
    "CallInterrupted",
    "CallRecord",
    "ModelAnswer",
    "ModelCall",
    "MeteredBackend",
    "ModelCheck",
    "Role",
    "Ticket",
    "assist_backend",
    "check_model",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
